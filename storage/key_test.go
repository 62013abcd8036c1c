package storage

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/core"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	var want Key
	for i := range want {
		want[i] = byte(i*7 + 250) // covers bytes that differ between base64 alphabets
	}
	raw := want[:]
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"hex", hex.EncodeToString(raw), true},
		{"HEX", strings.ToUpper(hex.EncodeToString(raw)), true},
		{"hex with spaces", "  " + hex.EncodeToString(raw) + "\n", true},
		{"base64 std", base64.StdEncoding.EncodeToString(raw), true},
		{"base64 std raw", base64.RawStdEncoding.EncodeToString(raw), true},
		{"base64 url", base64.URLEncoding.EncodeToString(raw), true},
		{"base64 url raw", base64.RawURLEncoding.EncodeToString(raw), true},
		{"empty", "", false},
		{"short hex", hex.EncodeToString(raw[:31]), false},
		{"long hex", hex.EncodeToString(append(raw, 0)), false},
		{"bad hex", strings.Repeat("zz", 32), false},
		{"base64 of 31 bytes", base64.StdEncoding.EncodeToString(raw[:31]), false},
		{"base64 of 33 bytes", base64.StdEncoding.EncodeToString(append(raw, 0)), false},
		{"passphrase", "correct horse battery staple", false},
	}
	for _, tt := range tests {
		got, err := ParseKey(tt.in)
		switch {
		case tt.ok && (err != nil || got != want):
			t.Errorf("ParseKey(%s) = %x, %v, want %x", tt.name, got[:], err, want[:])
		case !tt.ok && !errors.Is(err, ErrInvalidKey):
			t.Errorf("ParseKey(%s) = %v, want %v", tt.name, err, ErrInvalidKey)
		}
	}
}

func TestKey_Redacts(t *testing.T) {
	t.Parallel()
	k := Key{0: 0xab, 1: 0xcd}
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %s %+v %#v %x", k, k, k, k, k), slog.AnyValue(k).Resolve().String()} {
		if strings.Contains(s, "ab") || strings.Contains(s, "171") {
			t.Errorf("printed key = %q, want it redacted", s)
		}
	}
}

func TestLoadKey(t *testing.T) {
	t.Parallel()
	t.Run("GeneratesOnce", func(t *testing.T) {
		dbPath := filepath.Join(t.TempDir(), "bot.db")
		first, err := LoadKey("sqlite:"+dbPath, "")
		if err != nil {
			t.Fatalf("LoadKey() = %v", err)
		}
		info, err := os.Stat(dbPath + ".key")
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("key file = %v, %v, want mode 0600", info, err)
		}
		second, err := LoadKey("sqlite://"+dbPath, "")
		if err != nil || second != first || first == (Key{}) {
			t.Errorf("LoadKey() again = %v, want the first key", err)
		}
		if leftovers, _ := filepath.Glob(dbPath + ".key.tmp*"); len(leftovers) != 0 {
			t.Errorf("temporary files left: %v", leftovers)
		}
	})
	t.Run("ConcurrentGenerate", func(t *testing.T) {
		databaseURL := "sqlite:" + filepath.Join(t.TempDir(), "bot.db")
		const n = 8
		keys := make([]Key, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				var err error
				if keys[i], err = LoadKey(databaseURL, ""); err != nil {
					t.Errorf("LoadKey #%d = %v", i, err)
				}
			})
		}
		wg.Wait()
		for i, k := range keys {
			if k != keys[0] {
				t.Errorf("LoadKey #%d returned another key than #0", i)
			}
		}
	})
	t.Run("ConfiguredWins", func(t *testing.T) {
		dir := t.TempDir()
		want := Key{5: 5}
		got, err := LoadKey("sqlite:"+filepath.Join(dir, "bot.db"), core.Secret(hex.EncodeToString(want[:])))
		if err != nil || got != want {
			t.Errorf("LoadKey(configured) = %v, want the configured key", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "bot.db.key")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("key file with a configured key: %v, want none", err)
		}
		if _, err := LoadKey("", "too short"); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("LoadKey(bad configured key) = %v, want %v", err, ErrInvalidKey)
		}
	})
	t.Run("ErrKeyRequired", func(t *testing.T) {
		_, err := LoadKey("postgres://bot@localhost/bot", "")
		if !errors.Is(err, ErrKeyRequired) {
			t.Errorf("LoadKey(postgres, no key) = %v, want %v", err, ErrKeyRequired)
		}
	})
	t.Run("ErrKeyFile", func(t *testing.T) {
		dir := t.TempDir()
		tests := []struct {
			name    string
			content string
			mode    os.FileMode
		}{
			{"readable by group", strings.Repeat("ab", 32), 0o640},
			{"readable by all", strings.Repeat("ab", 32), 0o644},
			{"empty", "", 0o600},
			{"garbage", "not a key", 0o600},
		}
		for _, tt := range tests {
			dbPath := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".db")
			if err := os.WriteFile(dbPath+".key", []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dbPath+".key", tt.mode); err != nil { // umask may have narrowed it
				t.Fatal(err)
			}
			if _, err := LoadKey("sqlite:"+dbPath, ""); !errors.Is(err, ErrKeyFile) {
				t.Errorf("LoadKey(key file %s) = %v, want %v", tt.name, err, ErrKeyFile)
			}
		}
	})
}
