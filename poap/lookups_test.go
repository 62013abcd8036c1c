package poap_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestClient_TokenInfo(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "token_info.json"))
	got, err := c.TokenInfo(context.Background(), "7003126")
	if err != nil {
		t.Fatalf("TokenInfo() error = %v", err)
	}
	event := testDrop()
	event.Description, event.VirtualEvent, event.EventTemplateID, event.PrivateEvent = "", false, nil, false
	event.CreatedDate, event.Channel, event.Platform, event.LocationType = time.Time{}, "", "", ""
	want := poap.TokenInfo{
		Event: event, TokenID: "7003126", Owner: alice, Layer: "Layer2", Chain: "xdai",
		Created: utc(2025, 3, 7, 18, 2, 51), Supply: poap.TokenSupply{Total: 8, Order: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TokenInfo() mismatch (-want +got):\n%s", diff)
	}
}

func TestClient_TransactionRequest(t *testing.T) {
	tests := []struct {
		fixture      string
		want         poap.TransactionRequest
		done, failed bool
	}{
		{"tx_request.json", poap.TransactionRequest{
			Operation: "mintToken", Status: poap.TxRequestFinish,
			TxHash: "0x5e0c9a4b7d2f1e3a6b8c0d2e4f6a8b0c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f0a",
		}, true, false},
		{"tx_request_pending.json", poap.TransactionRequest{
			UID: "0b7c3e1a-2d4f-4a6b-8c9d-1e2f3a4b5c6d", Operation: "mintDeliveryTokenV2", Status: poap.TxRequestInProcessWorker,
		}, false, false},
	}
	for _, tc := range tests {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, tc.fixture))
		got, err := c.TransactionRequest(context.Background(), 29)
		if err != nil {
			t.Fatalf("%s: TransactionRequest() error = %v", tc.fixture, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: TransactionRequest() mismatch (-want +got):\n%s", tc.fixture, diff)
		}
		if got.Done() != tc.done || got.Failed() != tc.failed {
			t.Errorf("%s: Done(), Failed() = %v, %v, want %v, %v", tc.fixture, got.Done(), got.Failed(), tc.done, tc.failed)
		}
	}
}

func TestClient_MintingConfig(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "minting_config.json"))
	got, err := c.MintingConfig(context.Background(), 175300, editCode)
	if err != nil {
		t.Fatalf("MintingConfig() error = %v", err)
	}
	want := poap.MintingConfig{Chains: []int64{8453}, Raw: json.RawMessage(fixture(t, "minting_config.json"))}
	if diff := cmp.Diff(want, got, cmp.Comparer(sameJSON)); diff != "" {
		t.Errorf("MintingConfig() mismatch (-want +got):\n%s", diff)
	}
	var nested poap.MintingConfig
	if err := json.Unmarshal([]byte(`{"data":{"supported_mint_blockchains":["137"]}}`), &nested); err != nil ||
		!cmp.Equal(nested.Chains, []int64{137}) {
		t.Errorf("Unmarshal(nested) = %v, %v, want chains [137]", nested.Chains, err)
	}
	var text poap.MintingConfig
	if err := json.Unmarshal([]byte(`"OK"`), &text); err != nil || text.Chains != nil || string(text.Raw) != `"OK"` {
		t.Errorf("Unmarshal(\"OK\") = %+v, %v, want the raw answer and no chains", text, err)
	}
}

// sameJSON reports whether two raw JSON values hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}

func TestClient_SetMintingNetwork(t *testing.T) {
	for id, chain := range wire.Chains {
		if chain.Name == "" || chain.Network == "" {
			t.Errorf("Chains[%d] = %+v, want a name and a network", id, chain)
		}
	}
	if wire.Chains[wire.DefaultChain].Name != "Gnosis" || len(wire.Chains) != 10 {
		t.Errorf("Chains = %v, want the 10 networks with Gnosis as the default", wire.Chains)
	}
	for _, chain := range []int64{1, 0, 10, 56} {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "minting_config.json"))
		_, err := c.SetMintingNetwork(context.Background(), 175300, editCode, chain)
		if !errors.Is(err, poap.ErrInvalidInput) || len(rec.all()) != 0 || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("SetMintingNetwork(%d) error = %v after %d requests, want a clear refusal and none", chain, err, len(rec.all()))
		}
	}
	c, rec := opsClient(t, serveFixture(t, http.StatusOK, "minting_config.json"))
	if _, err := c.SetMintingNetwork(context.Background(), 175300, "12a456", 8453); !errors.Is(err, poap.ErrInvalidEditCode) || len(rec.all()) != 0 {
		t.Errorf("SetMintingNetwork() with a bad code: error = %v, want ErrInvalidEditCode before sending", err)
	}
}
