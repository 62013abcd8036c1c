package poap

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// circuitKey is the API key of the circuit tests.
const circuitKey = "circuit-key"

// TestClient_Circuit: in a storm of 503s the client stops sending after
// DefaultCircuitFailures failed attempts in a row: later calls fail at once
// with ErrCircuitOpen (which is ErrUnavailable, and ErrNotSent) and reach
// nothing; after the cooldown one call probes, and the circuit closes when
// the service answers, or holds again when it still fails.
func TestClient_Circuit(t *testing.T) {
	sb := sandbox.New(sandbox.Options{APIKey: circuitKey})
	sb.SeedDemo()
	c, clock := newTestClient(t, sb, Options{APIKey: circuitKey, RateLimit: -1})
	scan := func() error {
		_, err := c.Scan(t.Context(), sandbox.DemoWallet)
		return err
	}
	sb.FailNext(1000, http.StatusServiceUnavailable)
	for i := range 2 {
		if err := scan(); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("scan %d in the storm = %v, want ErrUnavailable", i+1, err)
		}
	}
	sent := sb.Requests(wire.OpScan)
	if sent != DefaultCircuitFailures {
		t.Errorf("the storm took %d requests before the circuit opened, want %d", sent, DefaultCircuitFailures)
	}
	for range 10 {
		if err := scan(); !errors.Is(err, ErrCircuitOpen) || !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrNotSent) {
			t.Fatalf("scan with the circuit open = %v, want ErrCircuitOpen, ErrUnavailable and ErrNotSent", err)
		}
	}
	if n := sb.Requests(wire.OpScan); n != sent {
		t.Errorf("%d requests reached the service with the circuit open, want none", n-sent)
	}

	// Still failing at the probe: held again, after one request.
	clock.Add(DefaultCircuitCooldown)
	if err := scan(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("the probe = %v, want ErrUnavailable", err)
	}
	if err := scan(); !errors.Is(err, ErrCircuitOpen) {
		t.Errorf("scan after a failed probe = %v, want ErrCircuitOpen", err)
	}
	if n := sb.Requests(wire.OpScan); n != sent+1 {
		t.Errorf("%d requests after the failed probe, want the probe's one", n-sent)
	}

	// The service is back: the next probe closes the circuit.
	sb.FailNext(0, 0)
	clock.Add(DefaultCircuitCooldown + time.Second)
	for i := range 3 {
		if err := scan(); err != nil {
			t.Errorf("scan %d after the service came back = %v, want nil", i+1, err)
		}
	}
}

// TestClient_Circuit_Answers: answers below 500, a 404 or a 400, are the
// service at work and never open the circuit.
func TestClient_Circuit_Answers(t *testing.T) {
	sb := sandbox.New(sandbox.Options{APIKey: circuitKey})
	c, _ := newTestClient(t, sb, Options{APIKey: circuitKey, RateLimit: -1})
	sb.FailNext(3*DefaultCircuitFailures, http.StatusBadRequest)
	for range 3 * DefaultCircuitFailures {
		if _, err := c.Scan(t.Context(), sandbox.DemoWallet); errors.Is(err, ErrCircuitOpen) {
			t.Fatalf("Scan() = %v after 400s, want the circuit closed", err)
		}
	}
}
