package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

// usedChallenge is what claimChallenge learns of the challenge it used.
type usedChallenge struct {
	ID       int64
	UserID   int64
	Platform string
	WalletID int64
}

// UseChallenge, in one transaction, marks the challenge with that nonce
// used at at, if it is unused and expires after at, and verifies its
// wallet as address (a 0x address in lower case); a chain other than zero
// is where a smart-contract wallet accepted the signature, named in the
// audit entry. A wallet of the same
// platform verified as that address before, another member's or another
// of the same member's, loses the address: it stays linked, unverified,
// which keeps that member's link (and mints to it) while the proof moves.
// The verification and each move are audited. It returns
// core.ErrNoChallenge for an unknown nonce, core.ErrChallengeUsed,
// core.ErrChallengeLocked (core.MaxWrongSignatures taken),
// core.ErrChallengeExpired, and core.ErrConflict when the wallet cannot take
// the address (an address wallet of another value, or an e-mail).
//
// Two members verifying one address at the same moment are serialised (a
// transaction-scoped advisory lock on the address on Postgres; SQLite
// transactions exclude each other), so the second moves it from the first
// and the unique index on verified addresses is never hit.
func (db *DB) UseChallenge(ctx context.Context, nonce, address string, chain int64, at time.Time) (core.Verification, error) {
	const op = "use challenge"
	at = dbTime(at)
	var v core.Verification
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := db.lockAddress(tx, address); err != nil {
			return err
		}
		c, err := claimChallenge(tx, nonce, at)
		if err != nil {
			return err
		}
		if v.Moved, err = unverifyOthers(tx, c, address); err != nil {
			return err
		}
		if v.Wallet, err = verifyWallet(tx, c.WalletID, address, at); err != nil {
			return err
		}
		var owner userRow
		if err := tx.Where("id = ?", c.UserID).Take(&owner).Error; err != nil {
			return err
		}
		v.User = owner.user()
		return auditVerification(tx, v, address, chain)
	})
	if err != nil {
		return core.Verification{}, translate(op, err)
	}
	return v, nil
}

// lockAddress takes, on Postgres, a lock on the address until the
// transaction ends. The key hashes the schema too, as LockTokens does.
func (db *DB) lockAddress(tx *gorm.DB, address string) error {
	if db.dialect != DialectPostgres {
		return nil
	}
	return tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || ':' || ?, 0))`,
		"poapbot.verified_address:"+address).Error
}

// claimChallenge marks the challenge used in one conditional statement, so
// a nonce is used once even when two requests race, and a challenge locked
// by wrong signatures counted meanwhile is not used; the loser learns why.
func claimChallenge(tx *gorm.DB, nonce string, at time.Time) (usedChallenge, error) {
	var c usedChallenge
	err := tx.Raw(`
		UPDATE challenges SET used_at = ?
		WHERE nonce = ? AND used_at IS NULL AND expires_at > ? AND wrong_signatures < ?
		RETURNING id, user_id, platform, wallet_id`, at, nonce, at, core.MaxWrongSignatures).Scan(&c).Error
	if err != nil || c.ID != 0 {
		return c, err
	}
	var state challengeRow
	err = tx.Raw(`SELECT id, used_at, expires_at, wrong_signatures FROM challenges WHERE nonce = ?`, nonce).Scan(&state).Error
	if err != nil {
		return c, err
	}
	switch {
	case state.ID == 0:
		return c, core.ErrNoChallenge
	case state.UsedAt != nil:
		return c, core.ErrChallengeUsed
	case state.ExpiresAt.After(at):
		return c, core.ErrChallengeLocked
	}
	return c, core.ErrChallengeExpired
}

// unverifyOthers takes address away from every other wallet of the
// platform verified as it, and returns those wallets as they are now.
func unverifyOthers(tx *gorm.DB, c usedChallenge, address string) ([]core.Wallet, error) {
	var rows []walletRow
	err := tx.Raw(`
		UPDATE wallets SET address = NULL, verified_at = NULL
		WHERE platform = ? AND address = ? AND verified_at IS NOT NULL AND id <> ?
		RETURNING `+walletColumns, c.Platform, address, c.WalletID).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	moved := make([]core.Wallet, len(rows))
	for i, r := range rows {
		moved[i] = r.wallet()
	}
	return moved, nil
}

// verifyWallet sets the wallet's proven address. An address wallet can
// only be proven as itself, and an e-mail not at all.
func verifyWallet(tx *gorm.DB, walletID int64, address string, at time.Time) (core.Wallet, error) {
	var row walletRow
	err := tx.Raw(`
		UPDATE wallets SET address = ?, verified_at = ?
		WHERE id = ? AND kind <> 'email' AND (kind <> 'address' OR value = ?)
		RETURNING `+walletColumns, address, at, walletID, address).Scan(&row).Error
	if err != nil {
		return core.Wallet{}, err
	}
	if row.ID == 0 {
		return core.Wallet{}, fmt.Errorf("wallet #%d cannot be verified as %s: %w", walletID, address, core.ErrConflict)
	}
	return row.wallet(), nil
}

// auditVerification writes the verification and each move. Details name
// wallets and members by id, and the address; never a signature or nonce.
func auditVerification(tx *gorm.DB, v core.Verification, address string, chain int64) error {
	detail := fmt.Sprintf("wallet #%d (%s) verified as %s", v.Wallet.ID, v.Wallet.Kind, address)
	if chain != 0 {
		detail += fmt.Sprintf(" by its contract on chain %d", chain)
	}
	if err := audit(tx, &v.User.ID, core.AuditWalletVerified, detail); err != nil {
		return err
	}
	for _, m := range v.Moved {
		detail := fmt.Sprintf("verified address %s moved from member #%d (wallet #%d) to member #%d (wallet #%d)",
			address, m.UserID, m.ID, v.User.ID, v.Wallet.ID)
		if err := audit(tx, &v.User.ID, core.AuditWalletMoved, detail); err != nil {
			return err
		}
	}
	return nil
}
