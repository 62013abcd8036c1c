package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

var _ core.DeliveryStore = (*DB)(nil)

// deliveryRow is a row of deliveries, with the size of its list.
type deliveryRow struct {
	ID        int64
	DropID    int64
	Source    string
	Slug      string
	CardTitle string
	CardText  string
	PageTitle string
	PageText  string
	State     string
	ServiceID *int64
	CreatedBy *int64
	CreatedAt time.Time
	UpdatedAt time.Time
	Size      int
}

// deliveryColumns are the columns a query of deliveries d gives back for a
// deliveryRow, Size counted from its addresses.
const deliveryColumns = `d.id, d.drop_id, d.source, d.slug, d.card_title, d.card_text, d.page_title, d.page_text,
	d.state, d.service_id, d.created_by, d.created_at, d.updated_at,
	(SELECT count(*) FROM delivery_addresses a WHERE a.delivery_id = d.id) AS size`

func (r deliveryRow) delivery() core.DropDelivery {
	d := core.DropDelivery{
		ID: r.ID, DropID: r.DropID, Source: r.Source, Slug: r.Slug,
		CardTitle: r.CardTitle, CardText: r.CardText, PageTitle: r.PageTitle, PageText: r.PageText,
		State: core.DeliveryState(r.State), Size: r.Size,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.ServiceID != nil {
		d.ServiceID = *r.ServiceID
	}
	if r.CreatedBy != nil {
		d.CreatedBy = *r.CreatedBy
	}
	return d
}

// deliveryEntryRow is a row of delivery_addresses.
type deliveryEntryRow struct {
	DeliveryID   int64
	Address      string
	UserID       *int64
	State        string
	Sent         bool
	QueueUID     string `gorm:"column:queue_uid"`
	ClaimAttempt int
	UpdatedAt    time.Time
}

// deliveryEntryColumns are the columns a query gives back for a
// deliveryEntryRow.
const deliveryEntryColumns = "delivery_id, address, user_id, state, sent, queue_uid, claim_attempt, updated_at"

func (r deliveryEntryRow) entry() core.DeliveryEntry {
	e := core.DeliveryEntry{
		DeliveryID: r.DeliveryID, Address: r.Address, State: core.DeliveryEntryState(r.State),
		Sent: r.Sent, QueueUID: r.QueueUID, Attempt: r.ClaimAttempt, UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.UserID != nil {
		e.UserID = *r.UserID
	}
	return e
}

// entryBatch is how many entries one INSERT writes: 4 parameters each, well
// under the limits of both dialects (32766 on SQLite, 65535 on Postgres).
const entryBatch = 1000

// SaveDeliveryDraft stores d (DropID, Source, Slug, texts, CreatedBy,
// CreatedAt) as a draft with its entries (Address, lower-cased, and
// UserID), listed, in one transaction that deletes the drop's earlier
// drafts (their lists with them); the drop's created delivery, if any, is
// kept. It returns d with its ID, State, Size and UpdatedAt. A zero
// CreatedAt is stored as now, a zero CreatedBy as nobody. It returns an
// error for an empty slug, address or user, core.ErrNotFound when the
// drop does not exist, and core.ErrConflict, storing nothing, when two
// entries share an address or a user (or a user does not exist).
func (db *DB) SaveDeliveryDraft(ctx context.Context, d core.DropDelivery, entries []core.DeliveryEntry) (core.DropDelivery, error) {
	const op = "save delivery draft"
	if err := checkDraft(d, entries); err != nil {
		return core.DropDelivery{}, fmt.Errorf("%s: %w", op, err)
	}
	d.CreatedAt = dbTime(d.CreatedAt)
	if d.CreatedAt.IsZero() {
		d.CreatedAt = now()
	}
	d.State, d.ServiceID, d.Size, d.UpdatedAt = core.DeliveryDraft, 0, len(entries), d.CreatedAt
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Locking the drop serialises drafts of one drop, so that each
		// deletes the one before.
		if _, err := lockDrop(tx, d.DropID); err != nil {
			return err
		}
		if err := tx.Exec(`DELETE FROM deliveries WHERE drop_id = ? AND state = 'draft'`, d.DropID).Error; err != nil {
			return err
		}
		id, err := insertDraft(tx, d)
		if err != nil {
			return err
		}
		d.ID = id
		return insertEntries(tx, id, entries, d.CreatedAt)
	})
	if err != nil {
		return core.DropDelivery{}, translate(op, err)
	}
	return d, nil
}

// checkDraft refuses what the database's constraints would, with a clearer
// message.
func checkDraft(d core.DropDelivery, entries []core.DeliveryEntry) error {
	if strings.TrimSpace(d.Slug) == "" {
		return errors.New("the slug is empty")
	}
	for _, e := range entries {
		if strings.TrimSpace(e.Address) == "" {
			return fmt.Errorf("user #%d has an empty address", e.UserID)
		}
		if e.UserID == 0 {
			return fmt.Errorf("address %s has no user", e.Address)
		}
	}
	return nil
}

// insertDraft inserts d as a draft and returns its id.
func insertDraft(tx *gorm.DB, d core.DropDelivery) (int64, error) {
	var createdBy *int64
	if d.CreatedBy != 0 {
		createdBy = &d.CreatedBy
	}
	var id int64
	err := tx.Raw(`
		INSERT INTO deliveries (drop_id, source, slug, card_title, card_text, page_title, page_text, state, created_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'draft', ?, ?, ?)
		RETURNING id`,
		d.DropID, d.Source, d.Slug, d.CardTitle, d.CardText, d.PageTitle, d.PageText, createdBy, d.CreatedAt, d.CreatedAt).
		Scan(&id).Error
	return id, err
}

// insertEntries inserts the entries of the delivery, listed at at, in
// batches of entryBatch. A repeated address or user fails the INSERT.
func insertEntries(tx *gorm.DB, deliveryID int64, entries []core.DeliveryEntry, at time.Time) error {
	for len(entries) > 0 {
		n := min(entryBatch, len(entries))
		var sb strings.Builder
		sb.WriteString(`INSERT INTO delivery_addresses (delivery_id, address, user_id, state, updated_at) VALUES `)
		args := make([]any, 0, 4*n)
		for i, e := range entries[:n] {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, 'listed', ?)")
			args = append(args, deliveryID, strings.ToLower(strings.TrimSpace(e.Address)), e.UserID, at)
		}
		if err := tx.Exec(sb.String(), args...).Error; err != nil {
			return err
		}
		entries = entries[n:]
	}
	return nil
}

// Delivery returns the delivery with its Size, or core.ErrNotFound.
func (db *DB) Delivery(ctx context.Context, id int64) (core.DropDelivery, error) {
	return deliveryWhere(db.gorm.WithContext(ctx), "delivery", "d.id = ?", id)
}

// CreatedDelivery returns the drop's created delivery with its Size, or
// core.ErrNotFound when the drop has none.
func (db *DB) CreatedDelivery(ctx context.Context, dropID int64) (core.DropDelivery, error) {
	return deliveryWhere(db.gorm.WithContext(ctx), "created delivery", "d.drop_id = ? AND d.state = 'created'", dropID)
}

// deliveryWhere returns the one delivery where says, or core.ErrNotFound.
func deliveryWhere(g *gorm.DB, op, where string, args ...any) (core.DropDelivery, error) {
	var row deliveryRow
	err := g.Raw(`SELECT `+deliveryColumns+` FROM deliveries d WHERE `+where, args...).Scan(&row).Error
	switch {
	case err != nil:
		return core.DropDelivery{}, translate(op, err)
	case row.ID == 0:
		return core.DropDelivery{}, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return row.delivery(), nil
}

// DeliveryEntries lists the delivery's entries by address; none for a
// delivery that does not exist.
func (db *DB) DeliveryEntries(ctx context.Context, id int64) ([]core.DeliveryEntry, error) {
	var rows []deliveryEntryRow
	err := db.gorm.WithContext(ctx).Raw(`SELECT `+deliveryEntryColumns+` FROM delivery_addresses WHERE delivery_id = ? ORDER BY address`, id).
		Scan(&rows).Error
	if err != nil {
		return nil, translate("delivery entries", err)
	}
	out := make([]core.DeliveryEntry, len(rows))
	for i, r := range rows {
		out[i] = r.entry()
	}
	return out, nil
}

// MarkDeliveryCreated records that the draft was created at the service
// as serviceID at at and makes its drop mint through it (method delivery,
// its website kept), in one transaction, and returns the delivery with
// its Size. Marking a delivery created already with the same serviceID
// changes nothing. It returns core.ErrDeliveryExists when the delivery
// was created as another serviceID, or the drop has another created
// delivery (the unique index deliveries_drop_created decides, however
// many race), and core.ErrNotFound when the draft is gone.
func (db *DB) MarkDeliveryCreated(ctx context.Context, id, serviceID int64, at time.Time) (core.DropDelivery, error) {
	const op = "mark delivery created"
	if serviceID <= 0 {
		return core.DropDelivery{}, fmt.Errorf("%s: service id %d", op, serviceID)
	}
	var out core.DropDelivery
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		cur, err := db.lockDelivery(tx, id)
		if err != nil {
			return err
		}
		switch {
		case cur.State == core.DeliveryCreated && cur.ServiceID == serviceID:
			out = cur
			return nil
		case cur.State == core.DeliveryCreated:
			return fmt.Errorf("delivery #%d was created as #%d: %w", id, cur.ServiceID, core.ErrDeliveryExists)
		}
		err = tx.Exec(`UPDATE deliveries SET state = 'created', service_id = ?, updated_at = ? WHERE id = ?`,
			serviceID, dbTime(at), id).Error
		if classify(err) == uniqueViolation {
			return fmt.Errorf("drop #%d: %w", cur.DropID, core.ErrDeliveryExists)
		} else if err != nil {
			return err
		}
		if err := tx.Exec(`UPDATE drops SET method = ? WHERE id = ?`, methodDelivery, cur.DropID).Error; err != nil {
			return err
		}
		out, err = db.lockDelivery(tx, id)
		return err
	})
	switch {
	case errors.Is(err, core.ErrDeliveryExists), errors.Is(err, core.ErrNotFound):
		return core.DropDelivery{}, fmt.Errorf("%s: %w", op, err)
	case err != nil:
		return core.DropDelivery{}, translate(op, err)
	}
	return out, nil
}

// lockDelivery reads the delivery in tx, with its Size, locked for update
// on Postgres (SQLite's transactions hold the write lock from their
// start), or core.ErrNotFound.
func (db *DB) lockDelivery(tx *gorm.DB, id int64) (core.DropDelivery, error) {
	lock := ""
	if db.dialect == DialectPostgres {
		lock = " FOR UPDATE"
	}
	var row deliveryRow
	err := tx.Raw(`SELECT `+deliveryColumns+` FROM deliveries d WHERE d.id = ?`+lock, id).Scan(&row).Error
	switch {
	case err != nil:
		return core.DropDelivery{}, err
	case row.ID == 0:
		return core.DropDelivery{}, fmt.Errorf("delivery #%d: %w", id, core.ErrNotFound)
	}
	return row.delivery(), nil
}

// TakeDeliveryClaim moves the user's entry of the delivery to claiming at
// now when it is listed, or claiming since before stale (its taker died,
// or its request outlived the lease), with one more attempt, in one
// conditional UPDATE that hands an entry to one taker only: taken is true
// then, and the entry's Attempt is the taker's to present to
// MarkDeliverySent and FinishDeliveryClaim. Otherwise it returns the entry
// as it is, taken false. It returns core.ErrNotFound when the user is not
// on the list.
func (db *DB) TakeDeliveryClaim(ctx context.Context, deliveryID, userID int64, now, stale time.Time) (core.DeliveryEntry, bool, error) {
	const op = "take delivery claim"
	g := db.gorm.WithContext(ctx)
	var rows []deliveryEntryRow
	err := g.Raw(`
		UPDATE delivery_addresses SET state = 'claiming', claim_attempt = claim_attempt + 1, updated_at = ?
		WHERE delivery_id = ? AND user_id = ? AND (state = 'listed' OR (state = 'claiming' AND updated_at < ?))
		RETURNING `+deliveryEntryColumns, dbTime(now), deliveryID, userID, dbTime(stale)).Scan(&rows).Error
	if err != nil {
		return core.DeliveryEntry{}, false, translate(op, err)
	}
	if len(rows) == 1 {
		return rows[0].entry(), true, nil
	}
	e, err := memberEntry(g, op, deliveryID, userID)
	return e, false, err
}

// MemberDeliveryEntry returns the user's entry of the delivery, or
// core.ErrNotFound when the user is not on its list.
func (db *DB) MemberDeliveryEntry(ctx context.Context, deliveryID, userID int64) (core.DeliveryEntry, error) {
	return memberEntry(db.gorm.WithContext(ctx), "member delivery entry", deliveryID, userID)
}

// memberEntry reads the user's entry of the delivery, or core.ErrNotFound;
// errors are wrapped with op.
func memberEntry(g *gorm.DB, op string, deliveryID, userID int64) (core.DeliveryEntry, error) {
	var rows []deliveryEntryRow
	err := g.Raw(`SELECT `+deliveryEntryColumns+` FROM delivery_addresses WHERE delivery_id = ? AND user_id = ?`, deliveryID, userID).
		Scan(&rows).Error
	switch {
	case err != nil:
		return core.DeliveryEntry{}, translate(op, err)
	case len(rows) == 0:
		return core.DeliveryEntry{}, fmt.Errorf("%s: user #%d on delivery #%d: %w", op, userID, deliveryID, core.ErrNotFound)
	}
	return rows[0].entry(), nil
}

// MarkDeliverySent records that the claim which took the entry
// (e.DeliveryID, e.Address) as attempt e.Attempt is about to leave: from
// then on it is settled before anything is sent again. It returns
// core.ErrConflict unless the entry is claiming by that attempt (another
// claim took it since), and core.ErrNotFound when there is no such entry.
func (db *DB) MarkDeliverySent(ctx context.Context, e core.DeliveryEntry, at time.Time) error {
	g := db.gorm.WithContext(ctx)
	address := strings.ToLower(strings.TrimSpace(e.Address))
	res := g.Exec(`
		UPDATE delivery_addresses SET sent = TRUE, updated_at = ?
		WHERE delivery_id = ? AND address = ? AND state = 'claiming' AND claim_attempt = ?`,
		dbTime(at), e.DeliveryID, address, e.Attempt)
	return entryChanged(g, "mark delivery sent", e.DeliveryID, address, res)
}

// FinishDeliveryClaim records the outcome of the claim that took the
// entry (e.DeliveryID, e.Address) as attempt e.Attempt: e.State, listed
// (not claimed; e.Sent when it may have reached the service) or claimed,
// e.Sent and e.QueueUID, at e.UpdatedAt. It returns an error for another
// state, core.ErrConflict unless the entry is claiming by that attempt (a
// claim whose lease ran out, taken again since, records nothing), and
// core.ErrNotFound when there is no such entry.
func (db *DB) FinishDeliveryClaim(ctx context.Context, e core.DeliveryEntry) error {
	const op = "finish delivery claim"
	if e.State != core.EntryListed && e.State != core.EntryClaimed {
		return fmt.Errorf("%s: cannot finish as %q", op, e.State)
	}
	g := db.gorm.WithContext(ctx)
	address := strings.ToLower(strings.TrimSpace(e.Address))
	res := g.Exec(`
		UPDATE delivery_addresses SET state = ?, sent = ?, queue_uid = ?, updated_at = ?
		WHERE delivery_id = ? AND address = ? AND state = 'claiming' AND claim_attempt = ?`,
		string(e.State), e.Sent, e.QueueUID, dbTime(e.UpdatedAt), e.DeliveryID, address, e.Attempt)
	return entryChanged(g, op, e.DeliveryID, address, res)
}

// entryChanged turns a conditional UPDATE of one entry into an error:
// core.ErrNotFound when the entry does not exist, core.ErrConflict when it
// was not claiming by the attempt the UPDATE named.
func entryChanged(g *gorm.DB, op string, deliveryID int64, address string, res *gorm.DB) error {
	if res.Error != nil {
		return translate(op, res.Error)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	var n int64
	if err := g.Raw(`SELECT count(*) FROM delivery_addresses WHERE delivery_id = ? AND address = ?`, deliveryID, address).
		Scan(&n).Error; err != nil {
		return translate(op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %s on delivery #%d: %w", op, address, deliveryID, core.ErrNotFound)
	}
	return fmt.Errorf("%s: %s on delivery #%d is not being claimed by this claim: %w", op, address, deliveryID, core.ErrConflict)
}

// DeliveryStats counts the delivery's entries by state. It returns
// core.ErrNotFound when the delivery does not exist.
func (db *DB) DeliveryStats(ctx context.Context, id int64) (core.DeliveryStats, error) {
	const op = "delivery stats"
	g := db.gorm.WithContext(ctx)
	var rows []struct {
		State string
		N     int
	}
	err := g.Raw(`SELECT state, count(*) AS n FROM delivery_addresses WHERE delivery_id = ? GROUP BY state`, id).Scan(&rows).Error
	if err != nil {
		return core.DeliveryStats{}, translate(op, err)
	}
	if len(rows) == 0 {
		// An empty list, or no delivery?
		if _, err := deliveryWhere(g, op, "d.id = ?", id); err != nil {
			return core.DeliveryStats{}, err
		}
	}
	var st core.DeliveryStats
	for _, r := range rows {
		switch core.DeliveryEntryState(r.State) {
		case core.EntryListed:
			st.Listed += r.N
		case core.EntryClaiming:
			st.Claiming += r.N
		case core.EntryClaimed:
			st.Claimed += r.N
		}
	}
	return st, nil
}
