package poap_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// websiteAsk is a website request of the demo drop with the given name.
func websiteAsk(eventID int64, code core.Secret, name string) core.WebsiteRequest {
	return core.WebsiteRequest{EventID: eventID, EditCode: code, Name: name, From: "00:00", To: "23:59", Count: 10}
}

// TestDropIssuer_WebsiteRefusals: each refusal of POST /secret-requests the
// sandbox answers has its own core error, none of them "unavailable".
func TestDropIssuer_WebsiteRefusals(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	day := time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	other := s.AddDrop(sandbox.Drop{Name: "Other", StartDate: day, EndDate: day, ExpiryDate: day.AddDate(1, 0, 0), EditCode: "222222"})
	tests := []struct {
		name     string
		in       core.WebsiteRequest
		want     error
		wantName string
	}{
		{"ExistsOtherName", websiteAsk(sandbox.DemoLinksDropID, sandbox.DemoEditCode, "another-site"), core.ErrWebsiteExists, sandbox.DemoWebsite},
		{"ExistsSameName", websiteAsk(sandbox.DemoLinksDropID, sandbox.DemoEditCode, sandbox.DemoWebsite), core.ErrWebsiteExists, sandbox.DemoWebsite},
		{"NameTaken", websiteAsk(other.ID, "222222", sandbox.DemoWebsite), core.ErrClaimNameTaken, ""},
		{"WrongEditCode", websiteAsk(sandbox.DemoLinksDropID, "654321", "another-site"), core.ErrWrongEditCode, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := di.RequestWebsite(ctx, tc.in)
			if !errors.Is(err, tc.want) || errors.Is(err, core.ErrIssuerUnavailable) {
				t.Fatalf("RequestWebsite() = %v, want %v and not core.ErrIssuerUnavailable", err, tc.want)
			}
			var exists *core.WebsiteExistsError
			if errors.As(err, &exists) && exists.Name != tc.wantName {
				t.Errorf("RequestWebsite() names the claim %q, want %q", exists.Name, tc.wantName)
			}
		})
	}
}

// TestDropIssuer_Refusal: a 4xx no sentinel names is a *core.IssuerRefusal
// with the service's words; a 5xx and a 429 are not refusals.
func TestDropIssuer_Refusal(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	s.FailNextOp(wire.OpRequestMintLinks, 1, http.StatusUnprocessableEntity)
	err := di.RequestMintLinks(ctx, sandbox.DemoLinksDropID, sandbox.DemoEditCode, 10)
	var refused *core.IssuerRefusal
	if !errors.As(err, &refused) || refused.Status != 422 || refused.Message != "Unprocessable Entity" || refused.Moments ||
		errors.Is(err, core.ErrIssuerUnavailable) || !errors.Is(err, core.ErrIssuerRefused) {
		t.Errorf("RequestMintLinks() answered 422 = %v, want an IssuerRefusal 422 \"Unprocessable Entity\" only", err)
	}

	c := clientOf(t, s)
	s.FailNextOp(wire.OpRequestMintLinks, 1, http.StatusServiceUnavailable)
	err = poap.NewDropIssuer(c).RequestMintLinks(ctx, sandbox.DemoLinksDropID, sandbox.DemoEditCode, 10)
	if !errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrIssuerRefused) {
		t.Errorf("RequestMintLinks() answered 503 = %v, want core.ErrIssuerUnavailable, no refusal", err)
	}

	s.FailNextOp(wire.OpDrop, 1, http.StatusTooManyRequests)
	_, err = poap.NewDropIssuer(c).DropDetails(ctx, sandbox.DemoLinksDropID)
	var busy *core.BusyError
	if !errors.As(err, &busy) || busy.RetryAfter != time.Second || !errors.Is(err, core.ErrIssuerUnavailable) || errors.Is(err, core.ErrIssuerRefused) {
		t.Errorf("DropDetails() answered 429 = %v, want a BusyError of 1s that is also unavailable", err)
	}

	// A refusal in the backend's own shape: the drop has no secret word
	// to add codes to.
	_, err = c.RequestMintLinks(ctx, poap.RedeemRequest{EventID: sandbox.DemoLinksDropID, Count: 5, EditCode: sandbox.DemoEditCode, Type: poap.RedeemSecretWord})
	err = poap.CoreError(err)
	if !errors.As(err, &refused) || refused.Status != 400 || !strings.Contains(refused.Message, "the drop has no word claim to add codes to") {
		t.Errorf("RequestMintLinks(word, no word claim) = %v, want an IssuerRefusal 400 quoting the sandbox", err)
	}
}

// clientOf is a client of the sandbox s with a token of its audience.
func clientOf(t *testing.T, s *sandbox.Server) *poap.Client {
	t.Helper()
	c := newClient(t, s, poap.Options{
		APIKey: testKey, Audience: sandbox.DefaultAudience, Tokens: momentTokens(s.IssueToken(sandbox.DefaultAudience)),
		RateLimit: -1, Retry: noRetry,
	})
	return c
}

// TestDropIssuer_RefusalSafe: the service's words are quoted without the
// edit code or the key it echoes, without control characters, bounded.
func TestDropIssuer_RefusalSafe(t *testing.T) {
	body := `{"statusCode":400,"error":"Bad Request","message":"secret_code 123456 with key ` + testKey +
		` refused\u0000\u001b[31m for ` + strings.Repeat("x", 300) + ` and ` + strings.Repeat("long words ", 30) + `"}`
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(body))
	})
	c, _ := opsClient(t, h)
	_, err := poap.NewDropIssuer(c).MintLinks(context.Background(), 197001, "123456")
	var refused *core.IssuerRefusal
	if !errors.As(err, &refused) {
		t.Fatalf("MintLinks() = %v, want an IssuerRefusal", err)
	}
	msg := refused.Message
	if strings.Contains(msg, "123456") || strings.Contains(msg, testKey) || strings.ContainsAny(msg, "\x00\x1b") ||
		strings.Contains(msg, strings.Repeat("x", 40)) || len([]rune(msg)) > core.MaxRefusalMessage+1 {
		t.Errorf("refusal message = %q, want no secret, no control character, no long token, at most %d characters", msg, core.MaxRefusalMessage)
	}
	if !strings.HasPrefix(msg, "secret_code [redacted] with key [redacted] refused") {
		t.Errorf("refusal message = %q, want the service's words with the secrets blanked out", msg)
	}
}

// TestMomentIssuer_MediaChanged: a file that grows or shrinks while it
// uploads is core.ErrMediaChanged, not an unavailable service.
func TestMomentIssuer_MediaChanged(t *testing.T) {
	_, c, _ := startMomentsSandbox(t, sandbox.Options{})
	m := poap.NewMomentIssuer(c)
	for name, size := range map[string]int64{"Grew": 10, "Shrank": 100} {
		t.Run(name, func(t *testing.T) {
			r := struct{ *bytes.Reader }{bytes.NewReader(bytes.Repeat([]byte{0x89}, 50))}
			_, err := m.UploadMedia(context.Background(), r, size, "image/png")
			if !errors.Is(err, core.ErrMediaChanged) || errors.Is(err, core.ErrIssuerUnavailable) {
				t.Errorf("UploadMedia(50 bytes, size %d) = %v, want core.ErrMediaChanged only", size, err)
			}
		})
	}
}

// TestMomentIssuer_Refusal: a Moment Moments refuses with a 4xx is an
// IssuerRefusal of Moments, which the post does not wait on.
func TestMomentIssuer_Refusal(t *testing.T) {
	_, c, _ := startMomentsSandbox(t, sandbox.Options{})
	m := poap.NewMomentIssuer(c)
	_, err := m.CreateMoment(context.Background(), core.NewMoment{Author: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", DropID: 987654321, MediaKeys: []string{"k"}})
	var refused *core.IssuerRefusal
	if !errors.As(err, &refused) || !refused.Moments || refused.Status != 404 || errors.Is(err, core.ErrIssuerUnavailable) {
		t.Errorf("CreateMoment(unknown drop) = %v, want an IssuerRefusal of Moments, 404", err)
	}
}

// TestAPIError_SecretRefusals: the words of a secret request refused for
// a claim the drop has, or a name taken, in 400 and 409 answers, match
// their sentinels and no other.
func TestAPIError_SecretRefusals(t *testing.T) {
	tests := []struct {
		op      string
		status  int
		message string
		want    error
	}{
		{wire.OpCreateSecretRequest, 400, `the drop already has a website claim "x"; change it with PUT /secret-requests`, poap.ErrSecretExists},
		{wire.OpCreateSecretRequest, 409, "Event already has a website", poap.ErrSecretExists},
		{wire.OpCreateSecretRequest, 400, `claim_name "x" is already taken`, poap.ErrClaimNameTaken},
		{wire.OpEditSecretRequest, 409, "Claim name already exists", poap.ErrClaimNameTaken},
		{wire.OpCreateSecretRequest, 400, "Invalid edit code", poap.ErrInvalidEditCode},
		{wire.OpCreateDelivery, 400, `slug "x" is already taken`, poap.ErrSlugTaken},
		{wire.OpCreateSecretRequest, 422, "claim_name is already taken", nil},
	}
	for _, tc := range tests {
		e := &poap.APIError{Operation: tc.op, Status: tc.status, Message: tc.message}
		for _, s := range []error{poap.ErrSecretExists, poap.ErrClaimNameTaken, poap.ErrInvalidEditCode, poap.ErrSlugTaken} {
			if got := errors.Is(e, s); got != (s == tc.want) {
				t.Errorf("errors.Is(%s %d %q, %v) = %v, want %v", tc.op, tc.status, tc.message, s, got, s == tc.want)
			}
		}
	}
}
