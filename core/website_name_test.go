package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/storage"
)

// nameTap is a core.WebsiteIssuer that records the website claim
// names it is asked about: every one would go into a request's path or
// body. Its other calls are not in these tests.
type nameTap struct {
	core.WebsiteIssuer
	mu    sync.Mutex
	names []string
}

func (f *nameTap) Website(_ context.Context, name string) (core.WebsiteStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.names = append(f.names, "read "+name)
	return core.WebsiteStatus{Name: name, EventID: eventID, Active: true}, nil
}

func (f *nameTap) RequestWebsite(_ context.Context, r core.WebsiteRequest) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.names = append(f.names, "request "+r.Name)
	return nil
}

func (f *nameTap) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.names...)
}

// TestWebsiteNames: a website claim name that cannot be one plain path
// segment is refused with ErrInvalidWebsiteName wherever it enters
// (/drop add website:, /drop website), before anything is asked of the
// issuing service; a good one is asked about.
func TestWebsiteNames(t *testing.T) {
	bad := []string{"..", "../admin", "a/b", "name?x=1", "sp ace", "%2e%2e", "café", strings.Repeat("a", core.MaxWebsiteName+1)}
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		tap := &nameTap{}
		nt := newNetworkTest(t, db, "site-names", func(w *wiring, c *chainIssuer) {
			w.website, w.websiteStore, w.networks, w.networkStore = tap, db, c, db
		})
		nt.issuer.addEvent(eventID, editCode, 2, 0)
		ctx := t.Context()
		for _, name := range bad {
			_, err := nt.svc.AddDrop(ctx, nt.mod, nt.place, core.AddDropOptions{
				EventID: eventID, EditCode: editCode, Method: core.ClaimWebsite, Website: name,
			})
			wantDropError(t, err, core.ErrInvalidWebsiteName)
		}
		nt.add(t)
		for _, name := range bad {
			_, err := nt.websites.RequestWebsite(ctx, nt.mod, nt.place, core.WebsiteRequest{EventID: eventID, Name: name})
			wantDropError(t, err, core.ErrInvalidWebsiteName)
		}
		if got := tap.asked(); len(got) != 0 {
			t.Fatalf("the issuing service was asked about %q, want nothing", got)
		}
		if _, err := nt.websites.RequestWebsite(ctx, nt.mod, nt.place, core.WebsiteRequest{EventID: eventID, Name: "increase-group_Student1"}); err != nil {
			t.Fatalf("RequestWebsite(a good name) = %v", err)
		}
		if got := tap.asked(); len(got) != 1 || got[0] != "request increase-group_Student1" {
			t.Errorf("asked %q, want the good name requested", got)
		}
	})
}
