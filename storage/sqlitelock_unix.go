//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package storage

import (
	"errors"
	"os"
	"syscall"
)

// errWouldBlock is what lockFile returns when another holds the lock.
var errWouldBlock = syscall.EWOULDBLOCK

// lockFile takes an exclusive flock on f without waiting. flock belongs to
// the open file description, so a second open of the file is refused even
// within one process, and the lock goes when the file is closed or the
// process ends, however it ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
