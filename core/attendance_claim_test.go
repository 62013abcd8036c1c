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

		if res, err := claim("early"); err != nil || res.Outcome != core.ResultLink {
			t.Fatalf("Claim before any session = %+v, %v; want a link", res, err)
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
		// "early" claimed before the session: claiming again is refused
		// like anyone not counted, whatever they got before.
		refused("early", core.ErrNotAttended)
	})
}
