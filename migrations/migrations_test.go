package migrations

import (
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFS checks that both dialects have the same numbered migrations.
func TestFS(t *testing.T) {
	names := func(dir string) []string {
		t.Helper()
		entries, err := fs.ReadDir(FS, dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	pg, lite := names("postgres"), names("sqlite")
	if len(pg) == 0 {
		t.Fatal("no migrations embedded")
	}
	if diff := cmp.Diff(pg, lite); diff != "" {
		t.Errorf("migration files differ between dialects (-postgres +sqlite):\n%s", diff)
	}
}
