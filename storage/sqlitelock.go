package storage

import (
	"errors"
	"fmt"
	"os"
)

// lockSuffix names the lock file of a SQLite database: bot.db.lock beside
// bot.db.
const lockSuffix = ".lock"

// sqliteLock is the OS lock a process holds on a SQLite database's lock file
// while the database is open.
type sqliteLock struct {
	f *os.File
}

// lockSQLite takes the exclusive lock of the SQLite database at path, on
// path+".lock" (created if missing), without waiting. The bot's background
// jobs take their turns with locks of this process on SQLite, so a second
// process on the same file would run them again beside the first: the lock
// refuses it. It returns an error wrapping ErrLocked when another process
// (or another Open in this one) holds the lock.
func lockSQLite(path string) (*sqliteLock, error) {
	name := path + lockSuffix
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, fmt.Errorf("%s is held: %w", name, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return &sqliteLock{f: f}, nil
}

// release gives the lock back. The file stays: removing it could let two
// processes each lock a file of that name, one the removed one, one anew.
func (l *sqliteLock) release() error {
	if l == nil {
		return nil
	}
	return l.f.Close() // closing the last descriptor releases the lock
}
