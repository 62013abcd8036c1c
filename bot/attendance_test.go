package bot

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// attendanceLine runs a line as who in the console's place, with caps.
func (e *dropEnv) attendanceLine(t *testing.T, caps Capabilities, who, line string) Reply {
	t.Helper()
	req := &Request{
		Place: core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"},
		Chat:  Chat{Channel: "general"},
		Caps:  caps, Caller: Caller{ExternalID: who, Name: who, ManagesDrops: who == "mod"},
	}
	reply, ok := e.b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	return reply
}

// TestAttendance_Commands rehearses /attendance through the bot on each
// database: a minimum of zero and a second session in a channel are
// refused; a member present at the start is counted; the stop posts the
// summary as a claim message in the channel the session started in; the
// list and the export show the minutes; a member never in the call is
// refused the drop with their minutes; the stand-ins exist only on a
// rehearsal's console.
func TestAttendance_Commands(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, newURL func() string) {
		db, err := storage.Open(t.Context(), newURL(), storage.WithKey(storage.Key{7}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		e := newDropEnv(t, db)
		console := Capabilities{Rehearsal: true, Voice: true}
		run := func(who, line string) Reply { t.Helper(); return e.attendanceLine(t, console, who, line) }
		want := func(r Reply, line string, parts ...string) {
			t.Helper()
			for _, p := range parts {
				if !strings.Contains(PlainText(r.Text), p) {
					t.Errorf("%s = %q, want %q in it", line, PlainText(r.Text), p)
				}
			}
		}
		drop := sandbox.DemoLinksDropID
		run("mod", fmt.Sprintf("/drop add %d %s delivery:link", drop, sandbox.DemoEditCode))

		line := fmt.Sprintf("/attendance start voice %d 0m", drop)
		want(run("mod", line), line, "minimum of zero")
		line = fmt.Sprintf("/attendance start voice %d 30m", drop)
		want(run("ada", line), line, "Only moderators")
		want(run("mod", "/attendance join ada"), "join", "ada is in voice channel voice")
		want(run("mod", line), line, "Counting who attends", "30 minutes")
		want(run("mod", line), line, "already being counted in that channel")
		want(run("mod", "/attendance join bob voice true"), "join deaf", "deafened")
		want(run("mod", "/attendance list"), "list open", "ada: 0 minutes")

		e.clock.Add(31 * time.Minute)
		stop := run("mod", "/attendance stop")
		want(stop, "stop", "1 member attended, 1 met the minimum of 30 minutes")
		if stop.Post == nil || stop.Post.Channel != "general" || len(stop.Post.Buttons) != 1 || stop.Post.Buttons[0].Command != fmt.Sprintf("/claim %d", drop) {
			t.Fatalf("stop's post = %+v, want the summary with a Claim button in general", stop.Post)
		}
		want(Reply{Text: stop.Post.Text}, "stop's post", "Attendance of voice", "1 met the minimum", "links left")
		want(run("mod", "/attendance list"), "list", "ada: 31 minutes ✓", "1 member.")
		export := run("mod", "/attendance export")
		if export.File == nil || !strings.HasPrefix(string(export.File.Data), "member,minutes,seconds,eligible,left_server\n") ||
			!strings.Contains(string(export.File.Data), ",31,1860,true,false") || strings.Contains(string(export.File.Data), "ada") {
			t.Errorf("export = %+v, want the CSV with pseudonymous ids", export.File)
		}
		want(run("bob", fmt.Sprintf("/claim %d", drop)), "bob's claim", "You were not counted in the attendance of voice: 0 of 30 minutes")
		want(run("cy", fmt.Sprintf("/claim %d", drop)), "cy's claim", "You were not counted in the attendance of voice: 0 of 30 minutes")
		if r := run("ada", fmt.Sprintf("/claim %d", drop)); !strings.Contains(r.Text, "https://poap.test/") {
			t.Errorf("ada's claim = %q, want her mint link", r.Text)
		}

		// A large call's list comes in pages.
		big := run("mod", fmt.Sprintf("/attendance start big %d 1m", drop))
		want(big, "start big", "Counting who attends")
		// The session's number: PostgreSQL's sequence skipped the one the
		// refused second start took.
		sess := regexp.MustCompile(`\(session (\d+)\)`).FindStringSubmatch(big.Text)
		if sess == nil {
			t.Fatalf("start big = %q, want its session number", big.Text)
		}
		for i := range attendancePageSize + 1 {
			run("mod", fmt.Sprintf("/attendance join m%02d big", i))
		}
		first := run("mod", "/attendance list")
		want(first, "list big", "Session "+sess[1], "21 members.", "m00: 0 minutes")
		if len(first.Buttons) != 1 || first.Buttons[0].Command != "/attendance list session:"+sess[1]+" page:2" {
			t.Fatalf("list's buttons = %+v, want Next to page 2", first.Buttons)
		}
		second := run("mod", first.Buttons[0].Command)
		if n := strings.Count(second.Text, "\n- "); n != 1 || len(second.Buttons) != 1 || second.Buttons[0].Label != "Previous" {
			t.Errorf("page 2 = %q with %+v, want one member and Previous", second.Text, second.Buttons)
		}
		want(run("mod", "/attendance stop channel:voice"), "stop with no session there", "No attendance is being counted here in voice.")

		// The stand-ins are the console's; elsewhere they are unknown.
		discord := Capabilities{Voice: true}
		want(e.attendanceLine(t, discord, "mod", "/attendance join ada"), "join on Discord", "I don't know the command")
		// Telegram tells bots nothing of a video chat.
		for _, l := range []string{"/attendance", line, "/attendance stop"} {
			req := &Request{
				Place: core.Place{Platform: core.Telegram, ExternalID: "-100", Name: "Group"}, Chat: Chat{Channel: "-100"},
				Caps: Capabilities{GroupGates: true, PrivateReplies: true}, Caller: Caller{ExternalID: "7", Name: "Mod", ManagesDrops: true},
			}
			r, _ := e.b.HandleLine(context.Background(), req, l, "")
			want(r, l+" on Telegram", "Telegram does not tell bots who is in a video chat", "/drop deliver", "codeword")
		}
	})
}
