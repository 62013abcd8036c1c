package storage

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen_OneProcessPerSQLiteFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bot.db")
	url := "sqlite:" + path
	first, err := Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open() = %v", err)
	}
	defer func() { first.Close() }()

	// A second Open opens the lock file anew, as another process would.
	for range 2 {
		second, err := Open(t.Context(), url)
		if err == nil {
			second.Close()
			t.Fatal("second Open() of an open SQLite file = nil, want ErrLocked")
		}
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path+".lock") || strings.Contains(err.Error(), "\n") {
			t.Errorf("second Open() = %q, want one line naming %s.lock, wrapping ErrLocked", err, path)
		}
	}
	if err := first.Ping(t.Context()); err != nil {
		t.Errorf("Ping() of the first DB after refusals = %v", err)
	}
	if code, out := openInChild(t, url); code != childLocked {
		t.Errorf("Open() in another process while open here: exit %d, %s; want refused", code, out)
	}

	if err := first.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if code, out := openInChild(t, url); code != 0 {
		t.Errorf("Open() in another process after Close: exit %d, %s; want it opens", code, out)
	}
	again, err := Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open() after Close() = %v, want nil", err)
	}
	first = again
}

// childLocked is the exit code of openInChild's process when Open returned
// ErrLocked.
const childLocked = 3

// openInChild opens databaseURL in a child process (this test binary) and
// closes it; it returns the child's exit code and output.
func openInChild(t *testing.T, databaseURL string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenChild$")
	cmd.Env = append(os.Environ(), "STORAGE_CHILD_OPEN="+databaseURL)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("child: %v", err)
	}
	return 0, string(out)
}

// TestOpenChild is openInChild's process; it does nothing in a normal run.
func TestOpenChild(t *testing.T) {
	databaseURL := os.Getenv("STORAGE_CHILD_OPEN")
	if databaseURL == "" {
		t.Skip("run by openInChild")
	}
	db, err := Open(t.Context(), databaseURL)
	if errors.Is(err, ErrLocked) {
		fmt.Println(err)
		os.Exit(childLocked)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	db.Close()
}
