package bot

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// TestBot_ExplainRefusals: each refusal of the issuing service and of
// Moments has its own words, and none says the service is not answering.
func TestBot_ExplainRefusals(t *testing.T) {
	drop := core.Drop{EventID: 197001, Name: "Sandbox Demo Drop"}
	websiteDrop := drop
	websiteDrop.Method, websiteDrop.Website = core.ClaimWebsite, "sandbox-demo-website"
	refused := core.NewIssuerRefusal(422, "body/count must be <= 5000", false)
	tests := []struct {
		name    string
		command string
		options map[string]string
		err     error
		want    []string
	}{
		{"WebsiteExistsNamed", "drop website", nil,
			&core.DropError{Drop: drop, Err: fmt.Errorf("%w: poap", &core.WebsiteExistsError{Name: "sandbox-demo-website"})},
			[]string{"already has the website claim `sandbox-demo-website`", "nothing was changed", "`/drop add 197001 <edit_code> delivery:website website:sandbox-demo-website`"}},
		{"WebsiteExistsHere", "drop website", nil,
			&core.DropError{Drop: websiteDrop, Err: &core.WebsiteExistsError{}},
			[]string{"already has its website claim `sandbox-demo-website`", "it mints through it here", "`/drop info 197001`"}},
		{"WebsiteExistsUnnamed", "drop website", nil,
			&core.DropError{Drop: drop, Err: &core.WebsiteExistsError{}},
			[]string{"already has a website claim", "end of its poap.website address", "website:<claim_name>"}},
		{"ClaimNameTaken", "drop website", map[string]string{"claim_name": "taken-name"},
			&core.DropError{Drop: drop, Err: core.ErrClaimNameTaken},
			[]string{"`taken-name` is taken by another claim", "nothing was changed", "Choose another name"}},
		{"Refused", "drop topup", nil, &core.DropError{Drop: drop, Err: fmt.Errorf("%w: poap", refused)},
			[]string{"POAP refused that request (status 422: `body/count must be <= 5000`), so nothing was changed"}},
		{"RefusedMint", "claim", nil,
			&core.DropError{Drop: drop, Err: fmt.Errorf("the mint did not go through (%w): %w", refused, core.ErrIssuerUnavailable)},
			[]string{"POAP refused the mint (status 422", "nothing was minted"}},
		{"RefusedMoment", "moment", nil, core.NewIssuerRefusal(400, "", true),
			[]string{"POAP Moments refused the post (status 400), so nothing was posted"}},
		{"Busy", "drop refresh", nil, fmt.Errorf("%w: %w", core.ErrIssuerUnavailable, &core.BusyError{RetryAfter: 30 * time.Second}),
			[]string{"POAP asked me to slow down", "nothing was changed", "in 30 seconds"}},
		{"BusyClaim", "claim", nil, fmt.Errorf("%w: %w", core.ErrIssuerUnavailable, &core.BusyError{RetryAfter: 3 * time.Minute}),
			[]string{"nothing was minted", "again in 3 minutes"}},
		{"MediaChanged", "moment", nil, &core.MediaError{Name: "booth.png", Problem: core.MediaChanged, Err: core.ErrMediaChanged},
			[]string{"File 1 (`booth.png`) changed while it was uploading, so nothing was posted. Please post it again."}},
		{"MediaNotFile", "moment", nil, &core.MediaError{Name: "fifo", Problem: core.MediaUnreadable, Err: fmt.Errorf("fifo is a named pipe: %w", core.ErrMediaNotFile)},
			[]string{"File 1 (`fifo`) is not a file", "nothing was uploaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBot(stubIssuer{})
			req := &Request{Place: core.Place{Platform: core.Console}, Command: tt.command, Options: tt.options}
			reply, outcome := b.explain(req, tt.err)
			for _, w := range tt.want {
				if !strings.Contains(reply.Text, w) {
					t.Errorf("explain(%v) = %q, want it to contain %q", tt.err, reply.Text, w)
				}
			}
			if strings.Contains(reply.Text, "not answering") || strings.Contains(reply.Text, "did not answer") || outcome != OutcomeUserError {
				t.Errorf("explain(%v) = %q (%s), want a refusal, told as one", tt.err, reply.Text, outcome)
			}
		})
	}
	if !errors.Is(refused, core.ErrIssuerRefused) {
		t.Error("an IssuerRefusal does not match core.ErrIssuerRefused")
	}
}
