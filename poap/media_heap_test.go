package poap_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/poapbot/poapbot/internal/heapwatch"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// bigUpload is the size of the streaming upload test: 100 MB.
const bigUpload = 100 << 20

// maxHeapGrowth is the bound on the heap's growth during bigUpload.
const maxHeapGrowth = 16 << 20

// patternReader yields a 64 KiB block over and over, so that a large file
// is made on the fly instead of held in memory.
type patternReader struct {
	block []byte
	off   int
}

func (p *patternReader) Read(b []byte) (int, error) {
	n := copy(b, p.block[p.off:])
	p.off = (p.off + n) % len(p.block)
	return n, nil
}

// pngStream returns a one-shot reader of size bytes that the sandbox sniffs
// as a PNG image.
func pngStream(size int64) io.Reader {
	sig := []byte("\x89PNG\r\n\x1a\n")
	block := make([]byte, 64<<10)
	for i := range block {
		block[i] = byte(i*7 + i>>9)
	}
	return io.MultiReader(bytes.NewReader(sig), io.LimitReader(&patternReader{block: block}, size-int64(len(sig))))
}

// uploadHeapGrowth uploads size bytes with c and returns the media key, the
// peak growth of the heap during the upload and the bytes allocated
// meanwhile (heapwatch.Measure). The sandbox runs in the same process, so
// its side of the upload counts too.
func uploadHeapGrowth(tb testing.TB, c *poap.Client, size int64) (key string, peak, allocated uint64) {
	tb.Helper()
	r := pngStream(size)
	var err error
	peak, allocated = heapwatch.Measure(func() {
		key, err = c.UploadMedia(context.Background(), r, size, "image/png")
	})
	if err != nil {
		tb.Fatalf("UploadMedia(%d bytes) error = %v", size, err)
	}
	return key, peak, allocated
}

func TestClient_UploadMedia_Streams(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 100 MB")
	}
	s, c, _ := startMomentsSandbox(t, sandbox.Options{})
	key, peak, allocated := uploadHeapGrowth(t, c, bigUpload)
	t.Logf("100 MB upload: peak heap growth %.2f MB, %.2f MB allocated", float64(peak)/(1<<20), float64(allocated)/(1<<20))
	if peak >= maxHeapGrowth {
		t.Errorf("peak heap growth %d bytes, want under %d", peak, maxHeapGrowth)
	}
	if m, ok := s.Media(key); !ok || m.Size != bigUpload || m.Status != wire.MediaProcessed {
		t.Errorf("sandbox Media(key) = %+v, %v, want %d bytes PROCESSED", m, ok, bigUpload)
	}
}

// BenchmarkUploadMedia100MB streams 100 MB to the sandbox over loopback and
// reports the worst peak heap growth of its runs (see uploadHeapGrowth).
func BenchmarkUploadMedia100MB(b *testing.B) {
	_, c, _ := startMomentsSandbox(b, sandbox.Options{})
	b.SetBytes(bigUpload)
	var worst, allocated uint64
	for b.Loop() {
		_, peak, alloc := uploadHeapGrowth(b, c, bigUpload)
		worst, allocated = max(worst, peak), max(allocated, alloc)
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(allocated)/(1<<20), "alloc-MB")
}
