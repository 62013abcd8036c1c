package poap_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
)

func TestClient_HoldersPage(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "holders_page.json"))
	got, err := c.HoldersPage(context.Background(), 175300, 0, 300)
	if err != nil {
		t.Fatalf("HoldersPage() error = %v", err)
	}
	want := poap.HolderPage{
		Total: 3, Limit: 300, TransferCount: 4,
		Holders: []poap.Holder{
			{TokenID: "7003126", Owner: alice, ENS: "alice.eth", OwnerTokens: 41, Created: utc(2025, 3, 7, 18, 2, 51)},
			{TokenID: "7003127", Owner: "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359", OwnerTokens: 3, TransferCount: 3,
				Created: utc(2025, 3, 7, 18, 5, 10), Migrated: ptr(utc(2025, 3, 20, 8, 0, 0))},
			{TokenID: "7003131", Owner: "0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb", OwnerTokens: 1, TransferCount: 1,
				Created: utc(2025, 3, 7, 18, 11, 42)},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("HoldersPage() mismatch (-want +got):\n%s", diff)
	}
}

// holdersFake serves total holders of one drop in the service's shape,
// honouring limit (capped at 300) and offset.
func holdersFake(t *testing.T, total int) http.HandlerFunc {
	t.Helper()
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		limit = min(limit, 300)
		tokens := []map[string]any{}
		for i := offset; i < min(offset+limit, total); i++ {
			tokens = append(tokens, map[string]any{
				"id": strconv.Itoa(8000000 + i), "created": "2025-03-07 18:02:51", "migrated": nil, "transferCount": "0",
				"owner": map[string]any{"id": fmt.Sprintf("0x%040x", i+1), "tokensOwned": 1, "ens": ""},
			})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"limit": limit, "offset": offset, "total": total, "transferCount": 0, "tokens": tokens,
		})
	}
}

func TestClient_Holders(t *testing.T) {
	t.Run("Pages", func(t *testing.T) {
		c, rec := opsClient(t, holdersFake(t, 650))
		var ids []string
		for h, err := range c.Holders(context.Background(), 175300) {
			if err != nil {
				t.Fatalf("Holders() error = %v", err)
			}
			ids = append(ids, h.TokenID)
		}
		if len(ids) != 650 || ids[0] != "8000000" || ids[649] != "8000649" {
			t.Errorf("Holders() gave %d holders (%v...), want 650 in order", len(ids), ids[:min(3, len(ids))])
		}
		var offsets []string
		for _, r := range rec.all() {
			q, _ := url.ParseQuery(r.Query)
			if q.Get("limit") != "300" {
				t.Errorf("limit = %q, want 300", q.Get("limit"))
			}
			offsets = append(offsets, q.Get("offset"))
		}
		if diff := cmp.Diff([]string{"0", "300", "600"}, offsets); diff != "" {
			t.Errorf("offsets mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("ExactPages", func(t *testing.T) {
		c, rec := opsClient(t, holdersFake(t, 600))
		n := 0
		for _, err := range c.Holders(context.Background(), 175300) {
			if err != nil {
				t.Fatalf("Holders() error = %v", err)
			}
			n++
		}
		if n != 600 || len(rec.all()) != 2 {
			t.Errorf("Holders() gave %d holders in %d requests, want 600 in 2 (total reached)", n, len(rec.all()))
		}
	})
	t.Run("Break", func(t *testing.T) {
		c, rec := opsClient(t, holdersFake(t, 650))
		n := 0
		for range c.Holders(context.Background(), 175300) {
			if n++; n == 310 {
				break
			}
		}
		if len(rec.all()) != 2 {
			t.Errorf("requests = %d after breaking at 310, want 2", len(rec.all()))
		}
	})
	t.Run("Error", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusNotFound, "error_404.json"))
		var errs []error
		for h, err := range c.Holders(context.Background(), 175300) {
			if err == nil || h != (poap.Holder{}) {
				t.Errorf("Holders() yielded %+v, %v, want a zero holder and an error", h, err)
			}
			errs = append(errs, err)
		}
		if len(errs) != 1 || !errors.Is(errs[0], poap.ErrNotFound) {
			t.Errorf("Holders() errors = %v, want one ErrNotFound", errs)
		}
	})
}

// TestHolder_Migrated checks that a token without migration has none.
func TestHolder_Migrated(t *testing.T) {
	var h poap.Holder
	if err := json.Unmarshal([]byte(`{"id":"1","created":"2025-03-07 18:02:51","owner":{"id":"0x1"}}`), &h); err != nil {
		t.Fatal(err)
	}
	if h.Migrated != nil || h.Created != time.Date(2025, 3, 7, 18, 2, 51, 0, time.UTC) {
		t.Errorf("Holder = %+v, want created set and no migration", h)
	}
}
