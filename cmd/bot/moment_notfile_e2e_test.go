//go:build unix

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/wire"
)

// TestMoment_ConsoleNotFile: a folder, a device and a named pipe given as
// a Moment's media on the console are refused at once as not files; the
// named pipe, which nobody writes to, does not hang the console.
func TestMoment_ConsoleNotFile(t *testing.T) {
	t.Parallel()
	s := startMainWith(t, map[string]string{}, true)
	sb := s.m.SandboxAPI
	drop := gatedDrop(t, s, "Console Not Files", coretest.TestAddress)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "booth.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	consoleAnswer(t, s, "/as alice", "You are now alice")
	consoleAnswer(t, s, "/link "+coretest.TestAddress, "Signing is free")
	asked := sb.Requests(wire.OpMediaUploadURL)
	for kind, p := range map[string]string{"folder": dir, "device": "/dev/zero", "named pipe": fifo} {
		out := consoleAnswer(t, s, fmt.Sprintf("/moment %d Booth media:%s", drop, p), "not a file but a "+kind)
		if strings.Contains(out, "Moment posted") || strings.Contains(out, "post it again in a minute") {
			t.Errorf("/moment with a %s = %q, want it refused as not a file", kind, out)
		}
	}
	if n := sb.Requests(wire.OpMediaUploadURL); n != asked {
		t.Errorf("refused posts asked for %d upload addresses", n-asked)
	}
}
