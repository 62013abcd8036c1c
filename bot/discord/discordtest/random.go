package discordtest

import (
	"encoding/binary"
	"errors"
	"io"
)

// PseudoRandom returns size bytes of deterministic pseudo-random content
// (splitmix64 of seed and the position), generated as it is read: a large
// file to serve with AddFileFunc, or to compare with what was served,
// without holding it in memory. Every call with the same seed and size
// returns the same bytes; each reader is for one goroutine.
func PseudoRandom(seed uint64, size int64) io.ReadSeeker {
	return &pseudoRandom{seed: seed, size: max(size, 0)}
}

type pseudoRandom struct {
	seed      uint64
	size, off int64
}

// Read fills p from the current offset, 8 bytes of one mix at a time.
func (r *pseudoRandom) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if left := r.size - r.off; int64(len(p)) > left {
		p = p[:left]
	}
	var block [8]byte
	n := 0
	for n < len(p) {
		binary.LittleEndian.PutUint64(block[:], splitmix64(r.seed+uint64(r.off/8)*0x9e3779b97f4a7c15))
		c := copy(p[n:], block[r.off%8:])
		n += c
		r.off += int64(c)
	}
	return n, nil
}

// Seek sets the offset for the next Read, as io.Seeker says; an offset
// before the start is an error, one past the end reads io.EOF.
func (r *pseudoRandom) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	case io.SeekStart:
	default:
		return 0, errors.New("discordtest: seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("discordtest: seek: negative position")
	}
	r.off = offset
	return offset, nil
}

// splitmix64 is the output function of the SplitMix64 generator.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
