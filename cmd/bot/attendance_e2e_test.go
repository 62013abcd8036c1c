package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// TestAttendance_Console rehearses attendance through Main with -sandbox
// -console on each database, the sessions' clock moved by hand: a drop is
// added, a session starts in the console's voice channel, three members
// join (one deafened), one leaves early; the stop posts the summary with
// a Claim button; the member who stayed claims, the one who left early is
// refused with their minutes, a member who never joined too. Then a
// session left open past ATTENDANCE_MAX_LENGTH stops by itself in the
// background, its summary posted in the channel with a Claim button.
func TestAttendance_Console(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := coretest.NewClock(time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC))
			env := map[string]string{"DATABASE_URL": dbURL, "ATTENDANCE_MAX_LENGTH": "2h"}
			s := startMainTuned(t, env, true, func(m *Main) { m.Clock, m.AttendanceInterval = clock, 20*time.Millisecond })
			step := consoleStep(t, s)
			drop := sandbox.DemoLinksDropID
			step(fmt.Sprintf("/drop add %d %s delivery:link", drop, sandbox.DemoEditCode), "is set up here")
			step(fmt.Sprintf("/attendance start voice %d 30m", drop), "Counting who attends voice", "30 minutes")
			step("/attendance join ada\n/attendance join bob\n/attendance join cy voice deaf",
				"ada is in voice channel", "bob is in voice channel", "deafened")
			clock.Add(12 * time.Minute)
			step("/attendance leave bob", "bob left voice")
			clock.Add(20 * time.Minute)
			step("/attendance stop", "--- posted here ---", "Attendance of voice", "2 members attended, 1 met the minimum of 30 minutes",
				"It lasted 32 minutes", fmt.Sprintf("[Claim] type: /claim %d", drop))
			step(fmt.Sprintf("/as ada\n/claim %d", drop), "Here is your mint link")
			step(fmt.Sprintf("/as bob\n/claim %d", drop), "You were not counted in the attendance of voice: 12 of 30 minutes")
			step(fmt.Sprintf("/as cy\n/claim %d", drop), "You were not counted in the attendance of voice: 0 of 30 minutes")
			step(fmt.Sprintf("/as dan\n/claim %d", drop), "You were not counted in the attendance of voice: 0 of 30 minutes")

			// A session nobody stops ends at ATTENDANCE_MAX_LENGTH.
			step(fmt.Sprintf("/as console\n/attendance start stage %d 50%%", drop), "Counting who attends stage", "stops by itself after 2 hours")
			step("/attendance join ada stage", "ada is in voice channel stage")
			clock.Add(3 * time.Hour)
			step("", "--- posted here ---\nAttendance of stage (session 2): 1 member attended, 1 met the minimum of 50% of the session. "+
				"It lasted 120 minutes. It reached its maximum length.", fmt.Sprintf("[Claim] type: /claim %d", drop))
		})
	}
}

// TestAttendance_ConsoleMint rehearses delivery:mint: the stop mints the
// drop to the eligible member whose wallet is verified (/sign), and tells
// the one without a wallet to claim with the button; the member minted to
// claims nothing more.
func TestAttendance_ConsoleMint(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := coretest.NewClock(time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC))
			s := startMainTuned(t, map[string]string{"DATABASE_URL": dbURL}, true, func(m *Main) { m.Clock = clock })
			step := consoleStep(t, s)
			drop := sandbox.DemoLinksDropID
			step(fmt.Sprintf("/drop add %d %s delivery:mint", drop, sandbox.DemoEditCode), "is set up here")
			step(fmt.Sprintf("/as ada\n/link %s\n/sign", sandbox.DemoWallet2), "Verified: "+sandbox.DemoWallet2)
			step(fmt.Sprintf("/as console\n/attendance start voice %d 30m\n/attendance join ada\n/attendance join bob", drop), "bob is in voice channel")
			clock.Add(31 * time.Minute)
			step("/attendance stop", "2 members attended, 2 met the minimum", "Minted straight to the verified wallets of 1 member.",
				"Not minted to 1 eligible without a verified wallet: they claim with the button.", "--- posted here ---")
			step(fmt.Sprintf("/as ada\n/claim %d", drop), "You have it already", "was minted to "+sandbox.DemoWallet2)
		})
	}
}

// TestAttendance_ConsoleRestart rehearses a session across a restart of
// the console, which keeps no voice state: the next start resumes the
// session with nobody present, so the 15 minutes the console was down are
// credited to nobody (ada, who was in, gets her 20 minutes before and the
// 10 after she joins again), and the summary says how long that was.
func TestAttendance_ConsoleRestart(t *testing.T) {
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			clock := coretest.NewClock(time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC))
			start := func() *session {
				return startMainTuned(t, map[string]string{"DATABASE_URL": dbURL}, true, func(m *Main) { m.Clock = clock })
			}
			s := start()
			step := consoleStep(t, s)
			drop := sandbox.DemoLinksDropID
			step(fmt.Sprintf("/drop add %d %s delivery:link", drop, sandbox.DemoEditCode), "is set up here")
			step(fmt.Sprintf("/attendance start voice %d 25m", drop), "Counting who attends voice")
			step("/attendance join ada\n/attendance join bob", "bob is in voice channel")
			clock.Add(20 * time.Minute) // 18:20
			s.stop()
			if err := s.wait(); err != nil {
				t.Fatal(err)
			}
			s.m.Close()

			clock.Add(15 * time.Minute) // 18:35
			s = start()
			step = consoleStep(t, s)
			step("/attendance list", "2 members", "ada: 20 minutes", "bob: 20 minutes")
			step("/attendance join ada", "ada is in voice channel")
			clock.Add(10 * time.Minute) // 18:45
			step("/attendance stop", "--- posted here ---", "2 members attended, 1 met the minimum of 25 minutes", "It lasted 45 minutes",
				"The bot was down for 15 minutes of it, credited to nobody.")
			step(fmt.Sprintf("/as ada\n/claim %d", drop), "Here is your mint link")
			step(fmt.Sprintf("/as bob\n/claim %d", drop), "20 of 25 minutes")
		})
	}
}

// consoleStep returns a function that types lines on the console and
// waits until the output after them shows every want.
func consoleStep(t *testing.T, s *session) func(lines string, wants ...string) {
	return func(lines string, wants ...string) {
		t.Helper()
		before := len(s.out.String())
		if _, err := s.stdin.Write([]byte(lines + "\n")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if _, err := s.out.WaitFor(ctx, func(out string) bool {
			for _, w := range wants {
				if !strings.Contains(out[before:], w) {
					return false
				}
			}
			return true
		}); err != nil {
			t.Fatalf("%q: the output does not show %q:\n%s", lines, wants, s.out.String()[before:])
		}
	}
}
