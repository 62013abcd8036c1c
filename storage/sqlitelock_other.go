//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package storage

import (
	"errors"
	"os"
)

// errWouldBlock is never returned where flock is missing.
var errWouldBlock = errors.New("lock held")

// lockFile does nothing where flock is missing: one process per SQLite file
// is then the operator's to keep.
func lockFile(*os.File) error { return nil }
