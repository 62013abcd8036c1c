// Package migrated gives the tests of the packages above storage their
// databases: on SQLite, copies of a file storage.Open migrated once per
// test process (see storagetest.Template); on PostgreSQL, a new schema, as
// storagetest gives. None of those tests is about migrating; storage's
// own tests keep a Template of their own (this package imports storage).
package migrated

import (
	"context"
	"io"
	"testing"

	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest"
)

var template = storagetest.NewTemplate(func(ctx context.Context, databaseURL string) (io.Closer, error) {
	return storage.Open(ctx, databaseURL)
})

// SQLiteURL returns the URL of a new SQLite file, already migrated.
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return template.SQLiteURL(t)
}

// Each is storagetest.Each with the SQLite databases already migrated.
func Each(t *testing.T, f func(t *testing.T, newURL func() string)) {
	t.Helper()
	template.Each(t, f)
}
