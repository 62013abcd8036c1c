package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
)

// TestExplain_Delivery: each refusal of a delivery has its own words,
// naming the drop and what to do, and none is the apology of an unknown
// error.
func TestExplain_Delivery(t *testing.T) {
	b, _ := newTestBot(stubIssuer{})
	d := core.Drop{EventID: 4242, Name: "Devcon", EditCode: "482913"}
	tests := []struct {
		command string
		err     error
		want    string
	}{
		{"claim", core.ErrNotListed, "not on the delivery list"},
		{"claim", core.ErrNoDelivery, "none was created for it"},
		{"claim", core.ErrClaimInProgress, "being sent to POAP right now"},
		{"drop deliver", core.ErrDeliveryExists, "has a delivery already"},
		{"drop deliver", core.ErrEmptyDelivery, "No member there has a verified wallet"},
		{"drop deliver", fmt.Errorf("2 members not read: %w", core.ErrRosterIncomplete), "could not check every member's roles"},
		{"drop deliver", core.ErrInvalidSlug, "page address is 1 to 100"},
		{"drop deliver", core.ErrSlugTaken, "another delivery at that page address"},
		{"drop deliver", core.ErrDraftGone, "replaced by a newer one"},
		{"drop deliver", core.ErrWrongEditCode, "refused the edit code stored for drop `4242`"},
		{"drop website", core.ErrWrongEditCode, "refused the edit code stored for drop `4242`"},
		{"drop deliver", core.ErrDraftStale, "out of date"},
		{"drop deliver", &core.BusyError{}, "asked me to slow down"},
		{"drop deliver", core.ErrInvalidWallet, "refused an address on the list"},
	}
	for _, tt := range tests {
		req := &Request{Place: core.Place{Platform: core.Discord}, Command: tt.command, Options: map[string]string{}}
		r, outcome := b.explain(req, &core.DropError{Drop: d, Err: tt.err})
		if !strings.Contains(r.Text, tt.want) || outcome != OutcomeUserError || !r.Personal {
			t.Errorf("%s, %v: %q (%s), want %q, a user error, personal", tt.command, tt.err, r.Text, outcome, tt.want)
		}
		if strings.Contains(r.Text, "482913") {
			t.Errorf("%s, %v: the reply shows the edit code: %q", tt.command, tt.err, r.Text)
		}
	}
	req := &Request{Place: core.Place{Platform: core.Discord}, Command: "drop deliver", Options: map[string]string{"confirm": "7"}}
	if r, _ := b.explain(req, &core.DropError{Drop: d, Err: core.ErrIssuerUnavailable}); !strings.Contains(r.Text, "may or may not have been created") {
		t.Errorf("confirm without POAP's answer: %q", r.Text)
	}
	listed := core.Drop{EventID: 4242, Method: core.ClaimDelivery}
	req = &Request{Place: core.Place{Platform: core.Discord}, Command: "claim", Options: map[string]string{}}
	if r, _ := b.explain(req, &core.DropError{Drop: listed, Wallet: "0x" + strings.Repeat("ab", 20), Err: core.ErrInvalidWallet}); !strings.Contains(r.Text, "The list is fixed") {
		t.Errorf("a listed address POAP refuses: %q", r.Text)
	}
	req = &Request{Command: "drop deliver", Place: core.Place{Platform: core.Telegram}, Chat: Chat{Private: true}, Options: map[string]string{}}
	if r, _ := b.explain(req, core.ErrNotGroup); !strings.Contains(r.Text, "a delivery goes to the members of a group") {
		t.Errorf("/drop deliver in private on Telegram: %q", r.Text)
	}
}
