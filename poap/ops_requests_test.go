package poap_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

// alice is the collector of the operation tests.
const alice = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

// editCode is the drop edit code of the operation tests.
const editCode = "123456"

// TestClient_Requests checks what each operation sends: method, path, query,
// credentials, content type and body, and the operation name it reports.
func TestClient_Requests(t *testing.T) {
	for _, tc := range opCalls() {
		t.Run(tc.name, func(t *testing.T) {
			rec, obs := &capture{}, &recorder{}
			c := newClient(t, rec.wrap(serveFixture(t, http.StatusOK, tc.fixture)), poap.Options{
				Tokens: fixedTokens{}, Audience: testAudience, Observer: obs,
			})
			if err := tc.call(context.Background(), c); err != nil {
				t.Fatalf("%s: error = %v", tc.name, err)
			}
			got := rec.only(t)
			if got.Method != tc.method || got.Path != tc.path || got.Query != tc.query {
				t.Errorf("request = %s %s?%s, want %s %s?%s", got.Method, got.Path, got.Query, tc.method, tc.path, tc.query)
			}
			wantAuth := ""
			if tc.bearer {
				wantAuth = "Bearer " + testBearer
			}
			if got.APIKey != testKey || got.Authorization != wantAuth {
				t.Errorf("X-API-Key = %q, Authorization = %q, want %q and %q", got.APIKey, got.Authorization, testKey, wantAuth)
			}
			checkBody(t, got, tc.body)
			if o := obs.observations(); len(o) != 1 || o[0].Operation != tc.op {
				t.Errorf("observations = %+v, want one of %q", o, tc.op)
			}
		})
	}
}

// opCall is one call of an operation with valid input, what it must send
// and the fixture that answers it.
type opCall struct {
	name    string
	fixture string
	call    func(context.Context, *poap.Client) error
	op      string
	method  string
	path    string
	query   string
	bearer  bool
	body    string // JSON, compared as values; "" means no body
}

// opCalls lists a call of every JSON operation beyond the scans.
func opCalls() []opCall {
	notify := false
	return []opCall{
		{"Drop", "drop.json", func(ctx context.Context, c *poap.Client) error { _, err := c.Drop(ctx, 175300); return err },
			wire.OpDrop, "GET", "/events/id/175300", "", false, ""},
		{"DropByFancyID", "drop.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.DropByFancyID(ctx, "poapbot-test-drop-1-of-3-2025")
			return err
		}, wire.OpDropByFancyID, "GET", "/events/poapbot-test-drop-1-of-3-2025", "", false, ""},
		{"Drops", "drops_page.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.Drops(ctx, poap.DropsQuery{Limit: 2, Offset: 40, SortField: "start_date", SortDir: "desc"})
			return err
		}, wire.OpDrops, "GET", "/paginated-events", "limit=2&offset=40&sort_dir=desc&sort_field=start_date", false, ""},
		{"DropsDefaults", "drops_page.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.Drops(ctx, poap.DropsQuery{})
			return err
		}, wire.OpDrops, "GET", "/paginated-events", "", false, ""},
		{"TokenInfo", "token_info.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.TokenInfo(ctx, "7003126")
			return err
		}, wire.OpTokenInfo, "GET", "/token/7003126", "", false, ""},
		{"HoldersPage", "holders_page.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.HoldersPage(ctx, 175300, 600, 0)
			return err
		}, wire.OpHolders, "GET", "/event/175300/poaps", "limit=300&offset=600", false, ""},
		{"MintLinks", "mint_links.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.MintLinks(ctx, 175300, editCode)
			return err
		}, wire.OpMintLinks, "POST", "/event/175300/qr-codes", "", true, `{"secret_code":"123456"}`},
		{"ValidateEditCode", "validate_valid.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.ValidateEditCode(ctx, 175300, editCode)
			return err
		}, wire.OpValidateEditCode, "POST", "/event/validate", "", true, `{"event_id":175300,"secret_code":"123456"}`},
		{"ClaimStatus", "claim_status.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.ClaimStatus(ctx, "k9x4mq")
			return err
		}, wire.OpClaimStatus, "GET", "/actions/claim-qr", "qr_hash=k9x4mq", true, ""},
		{"MintWithSecret", "claim_mint.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.MintWithSecret(ctx, poap.MintInput{QRHash: "k9x4mq", Address: alice}, "9c2f3d4b")
			return err
		}, wire.OpMint, "POST", "/actions/claim-qr", "", true,
			`{"address":"` + alice + `","qr_hash":"k9x4mq","secret":"9c2f3d4b","sendEmail":false}`},
		{"RequestMintLinks", "redeem_request.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.RequestMintLinks(ctx, poap.RedeemRequest{EventID: 175300, Count: 10, EditCode: editCode})
			return err
		}, wire.OpRequestMintLinks, "POST", "/redeem-requests", "", true,
			`{"event_id":175300,"requested_codes":10,"secret_code":"123456","redeem_type":"qr_code"}`},
		{"RequestMintLinksQuiet", "redeem_request.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.RequestMintLinks(ctx, poap.RedeemRequest{
				EventID: 175300, Count: 5, EditCode: editCode, Type: poap.RedeemSecretWebsite, NotifyIssuer: &notify,
			})
			return err
		}, wire.OpRequestMintLinks, "POST", "/redeem-requests", "", true,
			`{"event_id":175300,"requested_codes":5,"secret_code":"123456","redeem_type":"secret_website","notify_issuer":false}`},
		{"PendingRequests", "pending_count_array.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.PendingRequests(ctx, 175300, poap.RedeemQRCode)
			return err
		}, wire.OpPendingRequests, "GET", "/redeem-requests/active/count", "event_id=175300&redeem_type=qr_code", false, ""},
		{"CreateSecretRequest", "secret_request.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.CreateSecretRequest(ctx, websiteRequest())
			return err
		}, wire.OpCreateSecretRequest, "POST", "/secret-requests", "", false,
			`{"event_id":175300,"requested_codes":10,"secret_code":"123456","claim_name":"increase-group-student",
			"from":"2025-03-07T18:00:00Z","to":"2025-03-07T18:10:00Z","timezone":0,"captcha":true,"active":true,"secret_type":"website"}`},
		{"EditSecretRequest", "secret_request.json", func(ctx context.Context, c *poap.Client) error {
			return c.EditSecretRequest(ctx, websiteRequest(), false)
		}, wire.OpEditSecretRequest, "PUT", "/secret-requests", "", false,
			`{"event_id":175300,"accepted_redeems":10,"secret_code":"123456","claim_name":"increase-group-student",
			"from":"2025-03-07T18:00:00Z","to":"2025-03-07T18:10:00Z","timezone":0,"active":false,"secret_type":"website"}`},
		{"WebsiteClaim", "website_claim.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.WebsiteClaim(ctx, "increase-group-student", alice)
			return err
		}, wire.OpWebsiteClaim, "POST", "/website/claim", "", false,
			`{"website":"increase-group-student","address":"` + alice + `"}`},
		{"Secret", "secret_oas.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.Secret(ctx, "increase-group-student")
			return err
		}, wire.OpSecret, "GET", "/secret/increase-group-student", "", true, ""},
		{"CreateDelivery", "delivery.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.CreateDelivery(ctx, testDelivery())
			return err
		}, wire.OpCreateDelivery, "POST", "/deliveries", "", false, deliveryBody},
		{"DeliveryBySlug", "delivery.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.DeliveryBySlug(ctx, "poapbot-test-delivery")
			return err
		}, wire.OpDeliveryBySlug, "GET", "/delivery/slug/poapbot-test-delivery", "", false, ""},
		{"ClaimDelivery", "delivery_claim.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.ClaimDelivery(ctx, 812, alice)
			return err
		}, wire.OpClaimDelivery, "POST", "/actions/claim-delivery-v2", "", false, `{"id":812,"address":"` + alice + `"}`},
		{"MintingConfig", "minting_config.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.MintingConfig(ctx, 175300, editCode)
			return err
		}, wire.OpMintingConfig, "POST", "/drops/175300/minting-config", "", false, `{"edit_code":123456}`},
		{"SetMintingNetwork", "minting_config.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.SetMintingNetwork(ctx, 175300, editCode, 8453)
			return err
		}, wire.OpSetMintingNetwork, "PATCH", "/drops/175300/minting-config", "", false,
			`{"edit_code":123456,"supported_mint_blockchains":[8453]}`},
		{"TransactionRequest", "tx_request.json", func(ctx context.Context, c *poap.Client) error {
			_, err := c.TransactionRequest(ctx, 29)
			return err
		}, wire.OpTransactionRequest, "GET", "/transaction-requests/29", "", false, ""},
	}
}

// checkBody compares the JSON body of got with want ("" for none).
func checkBody(t *testing.T, got received, want string) {
	t.Helper()
	if want == "" {
		if len(got.Body) != 0 {
			t.Errorf("body = %q, want none", got.Body)
		}
		return
	}
	if got.ContentType != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got.ContentType)
	}
	if diff := cmp.Diff(jsonValue(t, []byte(want)), jsonValue(t, got.Body)); diff != "" {
		t.Errorf("body mismatch (-want +got):\n%s", diff)
	}
}

// websiteRequest is the secret request of the tests.
func websiteRequest() poap.SecretRequest {
	return poap.SecretRequest{
		EventID: 175300, EditCode: editCode, ClaimName: "increase-group-student", Type: poap.SecretTypeWebsite,
		From: "2025-03-07T18:00:00Z", To: "2025-03-07T18:10:00Z", Count: 10,
	}
}

// testDelivery is the delivery of the tests, and deliveryBody what it sends.
func testDelivery() poap.DeliveryInput {
	return poap.DeliveryInput{
		Slug: "poapbot-test-delivery", CardTitle: "poapbot test delivery", CardText: "Test delivery.",
		PageTitle: "Claim your test POAP", PageText: "If your address is on the list, claim below.",
		Drops:               []poap.DeliveryDrop{{EventID: 175300, EditCode: editCode}, {EventID: 175301, EditCode: "654321"}},
		Image:               "https://assets.poap.xyz/card.png",
		PageTitleImage:      "https://assets.poap.xyz/title.png",
		MetadataTitle:       "poapbot test delivery",
		MetadataDescription: "Test delivery of the poapbot integration.",
		Addresses: []poap.DeliveryAddress{
			{Address: alice, Events: []int64{175300, 175301}},
			{Address: "bob.eth", Events: []int64{175301}},
		},
	}
}

const deliveryBody = `{"slug":"poapbot-test-delivery","card_title":"poapbot test delivery","card_text":"Test delivery.",
"page_title":"Claim your test POAP","page_text":"If your address is on the list, claim below.",
"event_ids":"175300,175301","secret_codes":"123456,654321","image":"https://assets.poap.xyz/card.png",
"page_title_image":"https://assets.poap.xyz/title.png","metadata_title":"poapbot test delivery",
"metadata_description":"Test delivery of the poapbot integration.",
"addresses":[{"address":"` + alice + `","events":[175300,175301]},{"address":"bob.eth","events":[175301]}]}`
