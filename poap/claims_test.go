package poap_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
)

// claimEvent is the drop a claim record carries (testdata/claim_*.json).
func claimEvent() poap.Drop {
	d := testDrop()
	d.Description, d.CreatedDate, d.Channel, d.Platform, d.LocationType, d.Image = "", time.Time{}, "", "", "", nil
	return d
}

const hexSecret = "9c2f3d4b7e1a0c5d8f6e2b4a1c3d5e7f9a0b2c4d6e8f1a3c5e7b9d0f2a4c6e8b"

func TestClient_ClaimStatus(t *testing.T) {
	t.Run("Claimed", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, "claim_status_claimed.json"))
		got, err := c.ClaimStatus(context.Background(), "2abwt1")
		if err != nil {
			t.Fatalf("ClaimStatus() error = %v", err)
		}
		want := poap.Claim{
			ID: 13894783, QRHash: "2abwt1", EventID: 175300, Event: claimEvent(), Claimed: true, IsActive: true,
			Beneficiary: alice, UserInput: "alice.eth", Signer: "0xc33557d52ed424a5b7014f06e4d98c4bfc71ef59",
			TxHash:   "0x238b1f8235e7c41e4a4b1bf8e90c9e152d2a772936554090b07865137a39428b",
			TxStatus: "passed", TokenID: "7003126",
			ClaimedDate: time.Date(2025, 3, 7, 18, 2, 40, 512e6, time.UTC),
			CreatedDate: time.Date(2025, 3, 2, 8, 15, 27, 41e6, time.UTC),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ClaimStatus() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("Secret", func(t *testing.T) {
		tests := []struct {
			fixture string
			want    core.Secret
		}{
			{"claim_status.json", ""}, // "NOT_REQUIRED_ANYMORE"
			{"claim_status_no_secret.json", ""},
			{"claim_status_secret.json", hexSecret},
		}
		for _, tc := range tests {
			c, _ := opsClient(t, serveFixture(t, http.StatusOK, tc.fixture))
			got, err := c.ClaimStatus(context.Background(), "k9x4mq")
			if err != nil || got.Secret != tc.want {
				t.Errorf("%s: ClaimStatus() = secret %q, %v; want %q", tc.fixture, got.Secret.Reveal(), err, tc.want.Reveal())
			}
			if strings.Contains(fmt.Sprintf("%v %+v", got, got), hexSecret) {
				t.Errorf("%s: printing the claim reveals its secret", tc.fixture)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, tc := range []struct {
			status  int
			fixture string
		}{{404, "error_404.json"}, {400, "error_claim_not_found.json"}} {
			c, _ := opsClient(t, serveFixture(t, tc.status, tc.fixture))
			if _, err := c.ClaimStatus(context.Background(), "zzzzzz"); !errors.Is(err, poap.ErrNotFound) {
				t.Errorf("ClaimStatus() after %d %s: error = %v, want ErrNotFound", tc.status, tc.fixture, err)
			}
		}
	})
}

// mintFake answers GET /actions/claim-qr with status and POST with mint.
func mintFake(t *testing.T, status, mint string) http.Handler {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("GET /actions/claim-qr", serveFixture(t, http.StatusOK, status))
	mux.Handle("POST /actions/claim-qr", serveFixture(t, http.StatusOK, mint))
	return mux
}

// TestClient_Mint_Secret checks the secret rule: the secret read from the
// status is sent back only when it is a real value.
func TestClient_Mint_Secret(t *testing.T) {
	tests := []struct {
		status string
		want   string // the body's secret; "" means absent
	}{
		{"claim_status.json", ""},
		{"claim_status_no_secret.json", ""},
		{"claim_status_secret.json", hexSecret},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSuffix(tc.status, ".json"), func(t *testing.T) {
			c, rec := opsClient(t, mintFake(t, tc.status, "claim_mint.json"))
			if _, err := c.Mint(context.Background(), poap.MintInput{QRHash: "k9x4mq", Address: alice}); err != nil {
				t.Fatalf("Mint() error = %v", err)
			}
			reqs := rec.all()
			if len(reqs) != 2 || reqs[0].Method != "GET" || reqs[1].Method != "POST" {
				t.Fatalf("requests = %+v, want a status read then a mint", reqs)
			}
			var body map[string]any
			if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
				t.Fatal(err)
			}
			secret, present := body["secret"]
			if tc.want == "" && present || tc.want != "" && secret != tc.want {
				t.Errorf("mint body secret = %v (present %v), want %q", secret, present, tc.want)
			}
			if body["address"] != alice || body["qr_hash"] != "k9x4mq" || body["sendEmail"] != false {
				t.Errorf("mint body = %v, want address, qr_hash and sendEmail false", body)
			}
		})
	}
	t.Run("MintWithSecret", func(t *testing.T) {
		for _, secret := range []core.Secret{"", " ", "NOT_REQUIRED_ANYMORE", "not_required_anymore"} {
			c, rec := opsClient(t, serveFixture(t, http.StatusOK, "claim_mint.json"))
			in := poap.MintInput{QRHash: "k9x4mq", Address: "alice@example.org", SendEmail: true}
			if _, err := c.MintWithSecret(context.Background(), in, secret); err != nil {
				t.Fatalf("MintWithSecret() error = %v", err)
			}
			want := `{"address":"alice@example.org","qr_hash":"k9x4mq","sendEmail":true}`
			checkBody(t, rec.only(t), want)
		}
	})
}

func TestClient_Mint_Refused(t *testing.T) {
	tests := []struct {
		status string
		want   error
	}{
		{"claim_status_claimed.json", poap.ErrQRClaimed},
		{"claim_status_expired.json", poap.ErrQRExpired},
	}
	for _, tc := range tests {
		c, rec := opsClient(t, mintFake(t, tc.status, "claim_mint.json"))
		_, err := c.Mint(context.Background(), poap.MintInput{QRHash: "2abwt1", Address: alice})
		if !errors.Is(err, tc.want) {
			t.Errorf("Mint() with %s: error = %v, want %v", tc.status, err, tc.want)
		}
		if reqs := rec.all(); len(reqs) != 1 || reqs[0].Method != "GET" {
			t.Errorf("Mint() with %s sent %+v, want only the status read", tc.status, reqs)
		}
	}
	t.Run("EmptyAddress", func(t *testing.T) {
		c, rec := opsClient(t, mintFake(t, "claim_status.json", "claim_mint.json"))
		_, err := c.Mint(context.Background(), poap.MintInput{QRHash: "k9x4mq", Address: " "})
		if !errors.Is(err, poap.ErrInvalidAddress) || len(rec.all()) != 0 {
			t.Errorf("Mint() error = %v after %d requests, want ErrInvalidAddress and none", err, len(rec.all()))
		}
	})
	t.Run("StatusNotFound", func(t *testing.T) {
		c, rec := opsClient(t, serveFixture(t, http.StatusNotFound, "error_404.json"))
		_, err := c.Mint(context.Background(), poap.MintInput{QRHash: "zzzzzz", Address: alice})
		if !errors.Is(err, poap.ErrNotFound) || len(rec.all()) != 1 {
			t.Errorf("Mint() error = %v after %d requests, want ErrNotFound after the status read", err, len(rec.all()))
		}
	})
}

func TestClient_Mint_Result(t *testing.T) {
	base := poap.MintResult{
		ID: 13894783, QRHash: "k9x4mq", EventID: 175300, Event: claimEvent(), Beneficiary: alice,
		UserInput: "alice.eth", Signer: "0xc33557d52ed424a5b7014f06e4d98c4bfc71ef59", Claimed: true, IsActive: true,
		ClaimedDate: time.Date(2025, 3, 7, 18, 2, 40, 512e6, time.UTC),
		CreatedDate: time.Date(2025, 3, 2, 8, 15, 27, 41e6, time.UTC),
	}
	current, older := base, base
	current.TransactionRequestID = 29
	older.QueueUID = "c3d7b5e2-41f0-4c8a-9d6e-2b7a1f0e5c93"
	for _, tc := range []struct {
		fixture string
		want    poap.MintResult
	}{{"claim_mint.json", current}, {"claim_mint_queue.json", older}} {
		c, _ := opsClient(t, mintFake(t, "claim_status_secret.json", tc.fixture))
		got, err := c.Mint(context.Background(), poap.MintInput{QRHash: "k9x4mq", Address: alice})
		if err != nil {
			t.Fatalf("Mint() error = %v", err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: Mint() mismatch (-want +got):\n%s", tc.fixture, diff)
		}
	}
	var numeric poap.MintResult
	if err := json.Unmarshal([]byte(`{"queue_uid":12345,"transaction_request_id":"31"}`), &numeric); err != nil ||
		numeric.QueueUID != "12345" || numeric.TransactionRequestID != 31 {
		t.Errorf("Unmarshal(numeric queue_uid) = %+v, %v; want 12345 and 31", numeric, err)
	}
}

// TestClient_Mint_NotRetried checks that a mint failing with a 503 is sent
// once, while the status read before it is retried.
func TestClient_Mint_NotRetried(t *testing.T) {
	var posts, gets atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		} else if gets.Add(1) > 1 {
			serveFixture(t, http.StatusOK, "claim_status.json")(w, r)
			return
		}
		serveFixture(t, http.StatusServiceUnavailable, "error_503.json")(w, r)
	})
	c := newClient(t, h, poap.Options{
		Tokens: fixedTokens{}, Audience: testAudience,
		Retry: poap.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond},
	})
	_, err := c.Mint(context.Background(), poap.MintInput{QRHash: "k9x4mq", Address: alice})
	if !errors.Is(err, poap.ErrUnavailable) || gets.Load() != 2 || posts.Load() != 1 {
		t.Errorf("Mint() = %v after %d reads and %d mints, want ErrUnavailable after 2 and 1", err, gets.Load(), posts.Load())
	}
}
