package core_test

import (
	"testing"

	"github.com/poapbot/poapbot/core"
)

// TestAttendance_MintAttendees checks delivery:mint at the stop: the
// eligible members with a verified primary wallet are minted to, once
// each; one with an unverified wallet and one below the minimum are not;
// minting again (a second stop, a restart) sends nothing more.
func TestAttendance_MintAttendees(t *testing.T) {
	eachAttendanceDB(t, 0, func(t *testing.T, r *attendanceRig) {
		issuer := newDropIssuer()
		links := r.mintDrop(issuer, 5)
		wallets := map[string]string{"ada": "0x00000000000000000000000000000000000000a1", "bob": "0x00000000000000000000000000000000000000b2",
			"cy": "0x00000000000000000000000000000000000000c3"}
		for who, w := range wallets {
			u, err := r.db.UpsertUser(r.ctx, core.User{Platform: core.Discord, ExternalID: who, Name: who})
			if err != nil {
				t.Fatal(err)
			}
			wallet := core.Wallet{UserID: u.ID, Kind: core.KindAddress, Value: w}
			if who != "bob" { // bob's wallet is not verified
				at := attT0
				wallet.Address, wallet.VerifiedAt = w, &at
			}
			if _, err := r.db.AddWallet(r.ctx, wallet); err != nil {
				t.Fatal(err)
			}
		}
		drops := wiring{store: r.db, issuer: issuer, mintURL: "https://mint.test", clock: r.clock}.build(t).drops
		r.start("voice", "30m")
		for who := range wallets {
			r.voice(who, "voice", false)
		}
		r.at(10)
		r.voice("cy", "", false) // below the minimum
		r.at(40)
		sum := r.stop("voice")
		ids, err := r.svc.Eligible(r.ctx, sum.Session.ID)
		if err != nil || len(ids) != 2 {
			t.Fatalf("Eligible = %v, %v; want ada and bob", ids, err)
		}
		got, err := drops.MintAttendees(r.ctx, sum, ids)
		if want := (core.AttendanceMints{Minted: 1, NoWallet: 1}); err != nil || got != want {
			t.Fatalf("MintAttendees = %+v, %v; want %+v", got, err, want)
		}
		// A restarted bot's service, minting the same stop again.
		again := wiring{store: r.db, issuer: issuer, mintURL: "https://mint.test", clock: r.clock}.build(t).drops
		got, err = again.MintAttendees(r.ctx, sum, ids)
		if want := (core.AttendanceMints{Before: 1, NoWallet: 1}); err != nil || got != want {
			t.Fatalf("MintAttendees again = %+v, %v; want %+v", got, err, want)
		}
		if _, err := r.svc.Stop(r.ctx, r.mod, r.place, "voice"); err == nil {
			t.Error("a second Stop succeeded")
		}
		total := 0
		for _, l := range links {
			total += issuer.mints(l.QRHash)
		}
		if total != 1 || issuer.holders(9002, wallets["ada"]) != 1 || issuer.holders(9002, wallets["bob"], wallets["cy"]) != 0 {
			t.Errorf("mints = %d, holders ada %d, bob and cy %d; want one mint, to ada", total,
				issuer.holders(9002, wallets["ada"]), issuer.holders(9002, wallets["bob"], wallets["cy"]))
		}
	})
}
