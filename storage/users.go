package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// tenantRow is a row of tenants.
type tenantRow struct {
	ID         int64
	Platform   string
	ExternalID string
	Name       string
	CreatedAt  time.Time
}

func (tenantRow) TableName() string { return "tenants" }

func (r tenantRow) place() core.Place {
	return core.Place{
		ID:         r.ID,
		Platform:   core.Platform(r.Platform),
		ExternalID: r.ExternalID,
		Name:       r.Name,
		CreatedAt:  r.CreatedAt.UTC(),
	}
}

// userRow is a row of users.
type userRow struct {
	ID         int64
	Platform   string
	ExternalID string
	Name       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

func (userRow) TableName() string { return "users" }

func (r userRow) user() core.User {
	return core.User{
		ID:         r.ID,
		Platform:   core.Platform(r.Platform),
		ExternalID: r.ExternalID,
		Name:       r.Name,
		CreatedAt:  r.CreatedAt.UTC(),
	}
}

// auditRow is a row of audit_log.
type auditRow struct {
	ID        int64
	TenantID  *int64
	UserID    *int64
	Action    string
	Detail    string
	CreatedAt time.Time
}

func (auditRow) TableName() string { return "audit_log" }

// UpsertPlace creates the tenant (platform, external id) or refreshes its
// name, in one statement, and returns the stored row. An empty name keeps
// the stored one. CreatedAt, when zero, is now. It returns an error for an
// unknown platform or an empty external id.
func (db *DB) UpsertPlace(ctx context.Context, t core.Place) (core.Place, error) {
	const op = "upsert tenant"
	if err := checkIdentity(t.Platform, t.ExternalID); err != nil {
		return core.Place{}, fmt.Errorf("%s: %w", op, err)
	}
	var row tenantRow
	err := db.gorm.WithContext(ctx).Raw(`
		INSERT INTO tenants (platform, external_id, name, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (platform, external_id) DO UPDATE
			SET name = CASE WHEN excluded.name = '' THEN tenants.name ELSE excluded.name END
		RETURNING id, platform, external_id, name, created_at`,
		string(t.Platform), t.ExternalID, t.Name, createdAt(t.CreatedAt)).Scan(&row).Error
	if err != nil {
		return core.Place{}, translate(op, err)
	}
	return row.place(), nil
}

// UpsertUser creates the user (platform, external id) or refreshes its
// name, in one statement, and returns the stored row. An empty name keeps
// the stored one. CreatedAt, when zero, is now. It returns an error for an
// unknown platform or an empty external id.
func (db *DB) UpsertUser(ctx context.Context, u core.User) (core.User, error) {
	const op = "upsert user"
	if err := checkIdentity(u.Platform, u.ExternalID); err != nil {
		return core.User{}, fmt.Errorf("%s: %w", op, err)
	}
	row, err := upsertUser(db.gorm.WithContext(ctx), u)
	if err != nil {
		return core.User{}, translate(op, err)
	}
	return row.user(), nil
}

// upsertUser runs UpsertUser's statement on tx (a transaction or the
// database). On Postgres it leaves the user's row locked until tx ends.
func upsertUser(tx *gorm.DB, u core.User) (userRow, error) {
	var row userRow
	err := tx.Raw(`
		INSERT INTO users (platform, external_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (platform, external_id) DO UPDATE
			SET name = CASE WHEN excluded.name = '' THEN users.name ELSE excluded.name END,
				updated_at = excluded.updated_at
		RETURNING id, platform, external_id, name, created_at, updated_at`,
		string(u.Platform), u.ExternalID, u.Name, createdAt(u.CreatedAt), now()).Scan(&row).Error
	return row, err
}

// FindUser returns the user with that platform id. It returns
// core.ErrNotFound when there is none.
func (db *DB) FindUser(ctx context.Context, p core.Platform, externalID string) (core.User, error) {
	var row userRow
	err := db.gorm.WithContext(ctx).
		Where("platform = ? AND external_id = ?", string(p), externalID).
		Take(&row).Error
	if err != nil {
		return core.User{}, translate("find user", err)
	}
	return row.user(), nil
}

// UserByID returns the user with that id, as the bot's background work
// finds them from what it stored (a mint link's or a website claim's
// member). It returns core.ErrNotFound when there is none.
func (db *DB) UserByID(ctx context.Context, id int64) (core.User, error) {
	var row userRow
	if err := db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return core.User{}, translate("user by id", err)
	}
	return row.user(), nil
}

// FindUserByName returns the user of the platform whose display name
// matches name, ignoring case (ASCII case on SQLite). When several members
// share the name, the one seen most recently wins. It returns
// core.ErrNotFound when there is none.
func (db *DB) FindUserByName(ctx context.Context, p core.Platform, name string) (core.User, error) {
	const op = "find user by name"
	if name == "" {
		return core.User{}, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	var row userRow
	err := db.gorm.WithContext(ctx).
		Where("platform = ? AND lower(name) = lower(?)", string(p), name).
		Order("updated_at DESC, id DESC").
		Take(&row).Error
	if err != nil {
		return core.User{}, translate(op, err)
	}
	return row.user(), nil
}

// Audit appends e to the audit log. CreatedAt, when zero, is now. It
// returns an error for an empty action, and core.ErrConflict when the
// tenant or user it names does not exist.
func (db *DB) Audit(ctx context.Context, e core.AuditEntry) error {
	const op = "audit"
	if e.Action == "" {
		return fmt.Errorf("%s: the action is empty", op)
	}
	row := auditRow{
		TenantID:  e.PlaceID,
		UserID:    e.UserID,
		Action:    e.Action,
		Detail:    e.Detail,
		CreatedAt: createdAt(e.CreatedAt),
	}
	return translate(op, db.gorm.WithContext(ctx).Create(&row).Error)
}

// checkIdentity refuses what the database's CHECK constraints would, with
// a clearer message.
func checkIdentity(p core.Platform, externalID string) error {
	if !p.Valid() {
		return fmt.Errorf("unknown platform %q", p)
	}
	if externalID == "" {
		return fmt.Errorf("the %s id is empty", p)
	}
	return nil
}

// createdAt returns t as stored, or now when t is zero.
func createdAt(t time.Time) time.Time {
	if t.IsZero() {
		return now()
	}
	return dbTime(t)
}
