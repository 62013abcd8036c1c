package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

var _ core.WalletStore = (*DB)(nil)

// challengeKeep is how long a challenge is kept after it expired: long
// enough to tell a member that they signed an older message.
const challengeKeep = 24 * time.Hour

// challengeRow is a row of challenges, with its wallet's value.
type challengeRow struct {
	ID        int64
	UserID    int64
	Platform  string
	WalletID  int64
	Wallet    string
	Nonce     string
	Message   string
	Address   *string
	IssuedAt  time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time

	WrongSignatures int
	Place           string
}

func (r challengeRow) challenge() core.Challenge {
	c := core.Challenge{
		ID:              r.ID,
		UserID:          r.UserID,
		Platform:        core.Platform(r.Platform),
		WalletID:        r.WalletID,
		Wallet:          r.Wallet,
		Nonce:           r.Nonce,
		Message:         r.Message,
		IssuedAt:        r.IssuedAt.UTC(),
		ExpiresAt:       r.ExpiresAt.UTC(),
		WrongSignatures: r.WrongSignatures,
		Place:           r.Place,
	}
	if r.Address != nil {
		c.Address = *r.Address
	}
	if r.UsedAt != nil {
		at := r.UsedAt.UTC()
		c.UsedAt = &at
	}
	return c
}

// selectChallenges reads challenges with their wallet's value.
const selectChallenges = `
	SELECT c.id, c.user_id, c.platform, c.wallet_id, w.value AS wallet, c.nonce, c.message,
		c.address, c.issued_at, c.expires_at, c.used_at, c.wrong_signatures, c.place
	FROM challenges c JOIN wallets w ON w.id = c.wallet_id`

// walletColumns are the columns RETURNING gives back for a walletRow.
const walletColumns = "id, user_id, platform, kind, value, address, verified_at, is_primary, created_at"

// LinkWallet, in one transaction, upserts the user u (as UpsertUser), links
// the unverified wallet w to them unless they linked w.Value already (the
// first wallet becomes primary), and stores the challenge c for the wallet
// when c is not nil and the wallet is not verified. Storing a challenge
// also drops the user's challenges that expired over a day before c was
// issued. A new link is audited. It returns an error for an invalid user,
// wallet or limits, core.ErrConflict when the nonce is taken, a
// *core.WalletLimitError when w is new and the user holds limits.Wallets
// wallets or more, and a *core.ChallengeLimitError when the user holds
// limits.Challenges challenges unused and unexpired when c is issued;
// nothing is stored on an error.
//
// The limits hold when one user links from two places at once: each
// limit is the condition of the statement that inserts, and the upsert of
// the user's row before it locks that row until commit on Postgres
// (SQLite transactions exclude each other), so the second link counts
// what the first stored.
func (db *DB) LinkWallet(ctx context.Context, u core.User, w core.Wallet, c *core.Challenge, limits core.LinkLimits) (core.Linked, error) {
	const op = "link wallet"
	if err := checkIdentity(u.Platform, u.ExternalID); err != nil {
		return core.Linked{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkWallet(w); err != nil {
		return core.Linked{}, fmt.Errorf("%s: %w", op, err)
	}
	if w.Verified() {
		return core.Linked{}, fmt.Errorf("%s: a wallet is linked unverified", op)
	}
	if limits.Wallets < 1 || limits.Challenges < 1 {
		return core.Linked{}, fmt.Errorf("%s: limits of %d wallets and %d challenges: want at least 1 of each", op, limits.Wallets, limits.Challenges)
	}
	var out core.Linked
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The upsert locks the user's row, which serialises the links of
		// one user on Postgres; SQLite transactions exclude each other.
		owner, err := upsertUser(tx, u)
		if err != nil {
			return err
		}
		out.User = owner.user()
		out.Wallet, out.Existed, err = insertWallet(tx, owner, w, limits.Wallets)
		if err != nil || c == nil || out.Wallet.Verified() {
			return err
		}
		stored, err := insertChallenge(tx, out.Wallet, *c, limits.Challenges)
		out.Challenge = &stored
		return err
	})
	if err != nil {
		return core.Linked{}, translate(op, err)
	}
	return out, nil
}

// insertWallet links w to owner unless owner has linked w.Value already;
// then it returns that wallet, with existed true. A new wallet when owner
// holds limit wallets or more is refused with a *core.WalletLimitError.
func insertWallet(tx *gorm.DB, owner userRow, w core.Wallet, limit int) (core.Wallet, bool, error) {
	var row walletRow
	err := tx.Raw(`
		INSERT INTO wallets (user_id, platform, kind, value, is_primary, created_at)
		SELECT ?, ?, ?, ?, NOT EXISTS (SELECT 1 FROM wallets WHERE user_id = ?), ?
		WHERE (SELECT count(*) FROM wallets WHERE user_id = ?) < ?
		ON CONFLICT (user_id, value) DO NOTHING
		RETURNING `+walletColumns,
		owner.ID, owner.Platform, string(w.Kind), w.Value, owner.ID, createdAt(w.CreatedAt),
		owner.ID, limit).Scan(&row).Error
	if err != nil {
		return core.Wallet{}, false, err
	}
	if row.ID != 0 {
		detail := fmt.Sprintf("wallet #%d (%s) linked", row.ID, row.Kind)
		return row.wallet(), false, audit(tx, &owner.ID, core.AuditWalletLinked, detail)
	}
	// Nothing inserted: linked before (relinking is not a new wallet), or
	// past the limit.
	err = tx.Where("user_id = ? AND value = ?", owner.ID, w.Value).Take(&row).Error
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return row.wallet(), true, err
	}
	var held int64
	if err := tx.Model(&walletRow{}).Where("user_id = ?", owner.ID).Count(&held).Error; err != nil {
		return core.Wallet{}, false, err
	}
	return core.Wallet{}, false, &core.WalletLimitError{Limit: limit, Held: int(held)}
}

// insertChallenge stores c for wallet w, after dropping the owner's
// challenges that expired long before. When the owner holds limit open
// challenges (unused, unexpired when c is issued, not locked: a locked one
// can no longer be signed) it is refused with a *core.ChallengeLimitError.
func insertChallenge(tx *gorm.DB, w core.Wallet, c core.Challenge, limit int) (core.Challenge, error) {
	issued, expires := dbTime(c.IssuedAt), dbTime(c.ExpiresAt)
	err := tx.Exec(`DELETE FROM challenges WHERE user_id = ? AND expires_at < ?`,
		w.UserID, issued.Add(-challengeKeep)).Error
	if err != nil {
		return core.Challenge{}, err
	}
	var id int64
	err = tx.Raw(`
		INSERT INTO challenges (user_id, platform, wallet_id, nonce, message, address, issued_at, expires_at, place)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
		WHERE (SELECT count(*) FROM challenges
			WHERE user_id = ? AND used_at IS NULL AND expires_at > ? AND wrong_signatures < ?) < ?
		RETURNING id`,
		w.UserID, string(w.Platform), w.ID, c.Nonce, c.Message, nullString(c.Address), issued, expires, c.Place,
		w.UserID, issued, core.MaxWrongSignatures, limit).Scan(&id).Error
	if err != nil {
		return core.Challenge{}, err
	}
	if id == 0 {
		return core.Challenge{}, challengeLimit(tx, w.UserID, issued, limit)
	}
	c.ID, c.UserID, c.Platform, c.WalletID, c.Wallet = id, w.UserID, w.Platform, w.ID, w.Value
	c.IssuedAt, c.ExpiresAt, c.UsedAt = issued, expires, nil
	return c, nil
}

// challengeLimit is the error of a challenge refused at issued, past
// limit: it says when the first open challenge expires.
func challengeLimit(tx *gorm.DB, userID int64, issued time.Time, limit int) error {
	var first challengeRow
	err := tx.Raw(`
		SELECT expires_at FROM challenges
		WHERE user_id = ? AND used_at IS NULL AND expires_at > ? AND wrong_signatures < ?
		ORDER BY expires_at LIMIT 1`, userID, issued, core.MaxWrongSignatures).Scan(&first).Error
	if err != nil {
		return err
	}
	return &core.ChallengeLimitError{Limit: limit, Next: first.ExpiresAt.UTC()}
}

// FailChallenge counts one more wrong signature against the unused
// challenge with that nonce, in one conditional statement, so that
// signatures sent side by side are all counted, and returns the count. It
// returns core.ErrNotFound when no unused challenge has that nonce.
func (db *DB) FailChallenge(ctx context.Context, nonce string) (int, error) {
	const op = "fail challenge"
	var n int
	res := db.gorm.WithContext(ctx).Raw(`
		UPDATE challenges SET wrong_signatures = wrong_signatures + 1
		WHERE nonce = ? AND used_at IS NULL
		RETURNING wrong_signatures`, nonce).Scan(&n)
	if res.Error != nil {
		return 0, translate(op, res.Error)
	}
	if res.RowsAffected == 0 {
		return 0, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return n, nil
}

// ChallengeByNonce returns the challenge with that nonce. It returns
// core.ErrNotFound when there is none.
func (db *DB) ChallengeByNonce(ctx context.Context, nonce string) (core.Challenge, error) {
	const op = "challenge by nonce"
	var row challengeRow
	err := db.gorm.WithContext(ctx).Raw(selectChallenges+` WHERE c.nonce = ?`, nonce).Scan(&row).Error
	if err != nil {
		return core.Challenge{}, translate(op, err)
	}
	if row.ID == 0 {
		return core.Challenge{}, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return row.challenge(), nil
}

// RecentChallenges returns up to limit of the user's challenges, the
// newest first. A user without challenges has none, and no error. It
// returns the database error, if any.
func (db *DB) RecentChallenges(ctx context.Context, userID int64, limit int) ([]core.Challenge, error) {
	var rows []challengeRow
	err := db.gorm.WithContext(ctx).Raw(selectChallenges+`
		WHERE c.user_id = ? ORDER BY c.issued_at DESC, c.id DESC LIMIT ?`, userID, limit).Scan(&rows).Error
	if err != nil {
		return nil, translate("recent challenges", err)
	}
	out := make([]core.Challenge, len(rows))
	for i, r := range rows {
		out[i] = r.challenge()
	}
	return out, nil
}

// audit appends an entry to the audit log inside tx.
func audit(tx *gorm.DB, userID *int64, action, detail string) error {
	return tx.Create(&auditRow{UserID: userID, Action: action, Detail: detail, CreatedAt: now()}).Error
}
