package poap_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestNewClient(t *testing.T) {
	tests := []struct {
		base    string
		wantErr bool
	}{
		{"https://api.poap.tech", false},
		{"http://127.0.0.1:8080/", false},
		{"https://gateway.example.org/poap/", false},
		{"", true},
		{"api.poap.tech", true},
		{"ftp://api.poap.tech", true},
		{"https://", true},
		{"https://user:hunter2@api.poap.tech", true},
		{"https://api.poap.tech?x=1", true},
		{"://bad", true},
	}
	for _, tc := range tests {
		_, err := poap.NewClient(poap.Options{BaseURL: tc.base})
		if (err != nil) != tc.wantErr {
			t.Errorf("NewClient(%q) error = %v, want error %v", tc.base, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewClient(%q) error = %q, leaks the password", tc.base, err)
		}
	}
}

func TestClient_Headers(t *testing.T) {
	var got http.Header
	var gotPath string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotPath = r.Header.Clone(), r.URL.Path
		w.Write([]byte("[]"))
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var logs bytes.Buffer
	c, err := poap.NewClient(poap.Options{
		BaseURL:   srv.URL + "/prefix/",
		APIKey:    testKey,
		UserAgent: "poapbot-test/1",
		Logger:    slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Scan(context.Background(), holder); err != nil {
		t.Fatalf("Scan() error = %v", err)
	}
	want := map[string]string{"X-Api-Key": testKey, "Accept": "application/json", "User-Agent": "poapbot-test/1"}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, got.Get(k), v)
		}
	}
	if wantPath := "/prefix/actions/scan/" + holder; gotPath != wantPath {
		t.Errorf("path = %q, want %q", gotPath, wantPath)
	}
	if logs.Len() == 0 || strings.Contains(logs.String(), testKey) {
		t.Errorf("log = %q, want a line without the key", logs.String())
	}
}

func TestClient_DefaultUserAgent(t *testing.T) {
	var got string
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.UserAgent()
		w.Write([]byte("[]"))
	}), poap.Options{})
	if _, err := c.Scan(context.Background(), holder); err != nil {
		t.Fatalf("Scan() error = %v", err)
	}
	if got != poap.DefaultUserAgent {
		t.Errorf("User-Agent = %q, want %q", got, poap.DefaultUserAgent)
	}
}

func TestClient_Timeout(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	rec := &recorder{}
	c := newClient(t, h, poap.Options{Timeout: 50 * time.Millisecond, Observer: rec, Retry: noRetry})
	t.Cleanup(func() { close(release) })
	_, err := c.Scan(context.Background(), holder)
	if !errors.Is(err, poap.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Scan() error = %v, want ErrUnavailable and context.DeadlineExceeded", err)
	}
	if diff := cmp.Diff([]observation{{wire.OpScan, poap.StatusTimeout}}, rec.observations()); diff != "" {
		t.Errorf("observations mismatch (-want +got):\n%s", diff)
	}
}

func TestClient_Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	}), poap.Options{})
	_, err := c.Scan(ctx, holder)
	if !errors.Is(err, context.Canceled) || errors.Is(err, poap.ErrUnavailable) {
		t.Errorf("Scan() error = %v, want context.Canceled and not ErrUnavailable", err)
	}
	if _, err := c.Holdings(ctx, holder); !errors.Is(err, context.Canceled) || errors.Is(err, core.ErrIssuerUnavailable) {
		t.Errorf("Holdings() error = %v, want context.Canceled only", err)
	}
}

func TestClient_NetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	rec := &recorder{}
	c, err := poap.NewClient(poap.Options{BaseURL: srv.URL, Observer: rec, Retry: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ScanEvent(context.Background(), holder, 1); !errors.Is(err, poap.ErrUnavailable) {
		t.Errorf("ScanEvent() error = %v, want ErrUnavailable", err)
	}
	if diff := cmp.Diff([]observation{{wire.OpScanEvent, poap.StatusError}}, rec.observations()); diff != "" {
		t.Errorf("observations mismatch (-want +got):\n%s", diff)
	}
}

func TestClient_Observer(t *testing.T) {
	rec := &recorder{}
	mux := http.NewServeMux()
	mux.Handle("GET /actions/scan/{address}", serveFixture(t, http.StatusOK, "scan.json"))
	mux.Handle("GET /actions/scan/{address}/{event}", serveFixture(t, http.StatusNotFound, "error_404.json"))
	c := newClient(t, mux, poap.Options{Observer: rec})
	c.Scan(context.Background(), holder)
	c.ScanEvent(context.Background(), holder, 1)
	want := []observation{{wire.OpScan, "200"}, {wire.OpScanEvent, "404"}}
	if diff := cmp.Diff(want, rec.observations()); diff != "" {
		t.Errorf("observations mismatch (-want +got):\n%s", diff)
	}
}

// TestClient_BodyLimit checks that the answers read whole (all but Scan and
// HoldersPage, which stream) keep their 8 MiB cap.
func TestClient_BodyLimit(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"tokenId":"1","event":{"description":"`))
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for written := 0; written <= 9<<20; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}}`))
	}), poap.Options{})
	if _, err := c.ScanEvent(context.Background(), holder, 1); !errors.Is(err, poap.ErrUnavailable) {
		t.Errorf("ScanEvent() error = %v, want ErrUnavailable for a body over the limit", err)
	}
}

func TestClient_MalformedBody(t *testing.T) {
	for _, body := range []string{`{"not":"a list"}`, `[{"created":"yesterday"}]`, `<html>`} {
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(body))
		}), poap.Options{})
		if _, err := c.Scan(context.Background(), holder); !errors.Is(err, poap.ErrUnavailable) {
			t.Errorf("Scan() of %s error = %v, want ErrUnavailable", body, err)
		}
	}
}

func TestClient_CrossHostRedirect(t *testing.T) {
	var leaked string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = r.Header.Get("X-API-Key")
		w.Write([]byte("[]"))
	}))
	t.Cleanup(other.Close)
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/elsewhere"
	c := newClient(t, http.RedirectHandler(target, http.StatusFound), poap.Options{})
	_, err := c.Scan(context.Background(), holder)
	var apiErr *poap.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusFound {
		t.Errorf("Scan() error = %v, want an *APIError with status 302", err)
	}
	if leaked != "" {
		t.Errorf("the key reached another host")
	}
}
