package filegen_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/poapbot/poapbot/internal/filegen"
)

// TestNew: the content is the same for the same seed, whatever the reads
// and seeks, and differs for another seed.
func TestNew(t *testing.T) {
	const size = 1000
	whole, err := io.ReadAll(filegen.New(1, size))
	if err != nil || len(whole) != size {
		t.Fatalf("ReadAll = %d bytes, %v; want %d", len(whole), err, size)
	}
	r := filegen.New(1, size)
	if _, err := r.Seek(333, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 101)
	if _, err := io.ReadFull(r, part); err != nil || !bytes.Equal(part, whole[333:434]) {
		t.Errorf("bytes 333 to 434 after a seek = %x, %v; want %x", part, err, whole[333:434])
	}
	if _, err := r.Seek(-13, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	for _, off := range []int{987, 992} {
		if n, err := io.ReadFull(r, buf); n != 5 || err != nil || !bytes.Equal(buf, whole[off:off+5]) {
			t.Errorf("read at %d = %v (%d, %v), want %v", off, buf, n, err, whole[off:off+5])
		}
	}
	if end, err := r.Seek(0, io.SeekEnd); err != nil || end != size {
		t.Errorf("Seek(0, end) = %d, %v; want %d", end, err, size)
	}
	if n, err := r.Read(part); n != 0 || err != io.EOF {
		t.Errorf("Read at the end = %d, %v; want 0, EOF", n, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek(-1) = nil error, want one")
	}
	again, _ := io.ReadAll(filegen.New(1, size))
	other, _ := io.ReadAll(filegen.New(2, size))
	if !bytes.Equal(whole, again) || bytes.Equal(whole, other) {
		t.Error("the content is not the same for a seed, or the same for two")
	}
}

func TestWithPrefix(t *testing.T) {
	const sig = "\x89PNG\r\n\x1a\n"
	got, _ := io.ReadAll(filegen.WithPrefix([]byte(sig), 1, 100))
	plain, _ := io.ReadAll(filegen.New(1, 100))
	if len(got) != 100 || string(got[:len(sig)]) != sig || !bytes.Equal(got[len(sig):], plain[len(sig):]) {
		t.Errorf("WithPrefix = %x, want the signature, then New's bytes", got)
	}
}
