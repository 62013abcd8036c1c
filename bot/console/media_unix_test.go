//go:build unix

package console

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/poapbot/poapbot/core"
)

// notFiles returns paths that are not regular files: a folder, a device,
// a named pipe (which an open without O_NONBLOCK would wait on for ever)
// and a socket.
func notFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.png")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return map[string]string{"folder": dir, "device": "/dev/zero", "named pipe": fifo, "socket": sock}
}

func TestFiles_OpenMedia_NotFile(t *testing.T) {
	for kind, p := range notFiles(t) {
		t.Run(kind, func(t *testing.T) {
			rc, _, err := Files{}.OpenMedia(context.Background(), p)
			if rc != nil {
				rc.Close()
			}
			if !errors.Is(err, core.ErrMediaNotFile) || !strings.Contains(err.Error(), kind) {
				t.Errorf("OpenMedia(%s) = %v, want core.ErrMediaNotFile naming a %s", p, err, kind)
			}
		})
	}
}

// TestOpenRegular_NotFile: a path that turns into a named pipe between the
// check and the open is refused once open, without waiting for a writer.
func TestOpenRegular_NotFile(t *testing.T) {
	for kind, p := range notFiles(t) {
		if kind == "socket" {
			continue // a socket cannot be opened as a file at all
		}
		t.Run(kind, func(t *testing.T) {
			rc, _, err := openRegular(p)
			if rc != nil {
				rc.Close()
			}
			if !errors.Is(err, core.ErrMediaNotFile) {
				t.Errorf("openRegular(%s) = %v, want core.ErrMediaNotFile", p, err)
			}
		})
	}
}

func TestCutMedia_NotFile(t *testing.T) {
	for kind, p := range notFiles(t) {
		t.Run(kind, func(t *testing.T) {
			_, media := cutMedia("/moment 1 hi media:" + p)
			if len(media) != 1 || !strings.Contains(media[0].Unavailable, "not a file but a "+kind) {
				t.Errorf("cutMedia(%s) = %+v, want it unavailable as not a file but a %s", p, media, kind)
			}
		})
	}
}
