package poap_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// momentAuthor is the creator of the test Moments, in EIP-55 form.
const momentAuthor = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

// pngContent is a small file the sandbox sniffs as a PNG image.
var pngContent = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1, 2, 3, 250}, 500)...)

// momentTokens is a TokenSource that hands out one fixed token.
type momentTokens core.Secret

func (m momentTokens) Token(context.Context, string) (core.Secret, error) { return core.Secret(m), nil }

func (m momentTokens) Renew(context.Context, string, core.Secret) (core.Secret, error) {
	return core.Secret(m), nil
}

// startMomentsSandbox serves a sandbox with one drop on loopback and returns
// it, a client for its Moments and query services, and the drop's id. The
// client has no rate limit and fast retries. The sandbox keeps its media
// files in a test directory, and is closed when the test ends.
func startMomentsSandbox(tb testing.TB, opts sandbox.Options) (*sandbox.Server, *poap.Client, int64) {
	tb.Helper()
	if opts.MediaDir == "" {
		opts.MediaDir = tb.TempDir()
	}
	s := sandbox.New(opts)
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("sandbox Close() error = %v", err)
		}
	})
	day := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	drop := s.AddDrop(sandbox.Drop{Name: "Moments", StartDate: day, EndDate: day, ExpiryDate: day.AddDate(1, 0, 0)})
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{
		BaseURL: srv.URL, MomentsURL: srv.URL, CompassURL: srv.URL + "/v1/graphql",
		MomentsAudience: sandbox.DefaultMomentsAudience,
		Tokens:          momentTokens(s.IssueToken(sandbox.DefaultMomentsAudience)),
		Timeout:         30 * time.Second, RateLimit: -1,
		Retry: poap.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return s, c, drop.ID
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestClient_PostMoment(t *testing.T) {
	s, c, dropID := startMomentsSandbox(t, sandbox.Options{})
	other := append([]byte("\x89PNG\r\n\x1a\n"), "another picture"...)
	start := time.Now().Add(-time.Second)
	m, err := c.PostMoment(context.Background(),
		poap.MomentInput{Author: momentAuthor, DropIDs: []int64{dropID}, Description: "gm from the venue"},
		poap.MediaFile{Reader: bytes.NewReader(pngContent), Size: int64(len(pngContent)), ContentType: "image/png"},
		poap.MediaFile{Reader: io.MultiReader(bytes.NewReader(other)), Size: int64(len(other)), ContentType: "image/png"})
	if err != nil {
		t.Fatalf("PostMoment() error = %v", err)
	}
	want := poap.Moment{ID: m.ID, Author: strings.ToLower(momentAuthor), CreatedOn: m.CreatedOn, DropIDs: []int64{dropID}, Description: "gm from the venue"}
	if diff := cmp.Diff(want, m); diff != "" || m.ID == "" || m.CreatedOn.Before(start) {
		t.Errorf("PostMoment() diff (-want +got):\n%s", diff)
	}
	published := s.Moments()
	if len(published) != 1 || len(published[0].MediaKeys) != 2 {
		t.Fatalf("sandbox Moments() = %+v, want one Moment with two media", published)
	}
	for i, content := range [][]byte{pngContent, other} {
		if media, _ := s.Media(published[0].MediaKeys[i]); media.Hash != sha256Hex(content) || media.MomentID != m.ID {
			t.Errorf("media %d = %+v, want the hash of the file, attached", i, media)
		}
	}
}

func TestClient_CreateMoment_Errors(t *testing.T) {
	s, c, dropID := startMomentsSandbox(t, sandbox.Options{})
	ctx := context.Background()
	used, err := c.UploadMedia(ctx, bytes.NewReader(pngContent), int64(len(pngContent)), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateMoment(ctx, poap.MomentInput{Author: momentAuthor, DropIDs: []int64{dropID}, MediaKeys: []string{used}}); err != nil {
		t.Fatalf("CreateMoment() error = %v", err)
	}
	input := func(edit func(*poap.MomentInput)) poap.MomentInput {
		in := poap.MomentInput{Author: momentAuthor, DropIDs: []int64{dropID}}
		edit(&in)
		return in
	}
	tests := []struct {
		name     string
		in       poap.MomentInput
		want     error
		wantSent bool
	}{
		{"MediaAttached", input(func(in *poap.MomentInput) { in.MediaKeys = []string{used} }), poap.ErrMediaInvalid, true},
		{"UnknownMedia", input(func(in *poap.MomentInput) { in.MediaKeys = []string{"d4c1a0f2-5b3e-4c6d-8e9f-0a1b2c3d4e5f"} }), poap.ErrMediaInvalid, true},
		{"UnknownDrop", input(func(in *poap.MomentInput) { in.DropIDs = []int64{1} }), poap.ErrNotFound, true},
		{"LongDescription", input(func(in *poap.MomentInput) { in.Description = strings.Repeat("ü", 601) }), poap.ErrInvalidInput, false},
		{"NoDrop", input(func(in *poap.MomentInput) { in.DropIDs = nil }), poap.ErrInvalidInput, false},
		{"EmptyUserTag", input(func(in *poap.MomentInput) { in.UserTags = []poap.UserTag{{}} }), poap.ErrInvalidInput, false},
		{"BadAuthor", input(func(in *poap.MomentInput) { in.Author = "vitalik.eth" }), poap.ErrInvalidAddress, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := s.Requests(wire.OpCreateMoment)
			_, err := c.CreateMoment(ctx, tc.in)
			if !errors.Is(err, tc.want) {
				t.Errorf("CreateMoment() error = %v, want %v", err, tc.want)
			}
			if sent := s.Requests(wire.OpCreateMoment) > before; sent != tc.wantSent {
				t.Errorf("CreateMoment() sent a request: %v, want %v", sent, tc.wantSent)
			}
		})
	}
	_, err = c.CreateMoment(ctx, input(func(in *poap.MomentInput) { in.MediaKeys = []string{used} }))
	var apiErr *poap.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusConflict || !strings.Contains(apiErr.Message, used) {
		t.Errorf("CreateMoment() error = %v, want an APIError 409 naming the media", err)
	}
	if _, err := c.CreateMoment(ctx, input(func(in *poap.MomentInput) { in.Description = strings.Repeat("ü", 600) })); err != nil {
		t.Errorf("CreateMoment() with 600 characters: error = %v", err)
	}
}

func TestClient_Moments_NotConfigured(t *testing.T) {
	c, err := poap.NewClient(poap.Options{BaseURL: "http://127.0.0.1:1", Tokens: momentTokens("t")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.UploadMedia(ctx, bytes.NewReader(pngContent), int64(len(pngContent)), "image/png"); err == nil {
		t.Error("UploadMedia() without MomentsURL: no error")
	}
	if _, err := c.CreateMoment(ctx, poap.MomentInput{Author: momentAuthor, DropIDs: []int64{1}}); err == nil {
		t.Error("CreateMoment() without MomentsURL: no error")
	}
	if _, err := c.Moments(ctx, poap.MomentsQuery{}); err == nil {
		t.Error("Moments() without CompassURL: no error")
	}
}

func TestClient_CreateMoment_NoTokens(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Options{}))
	t.Cleanup(srv.Close)
	c, err := poap.NewClient(poap.Options{BaseURL: srv.URL, MomentsURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateMoment(context.Background(), poap.MomentInput{Author: momentAuthor, DropIDs: []int64{1}})
	if !errors.Is(err, poap.ErrUnauthorized) {
		t.Errorf("CreateMoment() without tokens: error = %v, want ErrUnauthorized", err)
	}
}
