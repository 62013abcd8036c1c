package storage

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

// DropPlaces lists the tenants of the platform that have a drop of
// eventID that is not removed, oldest tenant first; none is no error. It
// serves /claim in Telegram's private chat, which looks for the groups
// that hand the drop out.
func (db *DB) DropPlaces(ctx context.Context, platform core.Platform, eventID int64) ([]core.Place, error) {
	const op = "drop tenants"
	live := db.gorm.WithContext(ctx).Model(&dropRow{}).Select("tenant_id").
		Where("event_id = ? AND removed_at IS NULL", eventID)
	var rows []tenantRow
	err := db.gorm.WithContext(ctx).
		Where("platform = ? AND id IN (?)", string(platform), live).
		Order("id").
		Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	tenants := make([]core.Place, len(rows))
	for i, r := range rows {
		tenants[i] = r.place()
	}
	return tenants, nil
}
