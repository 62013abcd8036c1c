// Package filegen makes large files for tests and benchmarks as they are
// read: deterministic pseudo-random bytes, so that a fake platform can
// serve a 100 MB attachment, and a test compare what arrived, without
// either holding the file in memory.
package filegen

import (
	"encoding/binary"
	"io"
)

// New returns size bytes of seed's content (see Content) as a reader that
// can seek: each call with the same seed and size reads the same bytes.
func New(seed uint64, size int64) io.ReadSeeker {
	return io.NewSectionReader(Content{Seed: seed}, 0, max(size, 0))
}

// WithPrefix is New with its first bytes replaced by prefix: a file whose
// first bytes say what it is (a PNG signature), the rest pseudo-random.
func WithPrefix(prefix []byte, seed uint64, size int64) io.ReadSeeker {
	return io.NewSectionReader(Content{Seed: seed, Prefix: prefix}, 0, max(size, 0))
}

// Content is an endless file: Prefix, then at each offset the bytes of
// SplitMix64 of Seed and the offset's 8-byte word.
type Content struct {
	Seed   uint64
	Prefix []byte
}

// ReadAt implements io.ReaderAt; it never fails.
func (c Content) ReadAt(p []byte, off int64) (int, error) {
	var word [8]byte
	for i := range p {
		at := off + int64(i)
		if at < int64(len(c.Prefix)) {
			p[i] = c.Prefix[at]
			continue
		}
		if i == 0 || at%8 == 0 {
			binary.LittleEndian.PutUint64(word[:], splitmix64(c.Seed+uint64(at/8)*0x9e3779b97f4a7c15))
		}
		p[i] = word[at%8]
	}
	return len(p), nil
}

// splitmix64 is the output function of the SplitMix64 generator.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
