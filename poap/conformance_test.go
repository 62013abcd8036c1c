package poap_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/auth"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// Credentials of the conformance run.
const (
	confClientID = "conformance-client"
	confSecret   = core.Secret("conformance-secret")
	confEditCode = core.Secret("482913")
	collector    = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
	collector2   = "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"
)

// conformance is the real client, with the real token manager on a real
// database, talking to the sandbox over loopback HTTP.
type conformance struct {
	sb  *sandbox.Server
	c   *poap.Client
	ctx context.Context
}

func newConformance(t *testing.T) *conformance {
	t.Helper()
	sb := sandbox.New(sandbox.Options{APIKey: testKey, ClientID: confClientID, ClientSecret: confSecret.Reveal(), MediaDir: t.TempDir()})
	t.Cleanup(func() { sb.Close() })
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	db, err := storage.Open(t.Context(), migrated.SQLiteURL(t), storage.WithKey(storage.Key{1}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tokens, err := auth.New(auth.Options{AuthURL: srv.URL, ClientID: confClientID, ClientSecret: confSecret, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	c, err := poap.NewClient(poap.Options{
		BaseURL: srv.URL, APIKey: testKey, Tokens: tokens,
		Audience: sandbox.DefaultAudience, MomentsURL: srv.URL, MomentsAudience: sandbox.DefaultMomentsAudience,
		CompassURL: srv.URL + "/v1/graphql",
		// The suite runs faster than the production limit allows.
		RateLimit: 1000, RateBurst: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sb.Banned() {
			t.Error("the sandbox banned the client: more than 4 token requests in an hour")
		}
	})
	return &conformance{sb: sb, c: c, ctx: t.Context()}
}

// createDrop creates a drop through the client and checks the reads.
func (cf *conformance) createDrop(t *testing.T) poap.Drop {
	t.Helper()
	start := time.Now().UTC()
	in := poap.DropInput{
		Name: "Conformance test 1 of 1", Description: "A private test drop of the conformance suite.",
		StartDate: poap.DateOf(start), EndDate: poap.DateOf(start), ExpiryDate: poap.DateOf(start.AddDate(0, 1, 0)),
		Image: bytes.NewReader(pngImage(t)), ImageName: "art.png", ImageType: "image/png",
		EditCode: confEditCode, Email: "issuer@example.org", PrivateEvent: true,
	}
	drop, err := cf.c.CreateDrop(cf.ctx, in)
	if err != nil || drop.ID == 0 || drop.FancyID == "" {
		t.Fatalf("CreateDrop() = %+v, %v", drop, err)
	}
	if got, err := cf.c.Drop(cf.ctx, drop.ID); err != nil || got.Name != in.Name {
		t.Errorf("Drop(%d) = %q, %v, want %q", drop.ID, got.Name, err, in.Name)
	}
	if got, err := cf.c.DropByFancyID(cf.ctx, drop.FancyID); err != nil || got.ID != drop.ID {
		t.Errorf("DropByFancyID(%s) = %d, %v, want %d", drop.FancyID, got.ID, err, drop.ID)
	}
	page, err := cf.c.Drops(cf.ctx, poap.DropsQuery{Limit: 10, SortField: "id", SortDir: "desc"})
	if err != nil || page.Total == 0 || !slices.ContainsFunc(page.Drops, func(d poap.Drop) bool { return d.ID == drop.ID }) {
		t.Errorf("Drops() = %d of %d, %v, want the new drop listed", len(page.Drops), page.Total, err)
	}
	edit := poap.DropEdit{Name: "Conformance test 1 of 1 (edited)", Description: in.Description,
		StartDate: in.StartDate, EndDate: in.EndDate, ExpiryDate: in.ExpiryDate, EditCode: confEditCode}
	if err := cf.c.EditDrop(cf.ctx, drop.FancyID, edit); err != nil {
		t.Errorf("EditDrop() = %v", err)
	}
	if got, _ := cf.c.Drop(cf.ctx, drop.ID); got.Name != edit.Name || !got.PrivateEvent || got.VirtualEvent {
		t.Errorf("after EditDrop, name = %q, private %v, virtual %v, want %q, still private and not virtual",
			got.Name, got.PrivateEvent, got.VirtualEvent, edit.Name)
	}
	return drop
}

// mintLinks walks the review of a mint-link request and returns the links.
func (cf *conformance) mintLinks(t *testing.T, dropID int64) []poap.MintLink {
	t.Helper()
	if ok, err := cf.c.ValidateEditCode(cf.ctx, dropID, confEditCode); !ok || err != nil {
		t.Errorf("ValidateEditCode(right) = %v, %v, want true", ok, err)
	}
	if ok, err := cf.c.ValidateEditCode(cf.ctx, dropID, "000000"); ok || err != nil {
		t.Errorf("ValidateEditCode(wrong) = %v, %v, want false", ok, err)
	}
	if _, err := cf.c.MintLinks(cf.ctx, dropID, "000000"); !errors.Is(err, poap.ErrInvalidEditCode) {
		t.Errorf("MintLinks(wrong code) error = %v, want ErrInvalidEditCode", err)
	}
	req := poap.RedeemRequest{EventID: dropID, Count: 5, EditCode: confEditCode, Type: poap.RedeemQRCode}
	if id, err := cf.c.RequestMintLinks(cf.ctx, req); err != nil || id == "" {
		t.Fatalf("RequestMintLinks() = %q, %v", id, err)
	}
	if n, err := cf.c.PendingRequests(cf.ctx, dropID, poap.RedeemQRCode); n != 1 || err != nil {
		t.Errorf("PendingRequests() = %d, %v, want 1", n, err)
	}
	if _, err := cf.c.RequestMintLinks(cf.ctx, req); err == nil {
		t.Error("a second RequestMintLinks() while one is pending succeeded")
	}
	cf.sb.ApproveRequests(dropID)
	if n, err := cf.c.PendingRequests(cf.ctx, dropID, poap.RedeemQRCode); n != 0 || err != nil {
		t.Errorf("PendingRequests() after approval = %d, %v, want 0", n, err)
	}
	links, err := cf.c.MintLinks(cf.ctx, dropID, confEditCode)
	if err != nil || len(links) < 5 {
		t.Fatalf("MintLinks() = %d links, %v, want at least 5", len(links), err)
	}
	return links
}

// mint mints one link and checks every read that follows a mint.
func (cf *conformance) mint(t *testing.T, dropID int64, links []poap.MintLink) {
	t.Helper()
	if st, err := cf.c.ClaimStatus(cf.ctx, links[0].QRHash); err != nil || st.Claimed || !st.IsActive {
		t.Fatalf("ClaimStatus(unused) = claimed %v active %v, %v", st.Claimed, st.IsActive, err)
	}
	res, err := cf.c.Mint(cf.ctx, poap.MintInput{QRHash: links[0].QRHash, Address: collector})
	if err != nil || res.TransactionRequestID == 0 {
		t.Fatalf("Mint() = %+v, %v, want a transaction request", res, err)
	}
	if tx, err := cf.c.TransactionRequest(cf.ctx, res.TransactionRequestID); err != nil || tx.Status == "" {
		t.Errorf("TransactionRequest() = %+v, %v", tx, err)
	}
	if st, err := cf.c.ClaimStatus(cf.ctx, links[0].QRHash); err != nil || !st.Claimed || st.Beneficiary != collector {
		t.Errorf("ClaimStatus(used) = claimed %v by %q, %v", st.Claimed, st.Beneficiary, err)
	}
	if _, err := cf.c.Mint(cf.ctx, poap.MintInput{QRHash: links[0].QRHash, Address: collector2}); !errors.Is(err, poap.ErrQRClaimed) {
		t.Errorf("Mint(used link) error = %v, want ErrQRClaimed", err)
	}
	if _, err := cf.c.Mint(cf.ctx, poap.MintInput{QRHash: links[1].QRHash, Address: collector}); !errors.Is(err, poap.ErrAlreadyMinted) {
		t.Errorf("Mint(second link, same address) error = %v, want ErrAlreadyMinted", err)
	}
	if _, err := cf.c.ClaimStatus(cf.ctx, "zzzzzz"); !errors.Is(err, poap.ErrNotFound) {
		t.Errorf("ClaimStatus(unknown) error = %v, want ErrNotFound", err)
	}
	cf.followMint(t, dropID)
}

// followMint checks that scans, holders and token reads show the mint.
func (cf *conformance) followMint(t *testing.T, dropID int64) {
	t.Helper()
	tok, err := cf.c.ScanEvent(cf.ctx, collector, dropID)
	if err != nil || tok.TokenID == "" {
		t.Fatalf("ScanEvent() = %+v, %v", tok, err)
	}
	held, err := cf.c.Scan(cf.ctx, collector)
	if err != nil || !slices.ContainsFunc(held, func(h poap.Token) bool { return h.Event.ID == dropID }) {
		t.Errorf("Scan() = %d tokens, %v, want the new POAP among them", len(held), err)
	}
	var owners []string
	for h, err := range cf.c.Holders(cf.ctx, dropID) {
		if err != nil {
			t.Fatalf("Holders() error = %v", err)
		}
		owners = append(owners, h.Owner)
	}
	if !slices.Contains(owners, collector) {
		t.Errorf("Holders() = %v, want %s", owners, collector)
	}
	if info, err := cf.c.TokenInfo(cf.ctx, tok.TokenID); err != nil || info.Owner != collector || info.Event.ID != dropID {
		t.Errorf("TokenInfo(%s) = owner %q drop %d, %v", tok.TokenID, info.Owner, info.Event.ID, err)
	}
}

func TestConformance_Issuing(t *testing.T) {
	cf := newConformance(t)
	drop := cf.createDrop(t)
	links := cf.mintLinks(t, drop.ID)
	cf.mint(t, drop.ID, links)

	cfg, err := cf.c.SetMintingNetwork(cf.ctx, drop.ID, confEditCode, 137)
	if err != nil || !slices.Contains(cfg.Chains, 137) {
		t.Errorf("SetMintingNetwork(137) = %v, %v", cfg.Chains, err)
	}
	if cfg, err := cf.c.MintingConfig(cf.ctx, drop.ID, confEditCode); err != nil || !slices.Contains(cfg.Chains, 137) {
		t.Errorf("MintingConfig() = %v, %v, want 137", cfg.Chains, err)
	}
	if _, err := cf.c.Mint(cf.ctx, poap.MintInput{QRHash: links[2].QRHash, Address: collector2}); err != nil {
		t.Fatal(err)
	}
	held, _ := cf.c.Scan(cf.ctx, collector2)
	if i := slices.IndexFunc(held, func(h poap.Token) bool { return h.Event.ID == drop.ID }); i < 0 || held[i].Chain != "matic" {
		t.Errorf("after SetMintingNetwork(137), the new POAP is not on matic: %+v", held)
	}
	if n := cf.sb.TokensIssued(confClientID); n != 1 {
		t.Errorf("token requests = %d, want 1 for the whole run", n)
	}
}

// TestConformance_DroppedMint: the sandbox applies a mint and drops the
// answer; the client reports the failure, does not send the mint again,
// and the status read shows the link claimed by the collector.
func TestConformance_DroppedMint(t *testing.T) {
	cf := newConformance(t)
	drop, _ := cf.sb.CreateDrop(sandbox.Drop{Name: "Dropped answers", EditCode: confEditCode.Reveal()}, 3)
	hash := cf.sb.MintLinksOf(drop.ID)[0]
	cf.sb.DropNextMintResponses(1)
	_, err := cf.c.Mint(cf.ctx, poap.MintInput{QRHash: hash, Address: collector})
	if !errors.Is(err, poap.ErrUnavailable) {
		t.Fatalf("Mint() with the answer dropped error = %v, want ErrUnavailable", err)
	}
	if n := cf.sb.Requests(wire.OpMint); n != 1 {
		t.Errorf("the mint was sent %d times, want once", n)
	}
	st, err := cf.c.ClaimStatus(cf.ctx, hash)
	if err != nil || !st.Claimed || st.Beneficiary != collector {
		t.Errorf("ClaimStatus() after the dropped answer = claimed %v by %q, %v", st.Claimed, st.Beneficiary, err)
	}
	if n := cf.sb.MintCount(drop.ID); n != 1 {
		t.Errorf("MintCount() = %d, want 1", n)
	}
}

func TestConformance_WebsiteAndDelivery(t *testing.T) {
	cf := newConformance(t)
	drop, _ := cf.sb.CreateDrop(sandbox.Drop{Name: "Website and delivery", EditCode: confEditCode.Reveal()}, 0)
	sr := poap.SecretRequest{EventID: drop.ID, EditCode: confEditCode, ClaimName: "conformance-site",
		Type: poap.SecretTypeWebsite, From: "00:00", To: "23:59", Count: 2}
	if _, err := cf.c.CreateSecretRequest(cf.ctx, sr); err != nil {
		t.Fatalf("CreateSecretRequest() = %v", err)
	}
	cf.sb.ApproveRequests(drop.ID)
	if sc, err := cf.c.Secret(cf.ctx, sr.ClaimName); err != nil || sc.EventID != drop.ID {
		t.Errorf("Secret() = drop %d, %v, want %d", sc.EventID, err, drop.ID)
	}
	if err := cf.c.EditSecretRequest(cf.ctx, sr, true); err != nil {
		t.Errorf("EditSecretRequest() = %v", err)
	}
	if cl, err := cf.c.WebsiteClaim(cf.ctx, sr.ClaimName, collector); err != nil || cl.EventID != drop.ID {
		t.Errorf("WebsiteClaim() = drop %d, %v", cl.EventID, err)
	}
	if _, err := cf.c.WebsiteClaim(cf.ctx, sr.ClaimName, collector); !errors.Is(err, poap.ErrAlreadyMinted) {
		t.Errorf("WebsiteClaim(twice) error = %v, want ErrAlreadyMinted", err)
	}

	del, err := cf.c.CreateDelivery(cf.ctx, poap.DeliveryInput{
		Slug: "conformance-delivery", CardTitle: "Card", CardText: "Text", PageTitle: "Page", PageText: "Text",
		Drops:     []poap.DeliveryDrop{{EventID: drop.ID, EditCode: confEditCode}},
		Addresses: []poap.DeliveryAddress{{Address: collector2, Events: []int64{drop.ID}}},
	})
	if err != nil || del.ID == 0 {
		t.Fatalf("CreateDelivery() = %+v, %v", del, err)
	}
	if got, err := cf.c.DeliveryBySlug(cf.ctx, "Conformance-Delivery"); err != nil || got.ID != del.ID || got.TotalAddresses != 1 {
		t.Errorf("DeliveryBySlug() = %+v, %v, want delivery %d of 1 address", got, err, del.ID)
	}
	if _, err := cf.c.DeliveryBySlug(cf.ctx, "no-such-delivery"); !errors.Is(err, poap.ErrNotFound) {
		t.Errorf("DeliveryBySlug(unknown) error = %v, want ErrNotFound", err)
	}
	if uid, err := cf.c.ClaimDelivery(cf.ctx, del.ID, collector2); err != nil || uid == "" {
		t.Errorf("ClaimDelivery() = %q, %v", uid, err)
	}
	if _, err := cf.c.ClaimDelivery(cf.ctx, del.ID, collector2); !errors.Is(err, poap.ErrAlreadyMinted) {
		t.Errorf("ClaimDelivery(twice) error = %v, want ErrAlreadyMinted", err)
	}
	if _, err := cf.c.ClaimDelivery(cf.ctx, del.ID, collector); !errors.Is(err, poap.ErrNotListed) {
		t.Errorf("ClaimDelivery(unlisted) error = %v, want ErrNotListed", err)
	}
}

func TestConformance_Moments(t *testing.T) {
	cf := newConformance(t)
	drop, _ := cf.sb.CreateDrop(sandbox.Drop{Name: "Moments", EditCode: confEditCode.Reveal()}, 0)
	img := pngImage(t)
	m, err := cf.c.PostMoment(cf.ctx, poap.MomentInput{Author: collector, DropIDs: []int64{drop.ID}, Description: "Hello"},
		poap.MediaFile{Reader: bytes.NewReader(img), Size: int64(len(img)), ContentType: "image/png"})
	if err != nil || m.ID == "" {
		t.Fatalf("PostMoment() = %+v, %v", m, err)
	}
	got, err := cf.c.Moments(cf.ctx, poap.MomentsQuery{Limit: 10, DropIDs: []int64{drop.ID}})
	if err != nil || len(got) != 1 || got[0].ID != m.ID || len(got[0].Media) != 1 || got[0].Media[0].MimeType != "image/png" {
		t.Errorf("Moments() = %+v, %v, want the new Moment with its PNG", got, err)
	}
	key, err := cf.c.UploadMedia(cf.ctx, bytes.NewReader([]byte("plain text, not a picture")), 25, "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cf.c.WaitForMedia(cf.ctx, key, poap.WaitOptions{Interval: time.Millisecond}); !errors.Is(err, poap.ErrMediaInvalid) {
		t.Errorf("WaitForMedia(text declared as png) error = %v, want ErrMediaInvalid", err)
	}
	if n := cf.sb.TokensIssued(confClientID); n != 1 {
		t.Errorf("token requests = %d, want 1 (for the Moments audience)", n)
	}
}
