package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// pngOf returns a PNG of side×side pixels of noise (seeded): images that
// differ in content, and that do not compress to nothing.
func pngOf(t testing.TB, side int, seed uint64) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.UintN(256))
	}
	img.Set(0, 0, color.White)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeFile writes data to a new file named name in a test directory.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// sha is the hex SHA-256 of b.
func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkMoment checks the sandbox's newest Moment: its author, drop,
// description, and that its files' bytes are files.
func checkMoment(t *testing.T, sb *sandbox.Server, author string, drop int64, description string, files ...[]byte) sandbox.Moment {
	t.Helper()
	ms := sb.Moments()
	if len(ms) == 0 {
		t.Fatal("the sandbox has no Moment")
	}
	m := ms[len(ms)-1]
	if !strings.EqualFold(m.Author, author) || len(m.DropIDs) != 1 || m.DropIDs[0] != drop || m.Description != description {
		t.Errorf("Moment = author %s, drops %v, description %q; want %s, [%d], %q", m.Author, m.DropIDs, m.Description, author, drop, description)
	}
	if len(m.MediaKeys) != len(files) {
		t.Fatalf("Moment has %d files, want %d", len(m.MediaKeys), len(files))
	}
	for i, k := range m.MediaKeys {
		md, ok := sb.Media(k)
		if !ok || md.Hash != sha(files[i]) || md.Size != int64(len(files[i])) {
			t.Errorf("file %d: uploaded %d bytes hashing %s, want %d bytes hashing %s", i+1, md.Size, md.Hash, len(files[i]), sha(files[i]))
		}
	}
	return m
}

// TestMoment_Console: the console posts a Moment from files on disk, with
// every check made before an upload address is asked for.
func TestMoment_Console(t *testing.T) {
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			s := startMainWith(t, map[string]string{"DATABASE_URL": url, "MOMENT_MAX_BYTES": "300000"}, true)
			sb := s.m.SandboxAPI
			drop := gatedDrop(t, s, "Console Moments", coretest.TestAddress)
			other := gatedDrop(t, s, "Nobody's drop")
			photo, second := pngOf(t, 64, 1), pngOf(t, 48, 2)
			photoPath, secondPath := writeFile(t, "booth.png", photo), writeFile(t, "stage.png", second)

			fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
			waitOutput(t, s, "Signing is free")
			fmt.Fprintf(s.stdin, "/verify %s\n", coretest.Sign(coretest.TestKey, challengeIn(t, s.out.String())))
			waitOutput(t, s, "Verified")

			fmt.Fprintf(s.stdin, "/moment %d Our booth media:%s,%s\n", drop, photoPath, secondPath)
			waitOutput(t, s, "Moment posted")
			checkMoment(t, sb, coretest.TestAddress, drop, "Our booth", photo, second)

			refusals := []struct{ line, want string }{
				{fmt.Sprintf("/moment %d Again media:%s", drop, writeFile(t, "copy.png", photo)), "posted by you to this drop already"},
				{fmt.Sprintf("/moment %d Not mine media:%s", other, photoPath), "holds a POAP of drop"},
				{fmt.Sprintf("/moment %d %s media:%s", drop, strings.Repeat("x", 601), photoPath), "at most 600 characters"},
				{fmt.Sprintf("/moment %d Text media:%s", drop, writeFile(t, "notes.png", []byte("just some text, not a picture"))), "is not a photo or a video"},
				{fmt.Sprintf("/moment %d Huge media:%s", drop, writeFile(t, "huge.png", pngOf(t, 400, 3))), "the most a Moment's file may be here is 0.3 MB"},
				{fmt.Sprintf("/moment %d Nothing", drop), "Attach a photo or a video"},
			}
			asked := sb.Requests(wire.OpMediaUploadURL)
			for _, r := range refusals {
				before := len(s.out.String())
				fmt.Fprintf(s.stdin, "%s\n", r.line)
				waitOutput(t, s, r.want)
				if strings.Contains(s.out.String()[before:], "Moment posted") {
					t.Errorf("%.40s…: posted", r.line)
				}
			}
			fmt.Fprintf(s.stdin, "/as bob\n/link %s\n", elsewhere)
			waitOutput(t, s, "as your primary wallet")
			fmt.Fprintf(s.stdin, "/moment %d Unverified media:%s\n", drop, photoPath)
			waitOutput(t, s, "isn't verified yet")
			if n := sb.Requests(wire.OpMediaUploadURL); n != asked {
				t.Errorf("refused posts asked for %d upload addresses", n-asked)
			}
			if n := len(sb.Moments()); n != 1 {
				t.Errorf("the sandbox has %d Moments, want 1", n)
			}

			fmt.Fprintf(s.stdin, "/moments %d\n", drop)
			waitOutput(t, s, "Recent Moments")
			waitOutput(t, s, "Our booth")
		})
	}
}
