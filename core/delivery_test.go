package core_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
)

// deliveryIssuer is the issuing service's side of deliveries in memory:
// one delivery at a time, its list, who holds the drop, and what the next
// claim does.
type deliveryIssuer struct {
	core.NetworkIssuer
	mu      sync.Mutex
	code    core.Secret
	created map[string]core.DeliveryStatus // by slug
	listed  map[string]bool
	holders map[string]bool
	claims  int
	creates int
	// next, when set, is what the next claim does: "lost" mints and loses
	// the answer, "busy" refuses for the rate, "down" fails before
	// sending; loseCreate creates and loses the answer.
	next       string
	loseCreate bool
	// onCreate runs while a creation is being made, onClaim as the next
	// claim starts (before next is read), the lock released.
	onCreate func()
	onClaim  func()
}

// errNotHere is what the fakes answer for calls their tests do not make.
var errNotHere = errors.New("not in this test")

func newDeliveryIssuer() *deliveryIssuer {
	return &deliveryIssuer{code: editCode, created: map[string]core.DeliveryStatus{}, listed: map[string]bool{}, holders: map[string]bool{}}
}

func (f *deliveryIssuer) Website(context.Context, string) (core.WebsiteStatus, error) {
	return core.WebsiteStatus{}, core.ErrNoWebsite
}
func (f *deliveryIssuer) RequestWebsite(context.Context, core.WebsiteRequest) error {
	return errNotHere
}
func (f *deliveryIssuer) PendingWebsiteRequests(context.Context, int64) (int, error) { return 0, nil }
func (f *deliveryIssuer) MintWebsite(context.Context, string, string) (core.WebsiteMint, error) {
	return core.WebsiteMint{}, errNotHere
}

func (f *deliveryIssuer) Holds(_ context.Context, wallet string, _ int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holders[strings.ToLower(wallet)], nil
}

func (f *deliveryIssuer) CreateDelivery(_ context.Context, r core.DeliveryRequest) (int64, error) {
	runHook(&f.mu, &f.onCreate)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates++
	switch {
	case r.EditCode != f.code:
		return 0, core.ErrWrongEditCode
	case f.created[r.Slug].ID != 0:
		return 0, core.ErrSlugTaken
	}
	id := int64(700 + len(f.created))
	f.created[r.Slug] = core.DeliveryStatus{ID: id, Slug: r.Slug, EventIDs: []int64{r.EventID}, Active: true, Total: int64(len(r.Addresses))}
	for _, a := range r.Addresses {
		f.listed[a] = true
	}
	if f.loseCreate {
		f.loseCreate = false
		return 0, core.ErrIssuerUnavailable
	}
	return id, nil
}

func (f *deliveryIssuer) DeliveryBySlug(_ context.Context, slug string) (core.DeliveryStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.created[slug]
	if !ok {
		return core.DeliveryStatus{}, core.ErrNotFound
	}
	return st, nil
}

func (f *deliveryIssuer) ClaimDelivery(_ context.Context, _ int64, address string) (string, error) {
	runHook(&f.mu, &f.onClaim)
	f.mu.Lock()
	defer f.mu.Unlock()
	next := f.next
	f.next = ""
	switch next {
	case "busy":
		return "", &core.BusyError{RetryAfter: time.Second}
	case "down":
		return "", errors.Join(core.ErrIssuerUnavailable, core.ErrNotSent)
	}
	f.claims++
	switch {
	case !f.listed[address]:
		return "", core.ErrNotListed
	case f.holders[address]:
		return "", core.ErrWalletHoldsDrop
	}
	f.holders[address] = true
	if next == "lost" {
		return "", core.ErrIssuerUnavailable
	}
	return fmt.Sprintf("q-%d", f.claims), nil
}

func (f *deliveryIssuer) set(change func(f *deliveryIssuer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *deliveryIssuer) counts() (creates, claims int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates, f.claims
}

// fixedRoster says the given users have the role, or that the roles could
// not all be read.
type fixedRoster struct {
	members    []core.VerifiedMember
	incomplete bool
}

func (r fixedRoster) VerifiedMembersOf(context.Context, core.Place, string) ([]core.VerifiedMember, error) {
	if r.incomplete {
		return nil, core.ErrRosterIncomplete
	}
	return r.members, nil
}

// deliveryMember stores a console member with wallets: verified ones get
// an address.
func deliveryMember(t *testing.T, db *storage.DB, name string, wallets ...core.Wallet) core.VerifiedMember {
	t.Helper()
	u, err := db.UpsertUser(t.Context(), core.User{Platform: core.Console, ExternalID: name, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	v := core.VerifiedMember{User: u}
	for _, w := range wallets {
		w.UserID = u.ID
		if _, err := db.AddWallet(t.Context(), w); err != nil {
			t.Fatal(err)
		}
		if w.VerifiedAt != nil {
			v.Addresses = append(v.Addresses, w.Address)
		}
	}
	return v
}

// verifiedWallet is a verified wallet of address.
func verifiedWallet(address string) core.Wallet {
	at := t0
	return core.Wallet{Kind: core.KindAddress, Value: address, Address: address, VerifiedAt: &at}
}

func TestDeliveryService(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		addr := func(i int) string { return fmt.Sprintf("0x%040x", 0xd00+i) }
		ann := deliveryMember(t, db, "ann", verifiedWallet(addr(1)))
		// Ben's primary wallet is unverified: his verified one is listed.
		ben := deliveryMember(t, db, "ben", core.Wallet{Kind: core.KindAddress, Value: addr(2)}, verifiedWallet(addr(3)))
		cat := deliveryMember(t, db, "cat", verifiedWallet(addr(4)), verifiedWallet(addr(5)))
		dan := deliveryMember(t, db, "dan", verifiedWallet(addr(6)))
		outsider := deliveryMember(t, db, "eve", verifiedWallet(addr(7)))
		roster := &fixedRoster{members: []core.VerifiedMember{ann, ben, cat, dan}}
		gus := deliveryMember(t, db, "gus", verifiedWallet(addr(8)))
		fake := newDeliveryIssuer()
		clock := coretest.NewClock(t0)
		nt := newNetworkTest(t, db, "deliveries", func(w *wiring, c *chainIssuer) {
			w.clock = clock
			w.website, w.websiteStore, w.networks, w.networkStore = fake, db, c, db
			w.deliveryStore, w.deliveryIssuer, w.roster = db, fake, roster
			w.deliveryURL = "https://deliver.test/"
		})
		nt.add(t)
		ctx := t.Context()
		claim := func(v core.VerifiedMember) (core.ClaimResult, error) {
			m := core.Member{Platform: core.Console, ExternalID: v.User.ExternalID, Name: v.User.Name}
			return nt.svc.Claim(ctx, m, nt.place, core.ClaimOptions{EventID: eventID})
		}

		roster.incomplete = true
		_, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
		wantDropError(t, err, core.ErrRosterIncomplete)
		roster.incomplete = false
		_, err = nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees", Slug: "no spaces"})
		wantDropError(t, err, core.ErrInvalidSlug)

		// A draft is confirmed only while its members still have their
		// verified addresses, and within DeliveryDraftTTL.
		roster.members = []core.VerifiedMember{ann, gus}
		stale, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.UnlinkWallets(ctx, gus.User.ID, addr(8)); err != nil {
			t.Fatal(err)
		}
		_, err = nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, stale.Delivery.ID)
		wantDropError(t, err, core.ErrDraftStale)
		roster.members = []core.VerifiedMember{ann}
		old, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
		if err != nil {
			t.Fatal(err)
		}
		clock.Add(core.DeliveryDraftTTL + time.Second)
		_, err = nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, old.Delivery.ID)
		wantDropError(t, err, core.ErrDraftStale)
		if creates, _ := fake.counts(); creates != 0 {
			t.Fatalf("stale drafts sent %d creations", creates)
		}
		roster.members = []core.VerifiedMember{ann, ben, cat, dan}

		first, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
		if err != nil {
			t.Fatal(err)
		}
		plan, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees", Title: "Thanks"})
		if err != nil {
			t.Fatal(err)
		}
		if want := "drop-4242-4242-"; !strings.HasPrefix(plan.Delivery.Slug, want) || len(plan.Delivery.Slug) != len(want)+6 ||
			plan.Delivery.Slug == first.Delivery.Slug || plan.URL != "https://deliver.test/"+plan.Delivery.Slug || plan.Delivery.Size != 4 ||
			plan.Delivery.PageTitle != "Thanks" || plan.Delivery.Source != "role:attendees" {
			t.Errorf("draft = %+v, want slug %s and 6 random hex digits, 4 addresses, the title given", plan, want)
		}
		if creates, _ := fake.counts(); creates != 0 {
			t.Errorf("a draft sent %d creations", creates)
		}
		_, err = nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, first.Delivery.ID)
		wantDropError(t, err, core.ErrDraftGone)

		// Wrong edit code: nothing stored, the drop still hands out links.
		fake.set(func(f *deliveryIssuer) { f.code = "111111" })
		_, err = nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, plan.Delivery.ID)
		wantDropError(t, err, core.ErrWrongEditCode)
		fake.set(func(f *deliveryIssuer) { f.code = editCode })
		if st, err := nt.svc.DropInfo(ctx, nt.place, eventID); err != nil || st.Drop.Method == core.ClaimDelivery || st.Delivery != nil {
			t.Fatalf("after a refused creation: %+v, %v; want no delivery", st, err)
		}

		// The creation's answer is lost: it is found by its page at once,
		// and not created again. Meanwhile a newer draft replaced this
		// one: what POAP created is recorded all the same.
		fake.set(func(f *deliveryIssuer) {
			f.loseCreate = true
			f.onCreate = func() {
				if _, err := nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"}); err != nil {
					t.Errorf("a draft during the creation: %v", err)
				}
			}
		})
		done, err := nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, plan.Delivery.ID)
		if err != nil || done.Delivery.State != core.DeliveryCreated || done.Delivery.ServiceID != 700 || done.Again {
			t.Fatalf("confirm with a lost answer = %+v, %v; want created as 700", done, err)
		}
		if creates, _ := fake.counts(); creates != 2 {
			t.Errorf("%d creations sent, want 2 (one refused, one lost)", creates)
		}
		_, err = nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, plan.Delivery.ID)
		wantDropError(t, err, core.ErrDraftGone)
		again, err := nt.deliveries.ConfirmDelivery(ctx, nt.mod, nt.place, eventID, done.Delivery.ID)
		if creates, _ := fake.counts(); err != nil || !again.Again || creates != 2 {
			t.Errorf("second confirm = %+v, %v, %d creations; want Again, nothing sent", again, err, creates)
		}
		_, err = nt.deliveries.DraftDelivery(ctx, nt.mod, nt.place, core.DeliverySpec{EventID: eventID, Target: "attendees"})
		wantDropError(t, err, core.ErrDeliveryExists)
		_, err = nt.websites.RequestWebsite(ctx, nt.mod, nt.place, core.WebsiteRequest{EventID: eventID, Name: "site"})
		wantDropError(t, err, core.ErrDeliveryExists)
		listed := slices.Sorted(func(yield func(string) bool) {
			for a := range fake.listed {
				if !yield(a) {
					return
				}
			}
		})
		if want := []string{addr(1), addr(3), addr(4), addr(6)}; !slices.Equal(listed, want) {
			t.Errorf("listed %v, want %v (primary or first verified, one each)", listed, want)
		}

		res, err := claim(ann)
		if err != nil || res.Outcome != core.ResultDeliveryClaimed || res.Again || res.Wallet != addr(1) || res.DeliveryPage == "" {
			t.Errorf("Ann's claim = %+v, %v; want minted to %s", res, err, addr(1))
		}
		if res, err := claim(ann); err != nil || !res.Again {
			t.Errorf("Ann's second claim = %+v, %v; want Again", res, err)
		}
		_, err = claim(outsider)
		wantDropError(t, err, core.ErrNotListed)

		// Busy, or down before sending: nothing sent, the next claim sends.
		for _, next := range []string{"busy", "down"} {
			fake.set(func(f *deliveryIssuer) { f.next = next })
			_, err = claim(ben)
			wantDropError(t, err, core.ErrIssuerUnavailable)
		}
		_, before := fake.counts()
		if res, err := claim(ben); err != nil || res.Outcome != core.ResultDeliveryClaimed || res.Wallet != addr(3) {
			t.Errorf("Ben's claim = %+v, %v; want minted to %s", res, err, addr(3))
		}
		if _, after := fake.counts(); after != before+1 {
			t.Errorf("Ben's claims sent %d, want 1", after-before)
		}

		// Lost answer: the next claim settles it (Cat's address holds
		// the drop) and sends nothing.
		fake.set(func(f *deliveryIssuer) { f.next = "lost" })
		if res, err := claim(cat); err != nil || res.Outcome != core.ResultDeliveryPending || res.Outcome == core.ResultDeliveryClaimed {
			t.Errorf("Cat's claim with a lost answer = %+v, %v; want pending", res, err)
		}
		_, before = fake.counts()
		if res, err := claim(cat); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Errorf("Cat's claim after the lost answer = %+v, %v; want minted", res, err)
		}
		if _, after := fake.counts(); after != before {
			t.Errorf("settling sent %d claims, want none", after-before)
		}

		// Dan claimed on the page: the service refuses his claim as
		// already claimed, which is his POAP.
		fake.set(func(f *deliveryIssuer) { f.holders[addr(6)] = true })
		if res, err := claim(dan); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Errorf("Dan's claim after the page = %+v, %v; want minted", res, err)
		}

		st, err := nt.svc.DropInfo(ctx, nt.place, eventID)
		if err != nil || st.Delivery == nil {
			t.Fatalf("DropInfo() = %+v, %v; want its delivery", st, err)
		}
		if c := st.Delivery.Claims; c.Claimed != 4 || c.Listed != 0 || st.Delivery.Delivery.Size != 4 || st.Drop.Method != core.ClaimDelivery {
			t.Errorf("DropInfo().Delivery = %+v, want 4 of 4 claimed", st.Delivery)
		}
		if n := len(nt.audited(core.AuditDeliveryCreated)); n != 1 {
			t.Errorf("%d audit entries of the creation, want 1", n)
		}
	})
}
