package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
)

// serviceTokenRow is a row of service_tokens; Token is ciphertext.
type serviceTokenRow struct {
	Audience  string `gorm:"primaryKey"`
	Token     []byte
	ExpiresAt time.Time
	UpdatedAt time.Time
}

func (serviceTokenRow) TableName() string { return "service_tokens" }

// tokenIssueRow is a row of token_issues.
type tokenIssueRow struct {
	ID       int64
	Audience string
	IssuedAt time.Time
}

func (tokenIssueRow) TableName() string { return "token_issues" }

// tokenContext binds a sealed token to its row, so the ciphertext of one
// audience's token cannot be copied into another's row.
func tokenContext(audience string) string {
	return "service_token:" + audience
}

// SaveServiceToken stores the issuing service's access token for audience,
// encrypted with the key, replacing the previous one. It returns ErrNoKey
// without a key, or the database error.
func (db *DB) SaveServiceToken(ctx context.Context, audience string, token core.Secret, expiresAt time.Time) error {
	const op = "save service token"
	if db.cipher == nil {
		return fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	if audience == "" {
		return fmt.Errorf("%s: the audience is empty", op)
	}
	sealed := db.cipher.Seal([]byte(token.Reveal()), tokenContext(audience))
	err := db.gorm.WithContext(ctx).Exec(`
		INSERT INTO service_tokens (audience, token, expires_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (audience) DO UPDATE
			SET token = excluded.token, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
		audience, sealed, dbTime(expiresAt), now()).Error
	return translate(op, err)
}

// ServiceToken returns the stored access token for audience and when it
// expires. It returns core.ErrNotFound when none is stored, ErrNoKey
// without a key, and ErrDecrypt when the stored token was sealed with
// another key or altered.
func (db *DB) ServiceToken(ctx context.Context, audience string) (core.Secret, time.Time, error) {
	const op = "service token"
	if db.cipher == nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", op, ErrNoKey)
	}
	var row serviceTokenRow
	err := db.gorm.WithContext(ctx).Where("audience = ?", audience).Take(&row).Error
	if err != nil {
		return "", time.Time{}, translate(op, err)
	}
	plain, err := db.cipher.Open(row.Token, tokenContext(audience))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s %q: %w", op, audience, err)
	}
	return core.Secret(plain), row.ExpiresAt.UTC(), nil
}

// RecordTokenIssue notes that a token for audience was issued at at. It
// returns the database error, if any.
func (db *DB) RecordTokenIssue(ctx context.Context, audience string, at time.Time) error {
	const op = "record token issue"
	if audience == "" {
		return fmt.Errorf("%s: the audience is empty", op)
	}
	row := tokenIssueRow{Audience: audience, IssuedAt: dbTime(at)}
	return translate(op, db.gorm.WithContext(ctx).Create(&row).Error)
}

// TokenIssuesSince counts the tokens issued for audience at or after since:
// with since an hour ago, the rolling window the issuing service limits.
// Times are compared to the microsecond; since is truncated, which can only
// widen the window. It returns the database error, if any.
func (db *DB) TokenIssuesSince(ctx context.Context, audience string, since time.Time) (int, error) {
	var n int64
	err := db.gorm.WithContext(ctx).Model(&tokenIssueRow{}).
		Where("audience = ? AND issued_at >= ?", audience, dbTime(since)).
		Count(&n).Error
	if err != nil {
		return 0, translate("token issues since", err)
	}
	return int(n), nil
}
