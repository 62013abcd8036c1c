package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestDropIssuer_Network(t *testing.T) {
	s, di := startDropIssuer(t)
	ctx := context.Background()
	const id = sandbox.DemoLinksDropID
	if got, err := di.Network(ctx, id, sandbox.DemoEditCode); got != core.DefaultChain || err != nil {
		t.Errorf("Network() = %d, %v, want the default %d", got, err, core.DefaultChain)
	}
	if got, err := di.SetNetwork(ctx, id, sandbox.DemoEditCode, 8453); got != 8453 || err != nil {
		t.Fatalf("SetNetwork(8453) = %d, %v, want 8453", got, err)
	}
	if got, err := di.Network(ctx, id, sandbox.DemoEditCode); got != 8453 || err != nil {
		t.Errorf("Network() after SetNetwork = %d, %v, want 8453", got, err)
	}
	if _, err := di.Network(ctx, id, "654321"); !errors.Is(err, core.ErrWrongEditCode) {
		t.Errorf("Network(wrong code) = %v, want core.ErrWrongEditCode", err)
	}
	if _, err := di.SetNetwork(ctx, id, "654321", 137); !errors.Is(err, core.ErrWrongEditCode) {
		t.Errorf("SetNetwork(wrong code) = %v, want core.ErrWrongEditCode", err)
	}
	if _, err := di.Network(ctx, 999999999, sandbox.DemoEditCode); !errors.Is(err, core.ErrUnknownEvent) {
		t.Errorf("Network(unknown drop) = %v, want core.ErrUnknownEvent", err)
	}
	if _, err := di.SetNetwork(ctx, 999999999, sandbox.DemoEditCode, 137); !errors.Is(err, core.ErrUnknownEvent) {
		t.Errorf("SetNetwork(unknown drop) = %v, want core.ErrUnknownEvent", err)
	}
	sent := s.Requests(wire.OpSetMintingNetwork)
	for _, chain := range []int64{1, 0, 10} {
		_, err := di.SetNetwork(ctx, id, sandbox.DemoEditCode, chain)
		if !errors.Is(err, core.ErrUnknownChain) || !errors.Is(err, core.ErrNotSent) || !errors.Is(err, poap.ErrInvalidInput) {
			t.Errorf("SetNetwork(%d) = %v, want core.ErrUnknownChain, not sent", chain, err)
		}
	}
	if n := s.Requests(wire.OpSetMintingNetwork); n != sent {
		t.Errorf("%d requests sent for chains the client refuses, want none", n-sent)
	}
	if chain, _ := s.DropChain(id); chain != 8453 {
		t.Errorf("the sandbox's chain after the refusals = %d, want 8453", chain)
	}
}

// TestDropIssuer_NetworkAnswers: what the service answers that the sandbox
// does not: no chain, several, a chain it refuses.
func TestDropIssuer_NetworkAnswers(t *testing.T) {
	ctx := context.Background()
	answer := func(status int, body string) poap.DropIssuer {
		c, _ := opsClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		return poap.NewDropIssuer(c)
	}
	reads := []struct {
		name, body string
		want       int64
	}{
		{"NoChain", `{"drop_id": 175300}`, core.DefaultChain},
		{"Null", `{"supported_mint_blockchains": null}`, core.DefaultChain},
		{"Several", `{"supported_mint_blockchains": [137, 8453]}`, 137},
		{"Nested", `{"data": {"supported_mint_blockchains": ["42161"]}}`, 42161},
	}
	for _, tt := range reads {
		if got, err := answer(http.StatusOK, tt.body).Network(ctx, 175300, editCode); got != tt.want || err != nil {
			t.Errorf("%s: Network() = %d, %v, want %d", tt.name, got, err, tt.want)
		}
	}
	if got, err := answer(http.StatusOK, `"OK"`).SetNetwork(ctx, 175300, editCode, 59144); got != 59144 || err != nil {
		t.Errorf("SetNetwork() answered without a config = %d, %v, want the chain asked for", got, err)
	}
	refused := answer(http.StatusBadRequest, `{"statusCode":400,"error":"Bad Request","message":"chain id 130 is not supported"}`)
	if _, err := refused.SetNetwork(ctx, 175300, editCode, 130); !errors.Is(err, core.ErrUnknownChain) || errors.Is(err, core.ErrNotSent) {
		t.Errorf("SetNetwork() refused by the service = %v, want core.ErrUnknownChain (sent)", err)
	}
	if _, err := refused.Network(ctx, 175300, editCode); errors.Is(err, core.ErrUnknownChain) {
		t.Errorf("Network() answered 400 = %v, want no core.ErrUnknownChain: a read names no chain", err)
	}
	wrongCode := answer(http.StatusBadRequest, `{"statusCode":400,"error":"Bad Request","message":"Invalid edit code"}`)
	if _, err := wrongCode.SetNetwork(ctx, 175300, editCode, 130); !errors.Is(err, core.ErrWrongEditCode) || errors.Is(err, core.ErrUnknownChain) {
		t.Errorf("SetNetwork() with the code refused = %v, want core.ErrWrongEditCode only", err)
	}
	down := answer(http.StatusServiceUnavailable, `{"message":"down"}`)
	if _, err := down.SetNetwork(ctx, 175300, editCode, 130); !errors.Is(err, core.ErrIssuerUnavailable) {
		t.Errorf("SetNetwork() answered 503 = %v, want core.ErrIssuerUnavailable", err)
	}
}
