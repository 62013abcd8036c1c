package core_test

import (
	"errors"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// TestNewServices_MissingDependency checks that every service refuses, at
// construction, each dependency it needs left out (nil, or a nil pointer
// of a store that was never opened), and accepts the full set.
func TestNewServices_MissingDependency(t *testing.T) {
	store := coretest.NewMemStore()
	var unopened *coretest.MemStore
	issuer := newDropIssuer()
	links, err := core.NewMintLinkService(core.MintLinkServiceDeps{Members: store, Drops: store, MintLinks: store, Audit: store,
		Issuer: issuer, Mints: coretest.NoMintEvents{}})
	if err != nil {
		t.Fatal(err)
	}
	attendance, err := core.NewAttendanceService(core.AttendanceServiceDeps{Members: store, Drops: store, Store: coretest.NoAttendance{}, Audit: store})
	if err != nil {
		t.Fatal(err)
	}
	constructors := map[string]func(drop string, nilValue bool) error{
		"WalletService": func(drop string, nilValue bool) error {
			d := core.WalletServiceDeps{Members: store, Wallets: walletStore{}}
			switch drop {
			case "Members":
				d.Members = pick[core.MemberStore](nilValue, unopened)
			case "Wallets":
				d.Wallets = pick[core.WalletStore](nilValue, (*walletStore)(nil))
			}
			_, err := core.NewWalletService(d)
			return err
		},
		"CollectionService": func(drop string, nilValue bool) error {
			d := core.CollectionServiceDeps{Members: store, Scanner: &fakeIssuer{}}
			switch drop {
			case "Members":
				d.Members = pick[core.MemberStore](nilValue, unopened)
			case "Scanner":
				d.Scanner = pick[core.Scanner](nilValue, (*fakeIssuer)(nil))
			}
			_, err := core.NewCollectionService(d)
			return err
		},
		"DropService": func(drop string, nilValue bool) error {
			d := core.DropServiceDeps{Members: store, Drops: store, MintLinks: store, Posts: store, Audit: store, Issuer: issuer, Links: links, Attendance: attendance}
			dropDeps{&d.Members, &d.Drops, &d.MintLinks, &d.Audit, &d.Issuer}.leaveOut(drop, nilValue)
			switch drop {
			case "Posts":
				d.Posts = pick[core.PostStore](nilValue, unopened)
			case "Links":
				d.Links = nil
			case "Attendance":
				d.Attendance = pick[core.Attendance](nilValue, (*core.AttendanceService)(nil))
			}
			_, err := core.NewDropService(d)
			return err
		},
		"MintLinkService": func(drop string, nilValue bool) error {
			d := core.MintLinkServiceDeps{Members: store, Drops: store, MintLinks: store, Audit: store, Issuer: issuer, Mints: coretest.NoMintEvents{}}
			dropDeps{&d.Members, &d.Drops, &d.MintLinks, &d.Audit, &d.Issuer}.leaveOut(drop, nilValue)
			if drop == "Mints" {
				d.Mints = pick[core.MintEvents](nilValue, (*coretest.NoMintEvents)(nil))
			}
			_, err := core.NewMintLinkService(d)
			return err
		},
	}
	required := map[string][]string{
		"WalletService":     {"Members", "Wallets"},
		"CollectionService": {"Members", "Scanner"},
		"DropService":       {"Members", "Drops", "MintLinks", "Posts", "Audit", "Issuer", "Links", "Attendance"},
		"MintLinkService":   {"Members", "Drops", "MintLinks", "Audit", "Issuer", "Mints"},
	}
	for service, build := range constructors {
		if err := build("", false); err != nil {
			t.Errorf("New%s(every dependency) = %v, want nil", service, err)
		}
		for _, dep := range required[service] {
			for _, nilValue := range []bool{true, false} {
				err := build(dep, nilValue)
				if !errors.Is(err, core.ErrMissingDependency) {
					t.Errorf("New%s(without %s, nil interface %v) = %v, want ErrMissingDependency", service, dep, nilValue, err)
				}
			}
		}
	}
}

// dropDeps are the dependencies the drop service and the mint link
// service share, by address.
type dropDeps struct {
	members   *core.MemberStore
	drops     *core.DropStore
	mintLinks *core.MintLinkStore
	audit     *core.AuditLog
	issuer    *core.DropIssuer
}

// leaveOut sets the dependency named drop to nil, or to a nil pointer of
// a store never opened.
func (d dropDeps) leaveOut(drop string, nilValue bool) {
	var unopened *coretest.MemStore
	switch drop {
	case "Members":
		*d.members = pick[core.MemberStore](nilValue, unopened)
	case "Drops":
		*d.drops = pick[core.DropStore](nilValue, unopened)
	case "MintLinks":
		*d.mintLinks = pick[core.MintLinkStore](nilValue, unopened)
	case "Audit":
		*d.audit = pick[core.AuditLog](nilValue, unopened)
	case "Issuer":
		*d.issuer = pick[core.DropIssuer](nilValue, (*dropIssuer)(nil))
	}
}

// pick returns the nil interface when nilValue is set, else the interface
// holding the nil pointer p.
func pick[I any](nilValue bool, p I) I {
	if nilValue {
		var zero I
		return zero
	}
	return p
}

// walletStore stands in for a core.WalletStore that is never called.
type walletStore struct{ core.WalletStore }
