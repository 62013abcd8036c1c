package chain_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/poapbot/poapbot/chain"
	"github.com/poapbot/poapbot/core"
)

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// TestClient_Answers reads the endpoint's answers: an outage is
// ErrChainUnavailable whose text names no URL: so is any JSON-RPC error,
// the validator catching whatever a wallet does.
func TestClient_Answers(t *testing.T) {
	for _, tt := range []struct {
		name    string
		status  int
		body    string
		wantErr error
	}{
		{"Status", http.StatusTooManyRequests, `{}`, core.ErrChainUnavailable},
		{"NotJSON", http.StatusOK, `<html>`, core.ErrChainUnavailable},
		{"TooLarge", http.StatusOK, `{"result":"0x` + strings.Repeat("00", chain.MaxResponseBytes) + `"}`, core.ErrChainUnavailable},
		{"RPCError", http.StatusOK, `{"error":{"code":-32005,"message":"rate limited at https://rpc.example/key"}}`, core.ErrChainUnavailable},
		{"NotHex", http.StatusOK, `{"result":"nope"}`, core.ErrChainUnavailable},
		{"Reverted", http.StatusOK, `{"error":{"code":3,"message":"execution reverted"}}`, core.ErrChainUnavailable},
		{"InvalidOpcode", http.StatusOK, `{"error":{"code":-32000,"message":"invalid opcode: INVALID"}}`, core.ErrChainUnavailable},
		{"NotTheValidator", http.StatusOK, `{"result":"0x1626ba7e"}`, core.ErrChainUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(readAll(r), "eth_chainId") {
					fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"0x2105"}`)
					return
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			c, err := chain.NewClient(chain.Options{ID: 8453, URL: srv.URL + "/v2/secret-api-key"})
			if err != nil {
				t.Fatal(err)
			}
			ok, _, err := c.ValidSignature(t.Context(), "0x00000000000000000000000000000000000000aa", make([]byte, 32), make([]byte, 65))
			if ok || !errors.Is(err, tt.wantErr) {
				t.Fatalf("ValidSignature() = %v, %v, want false, %v", ok, err, tt.wantErr)
			}
			if err != nil && containsAny(err.Error(), "secret-api-key", "://") {
				t.Errorf("the error names a URL: %s", err)
			}
		})
	}
}

func readAll(r *http.Request) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// TestClient_ChainIDOnce asks the endpoint which chain it serves once,
// then checks signatures against the id remembered.
func TestClient_ChainIDOnce(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch body := readAll(r); {
		case strings.Contains(body, "eth_chainId"):
			asked.Add(1)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"0x2105"}`)
		default:
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"0x00"}`)
		}
	}))
	defer srv.Close()
	c, err := chain.NewClient(chain.Options{ID: 8453, URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if ok, _, err := c.ValidSignature(t.Context(), "0x00000000000000000000000000000000000000aa", make([]byte, 32), make([]byte, 65)); ok || err != nil {
			t.Fatalf("ValidSignature() = %v, %v, want false, nil", ok, err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("eth_chainId asked %d times, want 1", n)
	}
}

// TestNewClient refuses what is not an endpoint, without naming it.
func TestNewClient(t *testing.T) {
	for _, tt := range []struct {
		id  int64
		url string
	}{
		{1, "ftp://host/key"},
		{1, "not a url key"},
		{0, "https://host/key"},
	} {
		_, err := chain.NewClient(chain.Options{ID: tt.id, URL: tt.url})
		if err == nil || strings.Contains(err.Error(), "key") {
			t.Errorf("NewClient(%d, %q) = %v, want an error naming no URL", tt.id, tt.url, err)
		}
	}
	c, err := chain.NewClient(chain.Options{ID: 100, URL: "https://rpc.example:8545/secret"})
	if err != nil || c.Endpoint() != "rpc.example" || c.Chain() != 100 {
		t.Errorf("NewClient() = %v %q %d, want rpc.example, chain 100", err, c.Endpoint(), c.Chain())
	}
}
