package poap

import (
	"context"

	"github.com/poapbot/poapbot/core"
)

func (d DropIssuer) Network(ctx context.Context, eventID int64, code core.Secret) (int64, error) {
	return 0, core.ErrMethodUnavailable
}

func (d DropIssuer) SetNetwork(ctx context.Context, eventID int64, code core.Secret, chain int64) (int64, error) {
	return 0, core.ErrMethodUnavailable
}
