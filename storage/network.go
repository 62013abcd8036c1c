package storage

import (
	"context"
	"fmt"

	"github.com/poapbot/poapbot/core"
)

var _ core.NetworkStore = (*DB)(nil)

// SetDropChain records chain as the network the drop mints on (drops.chain_id,
// core.Drop.Chain), removed or not. It returns an error for a chain id that
// is not above 0, core.ErrNotFound when the drop does not exist, and the
// database error translated.
func (db *DB) SetDropChain(ctx context.Context, dropID, chain int64) error {
	const op = "set drop chain"
	if chain <= 0 {
		return fmt.Errorf("%s: drop #%d: chain id %d is not above 0", op, dropID, chain)
	}
	res := db.gorm.WithContext(ctx).Exec(`UPDATE drops SET chain_id = ? WHERE id = ?`, chain, dropID)
	switch {
	case res.Error != nil:
		return translate(op, res.Error)
	case res.RowsAffected == 0:
		return fmt.Errorf("%s: drop #%d: %w", op, dropID, core.ErrNotFound)
	}
	return nil
}
