package storagetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Template hands out SQLite databases that are already migrated: one empty
// file is opened (and so migrated) once per test process, and each
// database after is a copy of that file. Migrating an empty SQLite file is
// most of what a storage test costs under the race detector (0.8 s against
// 0.04 s for a copy: the SQLite engine is Go translated from C, and
// instrumented), and it checks nothing the tests of the migrations do not.
//
// Tests of the migrations themselves, or of what opening an empty database
// does, keep using Each and SQLiteURL, which give empty databases.
type Template struct {
	open func(ctx context.Context, databaseURL string) (io.Closer, error)

	once sync.Once
	file []byte // the migrated SQLite file
	err  error
}

// NewTemplate returns a Template whose databases open migrated: open opens
// the database at databaseURL, which migrates it, in practice storage.Open.
// The Template closes it.
func NewTemplate(open func(ctx context.Context, databaseURL string) (io.Closer, error)) *Template {
	return &Template{open: open}
}

// SQLiteURL returns the URL of a new SQLite file in a temporary directory,
// a copy of the migrated one.
func (tp *Template) SQLiteURL(t testing.TB) string {
	t.Helper()
	tp.once.Do(func() { tp.file, tp.err = makeSQLite(tp.open) })
	if tp.err != nil {
		t.Fatalf("storagetest: migrated SQLite template: %v", tp.err)
	}
	path := filepath.Join(t.TempDir(), "bot.db")
	if err := os.WriteFile(path, tp.file, 0o600); err != nil {
		t.Fatal(err)
	}
	return "sqlite:" + path
}

// Each is Each with newURL returning a copy of the migrated SQLite file in
// subtest "sqlite". In subtest "postgres" it returns a new empty schema, as
// Each does: migrating one costs PostgreSQL little, and opening it
// migrates it.
func (tp *Template) Each(t *testing.T, f func(t *testing.T, newURL func() string)) {
	t.Helper()
	each(t, f, tp.SQLiteURL)
}

// makeSQLite opens an empty SQLite file with open, closes it and returns
// the file.
func makeSQLite(open func(ctx context.Context, databaseURL string) (io.Closer, error)) ([]byte, error) {
	dir, err := os.MkdirTemp("", "storagetest-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "bot.db")
	db, err := open(context.Background(), "sqlite:"+path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	// A closed database has written its log back into the file; a log
	// left over would hold part of the schema, which a copy of the file
	// alone would lose.
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("%s-wal is not empty after Close", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return os.ReadFile(path)
}
