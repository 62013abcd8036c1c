package storage

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// Key is the secret key (BOT_SECRET_KEY) that encrypts stored secrets and
// keys pseudonymous hashes. Printing it shows "[redacted]".
type Key [32]byte

// Errors about the secret key.
var (
	// ErrInvalidKey means a configured key is not 32 bytes in hex or base64.
	ErrInvalidKey = errors.New("BOT_SECRET_KEY must be 32 bytes, hex or base64")
	// ErrKeyRequired means PostgreSQL is used without a configured key:
	// there is no private place beside the database to keep a generated one.
	ErrKeyRequired = errors.New("BOT_SECRET_KEY is required with PostgreSQL (32 bytes, hex or base64)")
	// ErrKeyFile means the generated key file is unsafe or unreadable.
	ErrKeyFile = errors.New("bad key file")
)

// String redacts the key.
func (Key) String() string { return "[redacted]" }

// GoString redacts the key for %#v.
func (Key) GoString() string { return "[redacted]" }

// LogValue redacts the key in slog output.
func (Key) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// ParseKey reads a key written as 64 hex characters or as base64 (standard
// or URL alphabet, padded or not) of exactly 32 bytes; surrounding space is
// ignored. It returns an error wrapping ErrInvalidKey otherwise, which
// never repeats the input.
func ParseKey(s string) (Key, error) {
	s = strings.TrimSpace(s)
	var k Key
	if len(s) == hex.EncodedLen(len(k)) {
		if b, err := hex.DecodeString(s); err == nil {
			copy(k[:], b)
			return k, nil
		}
	}
	encodings := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
	for _, enc := range encodings {
		if b, err := enc.DecodeString(s); err == nil && len(b) == len(k) {
			copy(k[:], b)
			return k, nil
		}
	}
	return Key{}, fmt.Errorf("%w (got %d characters)", ErrInvalidKey, len(s))
}

// LoadKey returns the key to use with the database databaseURL names. A
// configured key (BOT_SECRET_KEY) wins. Otherwise, for SQLite, the key is
// read from the file <database file>.key, which is generated with a random
// key on first use and must be readable by its owner only. It returns an
// error wrapping ErrInvalidKey for a malformed configured key,
// ErrKeyRequired for PostgreSQL without one, ErrKeyFile for an unsafe or
// malformed key file, and ErrDatabaseURL for an unknown URL.
func LoadKey(databaseURL string, configured core.Secret) (Key, error) {
	if !configured.IsZero() {
		return ParseKey(configured.Reveal())
	}
	t, err := parseDatabaseURL(databaseURL)
	if err != nil {
		return Key{}, err
	}
	if t.dialect == DialectPostgres {
		return Key{}, ErrKeyRequired
	}
	return loadKeyFile(t.path + ".key")
}

// loadKeyFile reads the key file at path, creating it first when missing.
// When two processes start at once, one creates it and both read it.
func loadKeyFile(path string) (Key, error) {
	k, err := readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := createKeyFile(path); err != nil && !errors.Is(err, fs.ErrExist) {
		return Key{}, fmt.Errorf("create key file %s: %w", path, err)
	}
	return readKeyFile(path)
}

// readKeyFile reads a key file, refusing one that others may read.
func readKeyFile(path string) (Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return Key{}, fmt.Errorf("read key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Key{}, fmt.Errorf("read key file: %w", err)
	}
	if perm := info.Mode().Perm(); !info.Mode().IsRegular() || perm&0o077 != 0 {
		return Key{}, fmt.Errorf("key file %s must be a regular file with mode 0600, not %v (chmod 600 it): %w",
			path, info.Mode(), ErrKeyFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return Key{}, fmt.Errorf("read key file %s: %w", path, err)
	}
	k, err := ParseKey(string(data))
	if err != nil {
		return Key{}, fmt.Errorf("key file %s holds no valid key (want 64 hex characters): %w", path, ErrKeyFile)
	}
	return k, nil
}

// createKeyFile writes a new random key to path and fails with an error
// matching fs.ErrExist when path exists. The key is written to a temporary
// file, created 0600 with O_EXCL, and then hard-linked to path: the link,
// like O_EXCL, never replaces an existing file, and unlike writing path
// directly it never shows another process a half-written key, nor leaves
// an empty key file behind after a crash.
func createKeyFile(path string) error {
	var k Key
	rand.Read(k[:]) // never fails: it crashes the program instead
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(k[:]) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir makes a new directory entry durable, so the key is not lost in
// a power cut after the database used it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
