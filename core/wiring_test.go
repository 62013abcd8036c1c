package core_test

import (
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// dropStores are the stores every drop test has: a MemStore or a
// storage.DB.
type dropStores interface {
	core.MemberStore
	core.DropStore
	core.MintLinkStore
	core.PostStore
}

// wiring is what a test gives the drop service and the claim methods'
// services: the stores and the issuer of every drop test, and those of
// the other methods it offers (left nil: the method is not offered).
type wiring struct {
	store   dropStores
	audit   core.AuditLog
	issuer  core.DropIssuer
	mintURL string
	clock   core.Clock

	networks     core.NetworkIssuer
	networkStore core.NetworkStore

	website      core.WebsiteIssuer
	websiteStore core.WebsiteStore
	websiteWait  time.Duration

	deliveryIssuer core.DeliveryIssuer
	deliveryStore  core.DeliveryStore
	roster         core.Roster
	deliveryURL    string

	// mints hears of the mints; nil hears nothing.
	mints core.MintEvents
}

// services are the drop service and the services it was built with.
type services struct {
	drops      *core.DropService
	links      *core.MintLinkService
	networks   *core.NetworkService
	websites   *core.WebsiteService
	deliveries *core.DeliveryService
	attendance *core.AttendanceService
}

// build builds the services w wires, failing the test on an error.
func (w wiring) build(t *testing.T) services {
	t.Helper()
	var s services
	var err error
	audit := w.audit
	if audit == nil {
		audit = w.store.(core.AuditLog)
	}
	var mints core.MintEvents = coretest.NoMintEvents{}
	if w.mints != nil {
		mints = w.mints
	}
	s.links, err = core.NewMintLinkService(core.MintLinkServiceDeps{
		Members: w.store, Drops: w.store, MintLinks: w.store, Audit: audit, Issuer: w.issuer, Mints: mints,
		MintURL: w.mintURL, Clock: w.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.networks != nil && w.networkStore != nil {
		s.networks, err = core.NewNetworkService(core.NetworkServiceDeps{
			Members: w.store, Drops: w.store, Audit: audit, Issuer: w.networks, Store: w.networkStore, Clock: w.clock,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if w.website != nil {
		s.websites, err = core.NewWebsiteService(core.WebsiteServiceDeps{
			Members: w.store, Drops: w.store, Audit: audit, Store: w.websiteStore, Issuer: w.website, Mints: mints, Wait: w.websiteWait, Clock: w.clock,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if w.deliveryIssuer != nil {
		s.deliveries, err = core.NewDeliveryService(core.DeliveryServiceDeps{
			Members: w.store, Drops: w.store, Audit: audit, Store: w.deliveryStore, Issuer: w.deliveryIssuer,
			Roster: w.roster, Mints: mints, URL: w.deliveryURL, Clock: w.clock,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	attendanceStore, ok := w.store.(core.AttendanceStore)
	if !ok {
		attendanceStore = coretest.NoAttendance{}
	}
	s.attendance, err = core.NewAttendanceService(core.AttendanceServiceDeps{
		Members: w.store, Drops: w.store, Store: attendanceStore, Audit: audit, Clock: w.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.drops, err = core.NewDropService(core.DropServiceDeps{
		Members: w.store, Drops: w.store, MintLinks: w.store, Posts: w.store, Audit: audit, Issuer: w.issuer,
		Links: s.links, Attendance: s.attendance, Networks: s.networks, Websites: s.websites, Deliveries: s.deliveries, Clock: w.clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
