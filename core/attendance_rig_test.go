package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// attT0 is when attendance tests start.
var attT0 = time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC)

// attendanceRig is an attendance service on a real database, with a clock
// moved by hand, in one Discord server with one drop (event 9001).
type attendanceRig struct {
	t     testing.TB
	ctx   context.Context
	db    *storage.DB
	clock *coretest.Clock
	svc   *core.AttendanceService
	place core.Place
	drop  core.Drop
	mod   core.Member
}

// eachAttendanceDB runs f with a rig on each database (see migrated).
func eachAttendanceDB(t *testing.T, max time.Duration, f func(t *testing.T, r *attendanceRig)) {
	t.Helper()
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		f(t, newAttendanceRig(t, newURL(), max))
	})
}

// newAttendanceRig opens the database at url and builds the rig; max is
// the service's maximum session length (zero: the default).
func newAttendanceRig(t testing.TB, url string, max time.Duration) *attendanceRig {
	t.Helper()
	ctx := context.Background()
	key, err := storage.ParseKey(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(ctx, url, storage.WithKey(key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &attendanceRig{
		t: t, ctx: ctx, db: db, clock: coretest.NewClock(attT0),
		place: core.Place{Platform: core.Discord, ExternalID: "guild-1", Name: "Guild"},
		mod:   core.Member{Platform: core.Discord, ExternalID: "mod", Name: "Mod"},
	}
	tn, err := db.UpsertPlace(ctx, core.Place{Platform: core.Discord, ExternalID: r.place.ExternalID, Name: "Guild"})
	if err != nil {
		t.Fatal(err)
	}
	r.drop, _, err = db.AddDrop(ctx, core.Drop{PlaceID: tn.ID, EventID: 9001, Name: "Call", EditCode: "123456", Method: core.ClaimLink}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.svc = r.service(max)
	return r
}

// service returns a new service on the rig's database and clock, as a
// restarted bot builds it.
func (r *attendanceRig) service(max time.Duration) *core.AttendanceService {
	r.t.Helper()
	svc, err := core.NewAttendanceService(core.AttendanceServiceDeps{
		Members: r.db, Drops: r.db, Store: r.db, Audit: r.db, Clock: r.clock, MaxLength: max,
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return svc
}

// mintDrop adds the drop of event 9002 (claim method mint) with n links
// of issuer's to the rig's server and makes it the rig's drop.
func (r *attendanceRig) mintDrop(issuer *dropIssuer, n int) []core.ImportedMintLink {
	r.t.Helper()
	issuer.addEvent(9002, "654321", n, 0)
	links, err := issuer.MintLinks(r.ctx, 9002, "654321")
	if err != nil {
		r.t.Fatal(err)
	}
	d, _, err := r.db.AddDrop(r.ctx, core.Drop{PlaceID: r.drop.PlaceID, EventID: 9002, Name: "Mint call", EditCode: "654321", Method: core.ClaimMint}, links)
	if err != nil {
		r.t.Fatal(err)
	}
	r.drop = d
	return links
}

// at moves the clock to attT0 plus the minutes.
func (r *attendanceRig) at(minutes int) {
	r.t.Helper()
	want := attT0.Add(time.Duration(minutes) * time.Minute)
	if d := want.Sub(r.clock.Now()); d < 0 {
		r.t.Fatalf("the clock cannot go back to minute %d", minutes)
	} else {
		r.clock.Add(d)
	}
}

// member is a Discord member of the rig's server.
func member(id string) core.Member {
	return core.Member{Platform: core.Discord, ExternalID: id, Name: strings.ToUpper(id[:1]) + id[1:]}
}

// start starts an open session in channel with the minimum, or fails.
func (r *attendanceRig) start(channel, minimum string, current ...core.VoiceState) core.AttendanceSession {
	r.t.Helper()
	s, err := r.svc.Start(r.ctx, r.request(channel, minimum), current)
	if err != nil {
		r.t.Fatalf("Start(%s, %s) = %v", channel, minimum, err)
	}
	return s
}

// request is the start request of a session in channel.
func (r *attendanceRig) request(channel, minimum string) core.AttendanceStart {
	r.t.Helper()
	m, err := core.ParseMinimum(minimum)
	if err != nil {
		r.t.Fatalf("ParseMinimum(%q) = %v", minimum, err)
	}
	return core.AttendanceStart{Moderator: r.mod, Place: r.place, EventID: r.drop.EventID, ChannelID: channel,
		ChannelName: "Stage " + channel, SummaryChannelID: "general", Minimum: m}
}

// voice observes a voice state now, or fails.
func (r *attendanceRig) voice(id, channel string, deafened bool) {
	r.t.Helper()
	v := core.VoiceState{Member: member(id), ChannelID: channel, Deafened: deafened}
	if err := r.svc.Observe(r.ctx, r.place, v); err != nil {
		r.t.Fatalf("Observe(%s in %q) = %v", id, channel, err)
	}
}

// stop stops the session in channel now, or fails.
func (r *attendanceRig) stop(channel string) core.AttendanceSummary {
	r.t.Helper()
	sum, err := r.svc.Stop(r.ctx, r.mod, r.place, channel)
	if err != nil {
		r.t.Fatalf("Stop(%s) = %v", channel, err)
	}
	return sum
}

// standing returns the member's standing with the rig's drop, or fails.
func (r *attendanceRig) standing(id string) core.AttendanceStanding {
	r.t.Helper()
	u, err := r.db.UpsertUser(r.ctx, core.User{Platform: core.Discord, ExternalID: id})
	if err != nil {
		r.t.Fatal(err)
	}
	st, err := r.svc.Attended(r.ctx, r.drop.ID, u.ID)
	if err != nil {
		r.t.Fatalf("Attended(%s) = %v", id, err)
	}
	return st
}

// minutesOf returns each member's minutes (by platform id) in the
// session's stored results, with "!" appended for the eligible and "-"
// for those who left the server.
func (r *attendanceRig) minutesOf(sessionID int64) map[string]string {
	r.t.Helper()
	page, err := r.svc.Members(r.ctx, r.place, sessionID, 0, 10000)
	if err != nil {
		r.t.Fatalf("Members = %v", err)
	}
	out := map[string]string{}
	for _, res := range page.Results {
		u, err := r.db.UserByID(r.ctx, res.UserID)
		if err != nil {
			r.t.Fatal(err)
		}
		if res.Name != u.Name {
			r.t.Errorf("Members: user %s named %q, want %q", u.ExternalID, res.Name, u.Name)
		}
		v := (time.Duration(res.Seconds) * time.Second).String()
		if res.Eligible {
			v += "!"
		}
		if res.LeftServer {
			v += "-"
		}
		out[u.ExternalID] = v
	}
	return out
}
