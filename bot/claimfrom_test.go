package bot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// failingPlaces is a store whose lists of a drop's places fail with err.
type failingPlaces struct {
	*coretest.MemStore
	err error
}

func (s failingPlaces) DropPlaces(context.Context, core.Platform, int64) ([]core.Place, error) {
	return nil, s.err
}

// TestClaimFrom_PlaceLookup: a /claim from a private chat whose places
// cannot be listed says to try again, asking the platform about nobody;
// with the storage down, the command runs as typed, where the outage is
// worded as everywhere.
func TestClaimFrom_PlaceLookup(t *testing.T) {
	tests := []struct {
		name string
		err  error
		ok   bool
		want string
	}{
		{"Failing", errors.New("database down"), true, "I could not check which of your groups hand this drop out"},
		{"StoreUnavailable", core.ErrStoreUnavailable, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newDropEnv(t, failingPlaces{MemStore: coretest.NewMemStore(), err: tt.err})
			asked := false
			req := &Request{Place: core.Place{Platform: core.Telegram, ExternalID: "1001"}, Chat: Chat{Private: true},
				Caller: Caller{ExternalID: "1001", Name: "alice"}, Command: "claim", Options: map[string]string{"drop": "701"},
				ActFor: func(context.Context, core.Place) (*Request, error) { asked = true; return nil, ErrNotMember }}
			reply, ok := e.b.claimFrom(t.Context(), req)
			if ok != tt.ok || !strings.Contains(reply.Text, tt.want) || asked {
				t.Errorf("claimFrom() = %q, %v (platform asked: %v); want %q, %v, nobody asked", reply.Text, ok, asked, tt.want, tt.ok)
			}
		})
	}
}
