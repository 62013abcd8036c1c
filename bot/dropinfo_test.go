package bot

import (
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
)

// TestDropInfoText: /drop info shows what applies to the drop's delivery:
// the mint links' stock for the methods that use links, the website claim
// and no stock for a website drop, the delivery and no stock for a
// delivery drop.
func TestDropInfoText(t *testing.T) {
	stock := core.Stock{Total: 10, Available: 7, HandedOut: 3}
	website := &core.WebsiteInfo{Name: "party-site", Status: core.WebsiteStatus{Name: "party-site", Active: true, Total: 20, Claimed: 4}, Claims: core.WebsiteStats{Minted: 4}}
	delivery := &core.DeliveryInfo{URL: "https://poap.delivery/party", Delivery: core.DropDelivery{Slug: "party", Size: 3}, Status: core.DeliveryStatus{Active: true, Claimed: 1, Total: 3}}
	tests := []struct {
		name     string
		st       core.DropStatus
		want     []string
		wantNone []string
	}{
		{"Link", core.DropStatus{Drop: core.Drop{EventID: 1, Name: "Party", Method: core.ClaimLink}, Stock: stock},
			[]string{"Mint links: 10 in total · 7 available · 3 handed out"}, []string{"Website claim", "Delivery page"}},
		{"Auto", core.DropStatus{Drop: core.Drop{EventID: 1, Name: "Party", Method: core.ClaimAuto}, Stock: stock},
			[]string{"Mint links: 10 in total"}, nil},
		{"Mint", core.DropStatus{Drop: core.Drop{EventID: 1, Name: "Party", Method: core.ClaimMint}, Stock: stock},
			[]string{"Mint links: 10 in total"}, nil},
		{"Website", core.DropStatus{Drop: core.Drop{EventID: 1, Name: "Party", Method: core.ClaimWebsite, Website: "party-site"}, Stock: stock, Website: website},
			[]string{"Website claim `party-site`: active; 4 of 20 minted.", "Claims here: 4 minted"}, []string{"Mint links", "links left", "available"}},
		{"Delivery", core.DropStatus{Drop: core.Drop{EventID: 1, Name: "Party", Method: core.ClaimDelivery}, Stock: stock, Delivery: delivery},
			[]string{"Delivery page: https://poap.delivery/party · 3 addresses", "POAP counts 1 of 3 claimed"}, []string{"Mint links", "available"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dropInfoText(tc.st, true)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("dropInfoText() lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(got, w) {
					t.Errorf("dropInfoText() has %q, which does not apply:\n%s", w, got)
				}
			}
		})
	}
}
