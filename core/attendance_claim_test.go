package core_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
)

// TestAttendance_ClaimOnlyCounted checks that a drop with attendance
// sessions is claimed only by the members counted in one: before any
// session anyone claims; while the session runs nobody does (counting
// is still running); after the stop the member who met the minimum
// claims, and a member below it, one who never joined and one who left
// the server are refused with their minutes, the minimum and the channel.
func TestAttendance_ClaimOnlyCounted(t *testing.T) {
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		links := make([]core.ImportedMintLink, 5)
		for i := range links {
			links[i].QRHash = fmt.Sprintf("att%03d", i)
		}
		if _, _, err := r.db.ImportMintLinks(r.ctx, r.drop.ID, links); err != nil {
			t.Fatal(err)
		}
		drops := wiring{store: r.db, issuer: newDropIssuer(), mintURL: "https://mint.test", clock: r.clock}.build(t).drops
		claim := func(id string) (core.ClaimResult, error) {
			return drops.Claim(r.ctx, member(id), r.place, core.ClaimOptions{EventID: r.drop.EventID})
		}
		refused := func(id string, want error) *core.AttendanceError {
			t.Helper()
			_, err := claim(id)
			var ae *core.AttendanceError
			if !errors.Is(err, want) || !errors.As(err, &ae) {
				t.Fatalf("Claim(%s) = %v, want %v in an *AttendanceError", id, err, want)
			}
			return ae
		}

		early, err := claim("early")
		if err != nil || early.Outcome != core.ResultLink {
			t.Fatalf("Claim before any session = %+v, %v; want a link", early, err)
		}
		r.start("voice", "30m")
		r.voice("ada", "voice", false)
		r.voice("bob", "voice", false)
		r.voice("dan", "voice", false)
		refused("ada", core.ErrAttendancePending)
		r.at(12)
		r.voice("bob", "", false)
		if err := r.svc.MemberLeft(r.ctx, r.place, member("dan"), time.Time{}); err != nil {
			t.Fatal(err)
		}
		r.at(40)
		r.stop("voice")

		if res, err := claim("ada"); err != nil || res.Outcome != core.ResultLink {
			t.Fatalf("Claim(counted) = %+v, %v; want a link", res, err)
		}
		bob := refused("bob", core.ErrNotAttended)
		if bob.Standing.Seconds != 12*60 || bob.Standing.Required != 30*time.Minute || bob.Standing.ChannelName != "Stage voice" {
			t.Errorf("bob's standing = %+v, want 720 s of 30 min in Stage voice", bob.Standing)
		}
		if cy := refused("cy", core.ErrNotAttended); cy.Standing.Seconds != 0 || cy.Standing.Required != 30*time.Minute {
			t.Errorf("cy's standing = %+v, want 0 s of 30 min", cy.Standing)
		}
		if dan := refused("dan", core.ErrAttendanceLeftServer); !dan.Standing.LeftServer {
			t.Errorf("dan's standing = %+v, want LeftServer", dan.Standing)
		}
		// "early" claimed before the session: claiming again gives the
		// same link, as to anyone who claims twice.
		if res, err := claim("early"); err != nil || !res.Again || res.URL != early.URL {
			t.Errorf("Claim(early, claimed before the session) = %+v, %v; want the same link again (%s)", res, err, early.URL)
		}
	})
}

// TestAttendance_ClaimMintedBefore: a member minted the drop before its
// first attendance session claims again during the session and after
// its stop, not counted in it, and is told they have it already (the
// same mint), not refused; nothing more is minted. A member who claimed
// nothing is refused as ever.
func TestAttendance_ClaimMintedBefore(t *testing.T) {
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		issuer := newDropIssuer()
		links := r.mintDrop(issuer, 3)
		d := r.drop
		const addr = "0x00000000000000000000000000000000000000e1"
		u, err := r.db.UpsertUser(r.ctx, core.User{Platform: core.Discord, ExternalID: "early", Name: "Early"})
		if err != nil {
			t.Fatal(err)
		}
		at := attT0
		if _, err := r.db.AddWallet(r.ctx, core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: addr, Address: addr, VerifiedAt: &at}); err != nil {
			t.Fatal(err)
		}
		drops := wiring{store: r.db, issuer: issuer, mintURL: "https://mint.test", clock: r.clock}.build(t).drops
		claim := func(id string) (core.ClaimResult, error) {
			return drops.Claim(r.ctx, member(id), r.place, core.ClaimOptions{EventID: d.EventID})
		}
		if res, err := claim("early"); err != nil || res.Outcome != core.ResultMinted || res.Again {
			t.Fatalf("Claim before any session = %+v, %v; want minted", res, err)
		}
		r.start("voice", "30m")
		r.voice("ada", "voice", false)
		if res, err := claim("early"); err != nil || res.Outcome != core.ResultMinted || !res.Again || res.Wallet != addr {
			t.Errorf("Claim(early) while counting = %+v, %v; want minted to %s before", res, err, addr)
		}
		r.at(40)
		r.stop("voice")
		if res, err := claim("early"); err != nil || res.Outcome != core.ResultMinted || !res.Again || res.Wallet != addr {
			t.Errorf("Claim(early) after the stop = %+v, %v; want minted to %s before", res, err, addr)
		}
		if _, err := claim("cy"); !errors.Is(err, core.ErrNotAttended) {
			t.Errorf("Claim(cy, never joined, claimed nothing) = %v, want %v", err, core.ErrNotAttended)
		}
		total := 0
		for _, l := range links {
			total += issuer.mints(l.QRHash)
		}
		if total != 1 {
			t.Errorf("mints = %d, want 1", total)
		}
	})
}

// TestAttendance_ClaimDeliveryBefore: a member who claimed a delivery drop
// before its first attendance session claims again during the session and
// after its stop, not counted in it, and is answered as on any claim
// again (claimed before), not refused; one whose claim before was sent
// with its outcome unknown has it settled. A member listed who claimed
// nothing is refused as ever; nothing more is sent.
func TestAttendance_ClaimDeliveryBefore(t *testing.T) {
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		fake := newDeliveryIssuer()
		var entries []core.DeliveryEntry
		for i, id := range []string{"early", "lost", "cy"} {
			u, err := r.db.UpsertUser(r.ctx, core.User{Platform: core.Discord, ExternalID: id, Name: id})
			if err != nil {
				t.Fatal(err)
			}
			addr := fmt.Sprintf("0x%040x", 0xd1+i)
			entries = append(entries, core.DeliveryEntry{Address: addr, UserID: u.ID})
			fake.set(func(f *deliveryIssuer) { f.listed[addr] = true })
		}
		draft, err := r.db.SaveDeliveryDraft(r.ctx, core.DropDelivery{DropID: r.drop.ID, Source: "role:r1", Slug: "call", CreatedAt: attT0}, entries)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.db.MarkDeliveryCreated(r.ctx, draft.ID, 701, attT0); err != nil {
			t.Fatal(err)
		}
		drops := wiring{store: r.db, issuer: newDropIssuer(), clock: r.clock,
			deliveryIssuer: fake, deliveryStore: r.db, roster: fixedRoster{}}.build(t).drops
		claim := func(id string) (core.ClaimResult, error) {
			return drops.Claim(r.ctx, member(id), r.place, core.ClaimOptions{EventID: r.drop.EventID})
		}
		again := func(when string) {
			t.Helper()
			if res, err := claim("early"); err != nil || res.Outcome != core.ResultDeliveryClaimed || !res.Again || res.Wallet != entries[0].Address {
				t.Errorf("Claim(early) %s = outcome %d, again %v, to %s, %v; want claimed to %s before",
					when, res.Outcome, res.Again, res.Wallet, err, entries[0].Address)
			}
		}

		if res, err := claim("early"); err != nil || res.Outcome != core.ResultDeliveryClaimed || res.Again {
			t.Fatalf("Claim(early) before any session = %+v, %v; want claimed", res, err)
		}
		fake.set(func(f *deliveryIssuer) { f.next = "lost" })
		if res, err := claim("lost"); err != nil || res.Outcome != core.ResultDeliveryPending {
			t.Fatalf("Claim(lost) before any session, its answer lost = %+v, %v; want pending", res, err)
		}
		r.start("voice", "30m")
		r.voice("ada", "voice", false)
		again("while counting")
		r.at(40)
		r.stop("voice")
		again("after the stop")
		if res, err := claim("lost"); err != nil || res.Outcome != core.ResultDeliveryClaimed {
			t.Errorf("Claim(lost) after the stop = outcome %d, %v; want its claim before settled, claimed", res.Outcome, err)
		}
		if _, err := claim("cy"); !errors.Is(err, core.ErrNotAttended) {
			t.Errorf("Claim(cy, listed, claimed nothing) = %v, want %v", err, core.ErrNotAttended)
		}
		if _, claims := fake.counts(); claims != 2 {
			t.Errorf("%d delivery claims sent, want 2 (early's and lost's, settled from the holding)", claims)
		}
	})
}
