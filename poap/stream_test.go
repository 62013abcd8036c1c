package poap_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/internal/heapwatch"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// bigCollection is the size of the large-collection tests: more POAPs than
// any 8 MiB answer could carry.
const bigCollection = 20000

// bigCollector is the address the large-collection tests seed.
const bigCollector = "0x00000000000000000000000000000000c011ec70"

// startCollector serves a sandbox whose bigCollector holds n POAPs and returns
// a client for it.
func startCollector(tb testing.TB, n int) *poap.Client {
	tb.Helper()
	s := sandbox.New(sandbox.Options{APIKey: testKey})
	if err := s.SeedCollector(bigCollector, n); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{BaseURL: srv.URL, APIKey: testKey, RateLimit: -1, Timeout: time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestClient_Scan_LargeCollection(t *testing.T) {
	c := startCollector(t, bigCollection)
	tokens, err := c.Scan(context.Background(), bigCollector)
	if err != nil {
		t.Fatalf("Scan() of %d POAPs error = %v", bigCollection, err)
	}
	if len(tokens) != bigCollection || tokens[0].Event.Name != fmt.Sprintf("Collection drop #%d", bigCollection) ||
		tokens[len(tokens)-1].Event.Name != "Collection drop #1" {
		t.Fatalf("Scan() = %d tokens, want %d, newest first", len(tokens), bigCollection)
	}
	holdings, err := c.Holdings(context.Background(), bigCollector)
	if err != nil || len(holdings) != bigCollection {
		t.Errorf("Holdings() = %d holdings, %v, want %d", len(holdings), err, bigCollection)
	}
}

// repeatItems returns a JSON array of n copies of item.
func repeatItems(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
}

// bigItem is a scan item of about 70 KiB, over the bound of one element.
var bigItem = `{"tokenId":"1","owner":"0x1","event":{"id":1,"description":"` + strings.Repeat("x", 70<<10) + `"}}`

func TestClient_Scan_Bounds(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int // tokens; -1 for ErrUnavailable
	}{
		{"ManySmallItems", repeatItems(`{"tokenId":"1"}`, 50000), 50000},
		{"ItemOverBound", "[" + bigItem + "]", -1},
		{"TooManyItems", repeatItems(`{}`, poap.MaxScanTokens+1), -1},
		{"Null", "null", 0},
		{"TrailingData", `[{"tokenId":"1"}] [`, -1},
		{"Unterminated", `[{"tokenId":"1"},`, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tc.body))
			}), poap.Options{Retry: noRetry})
			got, err := c.Scan(context.Background(), holder)
			switch {
			case tc.want < 0 && !errors.Is(err, poap.ErrUnavailable):
				t.Errorf("Scan() = %d tokens, %v, want ErrUnavailable", len(got), err)
			case tc.want >= 0 && (err != nil || len(got) != tc.want):
				t.Errorf("Scan() = %d tokens, %v, want %d", len(got), err, tc.want)
			}
		})
	}
}

// holdersBody is a page of holders whose tokens are items.
func holdersBody(items string) string {
	return `{"limit":300,"offset":0,"total":5000,"transferCount":7,"tokens":` + items + `}`
}

const holderItem = `{"id":"7","created":"2025-03-07 18:02:51","migrated":null,"transferCount":"2","owner":{"id":"0x1","tokensOwned":3,"ens":""}}`

func TestClient_HoldersPage_Bounds(t *testing.T) {
	tests := []struct {
		name string
		body string
		want int // holders; -1 for ErrUnavailable
	}{
		{"FullPage", holdersBody(repeatItems(holderItem, poap.MaxHoldersPage)), poap.MaxHoldersPage},
		{"FieldsAfterTokens", `{"tokens":[` + holderItem + `],"total":5000,"limit":300,"offset":0,"transferCount":7,"extra":{"a":[1]}}`, 1},
		{"OverEightMiB", holdersBody(repeatItems(`{"id":"7","owner":{"id":"0x1","ens":"`+strings.Repeat("x", 30<<10)+`"}}`, poap.MaxHoldersPage)), poap.MaxHoldersPage},
		{"OverPage", holdersBody(repeatItems(holderItem, poap.MaxHoldersPage+1)), -1},
		{"ItemOverBound", holdersBody(`[{"id":"7","owner":{"ens":"` + strings.Repeat("x", 70<<10) + `"}}]`), -1},
		{"FieldOverBound", `{"total":5000,"extra":"` + strings.Repeat("x", 70<<10) + `","tokens":[]}`, -1},
		{"NotAnObject", `[` + holderItem + `]`, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tc.body))
			}), poap.Options{Retry: noRetry})
			got, err := c.HoldersPage(context.Background(), 175300, 0, poap.MaxHoldersPage)
			switch {
			case tc.want < 0 && !errors.Is(err, poap.ErrUnavailable):
				t.Errorf("HoldersPage() = %d holders, %v, want ErrUnavailable", len(got.Holders), err)
			case tc.want >= 0 && (err != nil || len(got.Holders) != tc.want || got.Total != 5000 || got.TransferCount != 7):
				t.Errorf("HoldersPage() = %d holders of %d (%d transfers), %v, want %d of 5000 (7)",
					len(got.Holders), got.Total, got.TransferCount, err, tc.want)
			}
		})
	}
}

// TestClient_Scan_CutShort checks that an answer cut off mid-body is a
// transient failure, retried like a lost connection.
func TestClient_Scan_CutShort(t *testing.T) {
	body := repeatItems(`{"tokenId":"1"}`, 1000)
	calls := 0
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write([]byte(body[:len(body)/2]))
			return
		}
		w.Write([]byte(body))
	}), poap.Options{Retry: poap.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	got, err := c.Scan(context.Background(), holder)
	if err != nil || len(got) != 1000 || calls != 2 {
		t.Errorf("Scan() = %d tokens, %v after %d requests, want 1000 after 2", len(got), err, calls)
	}
}

// BenchmarkScan scans collections of 5,000 and 20,000 POAPs, answered from
// a body rendered once by the sandbox, so that only the client's work
// counts, and reports the body's size and the peak growth of the heap (the
// result included):
//
//	go test -run '^$' -bench BenchmarkScan -benchtime 10x -count 3 ./poap/
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{5000, bigCollection} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			body := renderScan(b, n)
			c := newClient(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write(body)
			}), poap.Options{RateLimit: -1, Timeout: time.Minute})
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var worst uint64
			for b.Loop() {
				worst = max(worst, scanHeapGrowth(b, c, n))
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(len(body))/(1<<20), "body-MB")
		})
	}
}

// scanHeapGrowth scans bigCollector, who holds n POAPs, and returns the peak
// growth of the heap meanwhile, measured as uploadHeapGrowth does: the
// result, the decoder's buffers and the garbage not collected yet.
func scanHeapGrowth(tb testing.TB, c *poap.Client, n int) uint64 {
	tb.Helper()
	var tokens []poap.Token
	var err error
	peak, _ := heapwatch.Measure(func() { tokens, err = c.Scan(context.Background(), bigCollector) })
	if err != nil || len(tokens) != n {
		tb.Fatalf("Scan() = %d tokens, %v, want %d", len(tokens), err, n)
	}
	return peak
}

// renderScan returns the sandbox's answer to a scan of a bigCollector of n.
func renderScan(tb testing.TB, n int) []byte {
	tb.Helper()
	s := sandbox.New(sandbox.Options{})
	if err := s.SeedCollector(bigCollector, n); err != nil {
		tb.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/actions/scan/"+bigCollector, nil))
	if rec.Code != http.StatusOK {
		tb.Fatalf("sandbox scan = %d", rec.Code)
	}
	return bytes.Clone(rec.Body.Bytes())
}
