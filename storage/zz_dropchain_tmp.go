package storage

import (
	"context"
	"time"
)

// SetDropChain is a stand-in until the network branch lands.
func (db *DB) SetDropChain(ctx context.Context, dropID, chain int64) error {
	_ = time.Now
	return db.gorm.WithContext(ctx).Exec(`UPDATE drops SET chain_id = ? WHERE id = ?`, chain, dropID).Error
}
