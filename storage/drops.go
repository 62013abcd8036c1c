package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

var _ core.DropStore = (*DB)(nil)

// dropRow is a row of drops; EditCode is ciphertext.
type dropRow struct {
	ID       int64
	TenantID int64
	EventID  int64
	Name     string
	ImageURL string
	EditCode []byte
	// LinkMethod keeps auto, link or mint for links, in the column
	// delivery (see claimMethod).
	LinkMethod         string `gorm:"column:delivery"`
	Starts             *time.Time
	Ends               *time.Time
	Codeword           string
	RequiredRole       string
	ExpiresAt          *time.Time
	LowStock           int
	LowStockNotifiedAt *time.Time
	RemovedAt          *time.Time
	CreatedBy          *int64
	CreatedAt          time.Time
	// Method is links, website or delivery (see claimMethod and
	// setClaimMethod).
	Method             string
	Website            string
	WebsiteRequestedAt *time.Time
	ChainID            *int64
}

func (dropRow) TableName() string { return "drops" }

// The drops.method values.
const (
	methodLinks    = "links"
	methodWebsite  = "website"
	methodDelivery = "delivery"
)

// claimMethod is the row's core.ClaimMethod: Method, unless that is links.
func (r dropRow) claimMethod() core.ClaimMethod {
	if r.Method == methodWebsite || r.Method == methodDelivery {
		return core.ClaimMethod(r.Method)
	}
	return core.ClaimMethod(r.LinkMethod)
}

// setClaimMethod stores d in the row: a links method in LinkMethod, another
// in Method (LinkMethod then keeps auto, which the column requires).
func (r *dropRow) setClaimMethod(d core.ClaimMethod) {
	if d.UsesLinks() {
		r.Method, r.LinkMethod = methodLinks, string(d)
		return
	}
	r.Method = string(d)
	if r.LinkMethod == "" {
		r.LinkMethod = string(core.ClaimAuto)
	}
}

// editCodeContext binds a sealed edit code to its tenant and event, so the
// ciphertext of one drop's code cannot be copied into another drop's row.
func editCodeContext(tenantID, eventID int64) string {
	return "drop_edit_code:" + strconv.FormatInt(tenantID, 10) + ":" + strconv.FormatInt(eventID, 10)
}

// drop decrypts the row's edit code and returns the drop.
func (db *DB) drop(r dropRow) (core.Drop, error) {
	if db.cipher == nil {
		return core.Drop{}, ErrNoKey
	}
	code, err := db.cipher.Open(r.EditCode, editCodeContext(r.TenantID, r.EventID))
	if err != nil {
		return core.Drop{}, fmt.Errorf("drop #%d: edit code: %w", r.ID, err)
	}
	d := core.Drop{
		ID:           r.ID,
		PlaceID:      r.TenantID,
		EventID:      r.EventID,
		Name:         r.Name,
		ImageURL:     r.ImageURL,
		EditCode:     core.Secret(code),
		Method:       r.claimMethod(),
		Website:      r.Website,
		Starts:       utcPtr(r.Starts),
		Ends:         utcPtr(r.Ends),
		Codeword:     r.Codeword,
		RequiredRole: r.RequiredRole,
		LowStock:     r.LowStock,
		RemovedAt:    utcPtr(r.RemovedAt),
		CreatedAt:    r.CreatedAt.UTC(),
	}
	if r.ExpiresAt != nil {
		d.ExpiresAt = r.ExpiresAt.UTC()
	}
	if r.CreatedBy != nil {
		d.CreatedBy = *r.CreatedBy
	}
	if r.ChainID != nil {
		d.Chain = *r.ChainID
	}
	d.WebsiteRequestedAt = utcPtr(r.WebsiteRequestedAt)
	return d, nil
}

// AddDrop, in one transaction, registers the drop d in its tenant with its
// links, and returns the stored drop. The edit code is stored encrypted.
// Links the service lists as claimed are stored as claimed elsewhere, and
// so is a link live in another drop (another tenant's drop of the same
// event): a mint link is handed out by one drop only.
//
// When the tenant's latest drop of the event was removed, that row is
// brought back (again true) rather than a new one added: removed_at is
// cleared, d's settings replace the old ones (a drop minted through its
// delivery keeps that method, its list being fixed at the service), and
// d's links are imported into it, so the available ones come back. Its
// handed-out and minted links never left it: each member keeps the link
// they had (one link per member per drop holds across remove and add),
// the export lists the drop's whole history, and its claim messages,
// website claims and deliveries stay attached. Its CreatedAt and
// CreatedBy stay those of the first add; the audit log records the
// second.
//
// A zero ExpiresAt is stored as none, a zero CreatedBy as nobody, a zero
// CreatedAt as now. It returns ErrNoKey without a key, an error for an
// invalid drop, and core.ErrConflict when the tenant has the event already
// (and it is not removed) or the tenant or creator does not exist.
func (db *DB) AddDrop(ctx context.Context, d core.Drop, links []core.ImportedMintLink) (added core.Drop, again bool, err error) {
	const op = "add drop"
	if db.cipher == nil {
		return core.Drop{}, false, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	if err := checkDrop(d); err != nil {
		return core.Drop{}, false, fmt.Errorf("%s: %w", op, err)
	}
	hashes, err := splitMintLinks(links)
	if err != nil {
		return core.Drop{}, false, fmt.Errorf("%s: %w", op, err)
	}
	row := db.newDropRow(d)
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		prev, err := latestDrop(tx, d.PlaceID, d.EventID)
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
		case err != nil:
			return err
		case prev.RemovedAt == nil:
			return fmt.Errorf("event %d: %w", d.EventID, core.ErrConflict)
		default:
			again = true
			row, err = reviveDrop(tx, prev, row, hashes)
			return err
		}
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		_, err = insertMintLinks(tx, row.ID, hashes, row.CreatedAt)
		return err
	})
	if err != nil {
		return core.Drop{}, false, translate(op, err)
	}
	out, err := db.drop(row)
	if err != nil {
		return core.Drop{}, false, fmt.Errorf("%s: %w", op, err)
	}
	return out, again, nil
}

// newDropRow maps d to the row AddDrop inserts, sealing the edit code.
func (db *DB) newDropRow(d core.Drop) dropRow {
	row := dropRow{
		TenantID:     d.PlaceID,
		EventID:      d.EventID,
		Name:         d.Name,
		ImageURL:     d.ImageURL,
		EditCode:     db.cipher.Seal([]byte(d.EditCode.Reveal()), editCodeContext(d.PlaceID, d.EventID)),
		Website:      d.Website,
		Starts:       nullTime(d.Starts),
		Ends:         nullTime(d.Ends),
		Codeword:     d.Codeword,
		RequiredRole: d.RequiredRole,
		LowStock:     d.LowStock,
		CreatedAt:    createdAt(d.CreatedAt),
	}
	if !d.ExpiresAt.IsZero() {
		row.ExpiresAt = nullTime(&d.ExpiresAt)
	}
	if d.CreatedBy != 0 {
		row.CreatedBy = &d.CreatedBy
	}
	if d.Chain != 0 {
		row.ChainID = &d.Chain
	}
	row.WebsiteRequestedAt = nullTime(d.WebsiteRequestedAt)
	row.setClaimMethod(d.Method)
	return row
}

// DropByEvent returns the tenant's drop of eventID that is not removed. A
// removed drop is not returned, so that the event can be added again. It
// returns core.ErrNotFound when there is none, ErrNoKey without a key, and
// ErrDecrypt when the stored edit code cannot be decrypted.
func (db *DB) DropByEvent(ctx context.Context, tenantID, eventID int64) (core.Drop, error) {
	const op = "drop by event"
	var row dropRow
	err := db.gorm.WithContext(ctx).
		Where("tenant_id = ? AND event_id = ? AND removed_at IS NULL", tenantID, eventID).
		Take(&row).Error
	if err != nil {
		return core.Drop{}, translate(op, err)
	}
	d, err := db.drop(row)
	if err != nil {
		return core.Drop{}, fmt.Errorf("%s: %w", op, err)
	}
	return d, nil
}

// Drops lists the tenant's drops that are not removed, oldest first. It
// returns ErrNoKey without a key, and ErrDecrypt when a stored edit code
// cannot be decrypted.
func (db *DB) Drops(ctx context.Context, tenantID int64) ([]core.Drop, error) {
	const op = "drops"
	var rows []dropRow
	err := db.gorm.WithContext(ctx).
		Where("tenant_id = ? AND removed_at IS NULL", tenantID).
		Order("created_at, id").
		Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	return db.drops(op, rows)
}

// AllDrops lists the drops of every tenant that are not removed, oldest
// first, for the periodic refresh of their links. It returns ErrNoKey
// without a key, and ErrDecrypt when a stored edit code cannot be
// decrypted.
func (db *DB) AllDrops(ctx context.Context) ([]core.Drop, error) {
	const op = "all drops"
	var rows []dropRow
	err := db.gorm.WithContext(ctx).Where("removed_at IS NULL").Order("id").Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	return db.drops(op, rows)
}

// drops decrypts the rows' edit codes and returns the drops.
func (db *DB) drops(op string, rows []dropRow) ([]core.Drop, error) {
	drops := make([]core.Drop, len(rows))
	for i, r := range rows {
		var err error
		if drops[i], err = db.drop(r); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return drops, nil
}

// RemoveDrop, in one transaction, marks the drop removed at at and deletes
// its available links: no claim can take one afterwards, and the links are
// free for another place's drop of the event. Links that left the pool
// stay with their members, for the export, so that they are never handed
// out again, and for AddDrop to bring the drop back with them. Removing a
// removed drop changes nothing. It returns core.ErrNotFound when the drop
// does not exist.
func (db *DB) RemoveDrop(ctx context.Context, dropID int64, at time.Time) error {
	const op = "remove drop"
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Locking the drop serialises RemoveDrop with ImportMintLinks, which
		// could otherwise add available links to a drop being removed.
		if _, err := lockDrop(tx, dropID); err != nil {
			return err
		}
		err := tx.Exec(`UPDATE drops SET removed_at = ? WHERE id = ? AND removed_at IS NULL`,
			dbTime(at), dropID).Error
		if err != nil {
			return err
		}
		return tx.Exec(`DELETE FROM mint_links WHERE drop_id = ? AND state = 'available'`, dropID).Error
	})
	return translate(op, err)
}

// NoteLowStock marks, at at, that moderators are told the drop runs low,
// when its available links are fewer than its LowStock threshold and they
// were not told since its links were last added. It reports whether this
// call marked it: true once per shortage, however many callers race. The
// same step makes the notice due in the drop's posts (see
// TakeLowStockPosts). A removed drop or one without a threshold is never
// marked. It returns the database error, if any.
func (db *DB) NoteLowStock(ctx context.Context, dropID int64, at time.Time) (bool, error) {
	res := db.gorm.WithContext(ctx).Exec(`
		UPDATE drops SET low_stock_notified_at = ?, low_stock_notice_due = TRUE
		WHERE id = ? AND low_stock_notified_at IS NULL AND removed_at IS NULL AND low_stock > 0
			AND (SELECT count(*) FROM mint_links WHERE drop_id = drops.id AND state = 'available') < low_stock`,
		dbTime(at), dropID)
	if res.Error != nil {
		return false, translate("note low stock", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// lockDrop reads the drop's removed_at and, on Postgres, locks its row
// until the transaction ends; SQLite transactions exclude each other
// already. It returns gorm.ErrRecordNotFound when the drop does not exist.
func lockDrop(tx *gorm.DB, dropID int64) (dropRow, error) {
	var row dropRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
		Select("id", "removed_at").Where("id = ?", dropID).Take(&row).Error
	return row, err
}

// checkDrop refuses what the database's constraints would, with a clearer
// message.
func checkDrop(d core.Drop) error {
	switch d.Method {
	case core.ClaimAuto, core.ClaimLink, core.ClaimMint, core.ClaimDelivery:
	case core.ClaimWebsite:
		if d.Website == "" {
			return fmt.Errorf("a website claim method without a website")
		}
	default:
		return fmt.Errorf("unknown claim method %q", d.Method)
	}
	switch {
	case d.PlaceID <= 0:
		return fmt.Errorf("no tenant")
	case d.EventID <= 0:
		return fmt.Errorf("event id %d is not positive", d.EventID)
	case d.LowStock < 0:
		return fmt.Errorf("low stock threshold %d is negative", d.LowStock)
	case d.Starts != nil && d.Ends != nil && !d.Starts.Before(*d.Ends):
		return fmt.Errorf("the claim window ends before it starts")
	}
	return nil
}

// utcPtr returns a copy of t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	at := t.UTC()
	return &at
}
