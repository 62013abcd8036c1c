package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// mintLinkRow is a row of mint_links.
type mintLinkRow struct {
	ID            int64
	DropID        int64
	QRHash        string `gorm:"column:qr_hash"`
	State         string
	UserID        *int64
	Wallet        *string
	TransactionID *string
	ClaimedAt     *time.Time
	UpdatedAt     time.Time
	MintAttempt   int
	// MintLeaseUntil is NULL but while a sender holds the link's mint.
	MintLeaseUntil *time.Time
}

func (mintLinkRow) TableName() string { return "mint_links" }

func (r mintLinkRow) mintLink() core.MintLink {
	l := core.MintLink{
		ID:        r.ID,
		DropID:    r.DropID,
		QRHash:    r.QRHash,
		State:     core.MintLinkState(r.State),
		UserID:    r.UserID,
		ClaimedAt: utcPtr(r.ClaimedAt),
		UpdatedAt: r.UpdatedAt.UTC(),
		Attempt:   r.MintAttempt,
	}
	if r.MintLeaseUntil != nil {
		l.LeaseUntil = r.MintLeaseUntil.UTC()
	}
	if r.Wallet != nil {
		l.Wallet = *r.Wallet
	}
	if r.TransactionID != nil {
		l.TransactionID = *r.TransactionID
	}
	return l
}

// linkColumns are the columns a query gives back for a mintLinkRow.
const linkColumns = "id, drop_id, qr_hash, state, user_id, wallet, transaction_id, claimed_at, updated_at, mint_attempt, mint_lease_until"

// linkBatch is how many links one INSERT writes: 5 parameters each, well
// under the limits of both dialects (32766 on SQLite, 65535 on Postgres).
const linkBatch = 1000

// importedHashes are the qr_hashes of an import, without repeats, split by
// what the service said of them.
type importedHashes struct {
	unclaimed []string
	claimed   []string
}

// splitMintLinks checks and splits an import. A hash listed twice counts once,
// as claimed if either says so. It returns an error for an empty hash.
func splitMintLinks(links []core.ImportedMintLink) (importedHashes, error) {
	claimed := make(map[string]bool, len(links))
	order := make([]string, 0, len(links))
	for _, l := range links {
		if strings.TrimSpace(l.QRHash) == "" {
			return importedHashes{}, fmt.Errorf("a mint link has an empty qr_hash")
		}
		seen, ok := claimed[l.QRHash]
		if !ok {
			order = append(order, l.QRHash)
		}
		claimed[l.QRHash] = seen || l.Claimed
	}
	var h importedHashes
	for _, hash := range order {
		if claimed[hash] {
			h.claimed = append(h.claimed, hash)
		} else {
			h.unclaimed = append(h.unclaimed, hash)
		}
	}
	return h, nil
}

// mintLinkCounts is what insertMintLinks added.
type mintLinkCounts struct {
	available int // added as available
	total     int // added in any state
}

// insertMintLinks adds to the drop the links it does not have: unclaimed ones
// as available, unless the hash is live in another drop, and the others as
// claimed elsewhere at at.
func insertMintLinks(tx *gorm.DB, dropID int64, h importedHashes, at time.Time) (mintLinkCounts, error) {
	var n mintLinkCounts
	for batch := range chunks(h.unclaimed, linkBatch) {
		// A hash live in another drop hits mint_links_live_hash and is
		// skipped here, then stored as claimed elsewhere below; a hash
		// the drop has already is skipped by both.
		added, err := insertBatch(tx, dropID, batch, core.MintLinkAvailable, at)
		if err != nil {
			return n, err
		}
		n.available += added
		elsewhere, err := insertBatch(tx, dropID, batch, core.MintLinkClaimedElsewhere, at)
		if err != nil {
			return n, err
		}
		n.total += added + elsewhere
	}
	for batch := range chunks(h.claimed, linkBatch) {
		added, err := insertBatch(tx, dropID, batch, core.MintLinkClaimedElsewhere, at)
		if err != nil {
			return n, err
		}
		n.total += added
	}
	return n, nil
}

// insertBatch inserts the links of hashes in state, skipping any that
// would break a unique index, and returns how many it inserted.
func insertBatch(tx *gorm.DB, dropID int64, hashes []string, state core.MintLinkState, at time.Time) (int, error) {
	var claimedAt *time.Time
	if state != core.MintLinkAvailable {
		claimedAt = &at
	}
	var sb strings.Builder
	sb.WriteString(`INSERT INTO mint_links (drop_id, qr_hash, state, claimed_at, updated_at) VALUES `)
	args := make([]any, 0, 5*len(hashes))
	for i, hash := range hashes {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(?, ?, ?, ?, ?)")
		args = append(args, dropID, hash, string(state), claimedAt, at)
	}
	sb.WriteString(` ON CONFLICT DO NOTHING`)
	res := tx.Exec(sb.String(), args...)
	return int(res.RowsAffected), res.Error
}

// chunks yields s in slices of at most size elements.
func chunks(s []string, size int) func(yield func([]string) bool) {
	return func(yield func([]string) bool) {
		for len(s) > 0 {
			n := min(size, len(s))
			if !yield(s[:n]) {
				return
			}
			s = s[n:]
		}
	}
}

// ImportMintLinks, in one transaction, adds the links the drop does not have
// (as AddDrop stores them) and marks its available links that the service
// lists as claimed as claimed elsewhere. It returns how many links were
// added, in any state, and how many available ones were marked. Adding
// available links re-arms the low-stock notice (see NoteLowStock). It
// returns an error for an empty qr_hash, core.ErrNotFound when the drop
// does not exist and core.ErrDropRemoved when it was removed.
func (db *DB) ImportMintLinks(ctx context.Context, dropID int64, links []core.ImportedMintLink) (added, marked int, err error) {
	const op = "import links"
	hashes, err := splitMintLinks(links)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	at := now()
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		d, err := lockDrop(tx, dropID)
		if err != nil {
			return err
		}
		if d.RemovedAt != nil {
			return core.ErrDropRemoved
		}
		n, err := insertMintLinks(tx, dropID, hashes, at)
		if err != nil {
			return err
		}
		added = n.total
		if marked, err = markClaimed(tx, dropID, hashes.claimed, at); err != nil {
			return err
		}
		if n.available == 0 {
			return nil
		}
		return tx.Exec(`UPDATE drops SET low_stock_notified_at = NULL WHERE id = ?`, dropID).Error
	})
	if err != nil {
		return 0, 0, translate(op, err)
	}
	return added, marked, nil
}

// markClaimed marks the drop's available links among hashes as claimed
// elsewhere at at, and returns how many it marked.
func markClaimed(tx *gorm.DB, dropID int64, hashes []string, at time.Time) (int, error) {
	marked := 0
	for batch := range chunks(hashes, linkBatch) {
		res := tx.Exec(`
			UPDATE mint_links SET state = 'claimed_elsewhere', claimed_at = ?, updated_at = ?
			WHERE drop_id = ? AND state = 'available' AND qr_hash IN ?`,
			at, at, dropID, batch)
		if res.Error != nil {
			return marked, res.Error
		}
		marked += int(res.RowsAffected)
	}
	return marked, nil
}

// Stock counts the drop's links by state, in one query. An unknown drop
// has none. It returns the database error, if any.
func (db *DB) Stock(ctx context.Context, dropID int64) (core.Stock, error) {
	var rows []struct {
		State string
		N     int
	}
	err := db.gorm.WithContext(ctx).Raw(
		`SELECT state, count(*) AS n FROM mint_links WHERE drop_id = ? GROUP BY state`, dropID).
		Scan(&rows).Error
	if err != nil {
		return core.Stock{}, translate("stock", err)
	}
	var s core.Stock
	for _, r := range rows {
		s.Total += r.N
		switch core.MintLinkState(r.State) {
		case core.MintLinkAvailable:
			s.Available = r.N
		case core.MintLinkHandedOut:
			s.HandedOut = r.N
		case core.MintLinkMinting:
			s.Minting = r.N
		case core.MintLinkMinted:
			s.Minted = r.N
		case core.MintLinkClaimedElsewhere:
			s.ClaimedElsewhere = r.N
		}
	}
	return s, nil
}

// memberHashLen is how many hex digits of the keyed hash name a member in
// an export: 64 bits, plenty to tell a drop's members apart.
const memberHashLen = 16

// ExportMintLinks lists the drop's links that left the pool, in the order they
// left it. A member is named by a keyed hash of the bot's own user id,
// stable across drops and exports but meaningless without the key; a
// forgotten member, or a link claimed elsewhere, has none. It returns
// ErrNoKey without a key, or the database error.
func (db *DB) ExportMintLinks(ctx context.Context, dropID int64) ([]core.ExportRow, error) {
	const op = "export links"
	if db.cipher == nil {
		return nil, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	var rows []mintLinkRow
	err := db.gorm.WithContext(ctx).
		Where("drop_id = ? AND state <> 'available'", dropID).
		Order("claimed_at, id").
		Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	out := make([]core.ExportRow, len(rows))
	for i, r := range rows {
		l := r.mintLink()
		out[i] = core.ExportRow{QRHash: l.QRHash, Wallet: l.Wallet, State: l.State}
		if l.ClaimedAt != nil {
			out[i].At = *l.ClaimedAt
		}
		if l.UserID != nil {
			out[i].Member = db.memberID(*l.UserID)
		}
	}
	return out, nil
}

// memberID is the pseudonymous id of the user in exports.
func (db *DB) memberID(userID int64) string {
	return db.cipher.Hash("member", []byte(strconv.FormatInt(userID, 10)))[:memberHashLen]
}
