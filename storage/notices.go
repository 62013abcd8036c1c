package storage

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

// TakeLowStockPosts returns the posts of the drops, not removed, whose
// low-stock notice NoteLowStock made due, grouped by drop and oldest
// first, and marks each drop's notice given with a conditional UPDATE on
// the due flag, so that of several callers racing (replicas) one only gets
// a drop's posts. A drop whose links were imported since (the shortage is
// over) or that has no post is left as it is. It returns the database
// error, if any, with the posts of the drops it marked before.
func (db *DB) TakeLowStockPosts(ctx context.Context) ([]core.Post, error) {
	const op = "take low stock posts"
	var due []int64
	err := db.gorm.WithContext(ctx).Raw(`
		SELECT d.id FROM drops d
		WHERE d.low_stock_notice_due AND d.low_stock_notified_at IS NOT NULL AND d.removed_at IS NULL
			AND EXISTS (SELECT 1 FROM posts p WHERE p.drop_id = d.id)
		ORDER BY d.id`).Scan(&due).Error
	if err != nil {
		return nil, translate(op, err)
	}
	var out []core.Post
	for _, id := range due {
		res := db.gorm.WithContext(ctx).Exec(`
			UPDATE drops SET low_stock_notice_due = FALSE
			WHERE id = ? AND low_stock_notice_due AND low_stock_notified_at IS NOT NULL AND removed_at IS NULL`, id)
		if res.Error != nil {
			return out, translate(op, res.Error)
		}
		if res.RowsAffected != 1 {
			continue
		}
		var rows []postRow
		if err := db.gorm.WithContext(ctx).Where("drop_id = ?", id).Order("id").Find(&rows).Error; err != nil {
			return out, translate(op, err)
		}
		for _, r := range rows {
			out = append(out, r.post())
		}
	}
	return out, nil
}
