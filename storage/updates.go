package storage

import (
	"context"
	"time"
)

// updateRetention is how long taken updates are remembered: twice the 24
// hours Telegram goes on delivering an update its webhook did not confirm.
const updateRetention = 48 * time.Hour

// prunePeriod spaces the deletions of forgotten updates.
const prunePeriod = time.Hour

// TakeUpdate records update updateID of the Telegram bot botID, taken at at,
// and reports whether this call recorded it first: with several replicas
// behind one webhook, each delivery of an update is taken by one of them
// only, once. Updates older than 48 hours are forgotten now and then. It
// returns the database error, translated.
func (db *DB) TakeUpdate(ctx context.Context, botID, updateID int64, at time.Time) (bool, error) {
	const op = "take update"
	res := db.gorm.WithContext(ctx).Exec(`
		INSERT INTO telegram_updates (bot_id, update_id, taken_at) VALUES (?, ?, ?)
		ON CONFLICT (bot_id, update_id) DO NOTHING`, botID, updateID, dbTime(at))
	if res.Error != nil {
		return false, translate(op, res.Error)
	}
	db.pruneUpdates(ctx, at)
	return res.RowsAffected == 1, nil
}

// pruneUpdates forgets the updates taken before the retention, at most once
// a prunePeriod per process. A failure is logged: it only delays the next.
func (db *DB) pruneUpdates(ctx context.Context, at time.Time) {
	db.pruned.mu.Lock()
	due := at.Sub(db.pruned.at) >= prunePeriod
	if due {
		db.pruned.at = at
	}
	db.pruned.mu.Unlock()
	if !due {
		return
	}
	err := db.gorm.WithContext(ctx).Exec(`DELETE FROM telegram_updates WHERE taken_at < ?`, dbTime(at.Add(-updateRetention))).Error
	if err != nil {
		db.log.Warn("forgetting old telegram updates failed", "err", translate("prune updates", err))
	}
}
