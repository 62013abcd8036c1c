package storage

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/poapbot/poapbot/core"
)

// TestTranslate checks that every way of reaching the database reports the
// same core sentinels on both dialects: gorm's builder (translated by
// gorm), gorm's Raw (not translated by gorm on Postgres) and database/sql.
func TestTranslate(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		insert := "INSERT INTO tenants (platform, external_id, name, created_at) VALUES ('discord', 'dup', '', CURRENT_TIMESTAMP)"
		if err := db.gorm.Exec(insert).Error; err != nil {
			t.Fatal(err)
		}
		conflicts := map[string]error{
			"gorm create": db.gorm.Create(&tenantRow{Platform: "discord", ExternalID: "dup", CreatedAt: now()}).Error,
			"gorm raw":    db.gorm.Raw(insert + " RETURNING id").Scan(&tenantRow{}).Error,
			"sql":         execErr(db, insert),
			"primary key": execErr(db, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'again', CURRENT_TIMESTAMP)"),
			"foreign key": execErr(db, "INSERT INTO audit_log (user_id, action, detail, created_at) VALUES (999999, 'x', '', CURRENT_TIMESTAMP)"),
		}
		for name, err := range conflicts {
			if got := translate("op", err); !errors.Is(got, core.ErrConflict) {
				t.Errorf("translate(%s: %v) = %v, want %v", name, err, got, core.ErrConflict)
			}
		}
		notFound := map[string]error{
			"gorm take": db.gorm.Where("external_id = ?", "none").Take(&tenantRow{}).Error,
			"sql":       db.sql.QueryRowContext(t.Context(), "SELECT id FROM tenants WHERE external_id = 'none'").Scan(new(int64)),
		}
		for name, err := range notFound {
			if got := translate("op", err); !errors.Is(got, core.ErrNotFound) {
				t.Errorf("translate(%s: %v) = %v, want %v", name, err, got, core.ErrNotFound)
			}
		}
	})
}

func TestTranslate_Other(t *testing.T) {
	t.Parallel()
	other := errors.New("disk on fire")
	got := translate("op", other)
	if !errors.Is(got, other) || errors.Is(got, core.ErrConflict) || errors.Is(got, core.ErrNotFound) {
		t.Errorf("translate(%v) = %v, want it wrapped unchanged", other, got)
	}
	if translate("op", nil) != nil {
		t.Errorf("translate(nil) = %v, want nil", translate("op", nil))
	}
}

// execErr runs statement through database/sql and returns its error.
func execErr(db *DB, statement string) error {
	_, err := db.sql.Exec(statement)
	return err
}

// TestTranslate_Unavailable: a database that cannot serve (out of reach,
// shut down, refusing connections, a dropped connection) is
// core.ErrStoreUnavailable, keeping the original error; the caller's own
// deadline is not. TestMain_DatabaseOutage takes a real PostgreSQL
// database away.
func TestTranslate_Unavailable(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"},
		&pgconn.PgError{Code: "08006", Message: "connection failure"},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")},
		driver.ErrBadConn,
		io.ErrUnexpectedEOF,
	} {
		if got := translate("op", err); !errors.Is(got, core.ErrStoreUnavailable) || !errors.Is(got, err) {
			t.Errorf("translate(%v) = %v, want ErrStoreUnavailable wrapping it", err, got)
		}
	}
	for _, err := range []error{context.DeadlineExceeded, context.Canceled, &pgconn.PgError{Code: "22021"}} {
		if got := translate("op", err); errors.Is(got, core.ErrStoreUnavailable) {
			t.Errorf("translate(%v) = %v, want not ErrStoreUnavailable", err, got)
		}
	}
}
