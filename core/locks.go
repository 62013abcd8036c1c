package core

import "context"

// Exclusive runs a job unless another replica runs the same one
// (storage.DB.TryExclusive): ran is false when the lock was held.
type Exclusive interface {
	TryExclusive(ctx context.Context, name string, fn func(ctx context.Context) error) (ran bool, err error)
}

// The names of the locks the services take through Exclusive, in one place
// so that no two jobs share a name by accident: sweepLock is the scheduled
// gate sweep's, placeLock that of one place's gate sweep (the scheduled
// sweep's turn at the place, or a /gate sync), momentsResumeLock that of
// the resume of interrupted Moment posts.
const (
	sweepLock         = "gate sweep"
	momentsResumeLock = "moments resume"
)

func placeLock(p Platform, place string) string {
	return "gate sweep " + string(p) + ":" + place
}
