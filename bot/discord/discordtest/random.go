package discordtest

import (
	"io"

	"github.com/poapbot/poapbot/internal/filegen"
)

// PseudoRandom returns size bytes of deterministic pseudo-random content
// (filegen.New), generated as it is read: a large file to serve with
// AddFileFunc, or to compare with what was served, without holding it in
// memory. Every call with the same seed and size returns the same bytes;
// each reader is for one goroutine.
func PseudoRandom(seed uint64, size int64) io.ReadSeeker { return filegen.New(seed, size) }
