package storage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// UnlinkWallets, in one transaction, removes the user's wallet with that
// value, or all their wallets when value is empty, with their challenges.
// When the primary goes, the oldest remaining wallet becomes primary. Each
// removal is audited. It returns core.ErrNotFound when the user does not
// exist or nothing matched.
func (db *DB) UnlinkWallets(ctx context.Context, userID int64, value string) (core.Unlinked, error) {
	const op = "unlink wallets"
	var out core.Unlinked
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		owner, err := lockUser(tx, "id = ?", userID)
		if err != nil {
			return err
		}
		out.User = owner.user()
		if out.Removed, err = deleteWallets(tx, userID, value); err != nil {
			return err
		}
		if len(out.Removed) == 0 {
			return gorm.ErrRecordNotFound
		}
		if out.Removed[0].Primary {
			if out.NewPrimary, err = promoteOldest(tx, userID); err != nil {
				return err
			}
		}
		for _, w := range out.Removed {
			detail := fmt.Sprintf("wallet #%d (%s) unlinked", w.ID, w.Kind)
			if err := audit(tx, &owner.ID, core.AuditWalletUnlinked, detail); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return core.Unlinked{}, translate(op, err)
	}
	return out, nil
}

// lockUser reads the user that where names and, on Postgres, locks the row
// until the transaction ends (as AddWallet does); SQLite transactions
// exclude each other already.
func lockUser(tx *gorm.DB, where string, args ...any) (userRow, error) {
	var row userRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
		Where(where, args...).Take(&row).Error
	return row, err
}

// deleteWallets deletes the user's wallet with that value, or all of them,
// and returns them in the order Wallets lists them: the primary first.
func deleteWallets(tx *gorm.DB, userID int64, value string) ([]core.Wallet, error) {
	query := `DELETE FROM wallets WHERE user_id = ?`
	args := []any{userID}
	if value != "" {
		query += ` AND value = ?`
		args = append(args, value)
	}
	var rows []walletRow
	if err := tx.Raw(query+` RETURNING `+walletColumns, args...).Scan(&rows).Error; err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b walletRow) int {
		if a.IsPrimary != b.IsPrimary {
			if a.IsPrimary {
				return -1
			}
			return 1
		}
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	wallets := make([]core.Wallet, len(rows))
	for i, r := range rows {
		wallets[i] = r.wallet()
	}
	return wallets, nil
}

// promoteOldest makes the user's oldest wallet primary and returns it, or
// nil when the user has none left.
func promoteOldest(tx *gorm.DB, userID int64) (*core.Wallet, error) {
	var row walletRow
	err := tx.Raw(`
		UPDATE wallets SET is_primary = TRUE
		WHERE id = (SELECT id FROM wallets WHERE user_id = ? ORDER BY created_at, id LIMIT 1)
		RETURNING `+walletColumns, userID).Scan(&row).Error
	if err != nil || row.ID == 0 {
		return nil, err
	}
	w := row.wallet()
	return &w, nil
}

// ForgetUser, in one transaction, deletes the user with that platform id;
// the database deletes their wallets, challenges, grants and join
// requests (waiting and declined) with them, and sets the user of their
// audit entries to NULL. An entry "member forgotten" notes it, naming
// only the platform and the counts. It returns what was deleted, or
// core.ErrNotFound when no such user is stored.
func (db *DB) ForgetUser(ctx context.Context, p core.Platform, externalID string) (core.Forgotten, error) {
	const op = "forget user"
	var out core.Forgotten
	stored := true
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// A member who never linked anything may still have buttons.
		if err := forgetButtons(tx, p, externalID); err != nil {
			return err
		}
		owner, err := lockUser(tx, "platform = ? AND external_id = ?", string(p), externalID)
		if errors.Is(err, gorm.ErrRecordNotFound) {
			stored = false
			return nil
		}
		if err != nil {
			return err
		}
		if out, err = userData(tx, owner); err != nil {
			return err
		}
		if err := tx.Exec(`DELETE FROM users WHERE id = ?`, owner.ID).Error; err != nil {
			return err
		}
		detail := fmt.Sprintf("a %s member was forgotten: %d wallets and %d challenges deleted",
			p, len(out.Wallets), out.Challenges)
		return audit(tx, nil, core.AuditMemberForgotten, detail)
	})
	if err != nil {
		return core.Forgotten{}, translate(op, err)
	}
	if !stored {
		return core.Forgotten{}, fmt.Errorf("%s: %w", op, core.ErrNotFound)
	}
	return out, nil
}

// userData reads what ForgetUser deletes of the user: its wallets, the
// number of its challenges, and the grants gating made to it (deleted with
// it, returned so that gating can take back what they gave).
func userData(tx *gorm.DB, owner userRow) (core.Forgotten, error) {
	out := core.Forgotten{User: owner.user()}
	var wallets []walletRow
	err := tx.Where("user_id = ?", owner.ID).Order("is_primary DESC, created_at, id").Find(&wallets).Error
	if err != nil {
		return out, err
	}
	for _, w := range wallets {
		out.Wallets = append(out.Wallets, w.wallet())
	}
	var challenges int64
	if err := tx.Table("challenges").Where("user_id = ?", owner.ID).Count(&challenges).Error; err != nil {
		return out, err
	}
	out.Challenges = int(challenges)
	var grants []grantRow
	if err := tx.Where("user_id = ?", owner.ID).Order("granted_at, gate_id").Find(&grants).Error; err != nil {
		return out, err
	}
	for _, g := range grants {
		grant, err := g.grant()
		if err != nil {
			return out, err
		}
		out.Grants = append(out.Grants, grant)
	}
	return out, nil
}
