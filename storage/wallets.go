package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// walletRow is a row of wallets. Address and VerifiedAt are NULL until the
// wallet is verified.
type walletRow struct {
	ID         int64
	UserID     int64
	Platform   string
	Kind       string
	Value      string
	Address    *string
	VerifiedAt *time.Time
	IsPrimary  bool
	CreatedAt  time.Time
}

func (walletRow) TableName() string { return "wallets" }

func (r walletRow) wallet() core.Wallet {
	w := core.Wallet{
		ID:        r.ID,
		UserID:    r.UserID,
		Platform:  core.Platform(r.Platform),
		Kind:      core.WalletKind(r.Kind),
		Value:     r.Value,
		Primary:   r.IsPrimary,
		CreatedAt: r.CreatedAt.UTC(),
	}
	if r.Address != nil {
		w.Address = *r.Address
	}
	if r.VerifiedAt != nil {
		at := r.VerifiedAt.UTC()
		w.VerifiedAt = &at
	}
	return w
}

// AddWallet links w to the user w.UserID and returns the stored wallet.
// The user's first wallet becomes primary, also when several are added at
// once; w.Primary is ignored, and w.Platform is taken from the user. A
// verified wallet (w.VerifiedAt set) needs w.Address. CreatedAt, when zero,
// is now. It returns core.ErrNotFound when the user does not exist, and
// core.ErrConflict when the user already linked that value or the verified
// address belongs to another member of the platform.
func (db *DB) AddWallet(ctx context.Context, w core.Wallet) (core.Wallet, error) {
	const op = "add wallet"
	if err := checkWallet(w); err != nil {
		return core.Wallet{}, fmt.Errorf("%s: %w", op, err)
	}
	var row walletRow
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Locking the owner serialises AddWallet per user on Postgres, so
		// the NOT EXISTS below sees every wallet committed before it. The
		// SQLite dialector drops the clause: its transactions begin
		// IMMEDIATE and so exclude each other already.
		var owner userRow
		err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
			Select("id", "platform").Where("id = ?", w.UserID).Take(&owner).Error
		if err != nil {
			return err
		}
		return tx.Raw(`
			INSERT INTO wallets (user_id, platform, kind, value, address, verified_at, is_primary, created_at)
			VALUES (?, ?, ?, ?, ?, ?, NOT EXISTS (SELECT 1 FROM wallets WHERE user_id = ?), ?)
			RETURNING id, user_id, platform, kind, value, address, verified_at, is_primary, created_at`,
			owner.ID, owner.Platform, string(w.Kind), w.Value, nullString(w.Address), nullTime(w.VerifiedAt),
			owner.ID, createdAt(w.CreatedAt)).Scan(&row).Error
	})
	if err != nil {
		return core.Wallet{}, translate(op, err)
	}
	return row.wallet(), nil
}

// Wallets lists the user's wallets, the primary first, then in the order
// they were added. A user without wallets, or an unknown user, has none:
// the list is empty and the error nil.
func (db *DB) Wallets(ctx context.Context, userID int64) ([]core.Wallet, error) {
	var rows []walletRow
	err := db.gorm.WithContext(ctx).
		Where("user_id = ?", userID).
		Order("is_primary DESC, created_at, id").
		Find(&rows).Error
	if err != nil {
		return nil, translate("wallets", err)
	}
	wallets := make([]core.Wallet, len(rows))
	for i, r := range rows {
		wallets[i] = r.wallet()
	}
	return wallets, nil
}

// checkWallet refuses what the database's CHECK constraints would, with a
// clearer message.
func checkWallet(w core.Wallet) error {
	switch w.Kind {
	case core.KindAddress, core.KindENS, core.KindEmail:
	default:
		return fmt.Errorf("unknown wallet kind %q", w.Kind)
	}
	if w.Value == "" {
		return fmt.Errorf("the wallet is empty")
	}
	if (w.Address == "") != (w.VerifiedAt == nil) {
		return fmt.Errorf("a wallet has an address exactly when it is verified")
	}
	return nil
}

// nullString maps "" to NULL.
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nullTime maps nil to NULL and normalises a time as now does.
func nullTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	at := dbTime(*t)
	return &at
}
