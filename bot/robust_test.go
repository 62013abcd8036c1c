package bot

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// badLines are things members type by mistake, or on purpose. Each must get
// a clear answer: never a crash, never the apology for an unknown error.
var badLines = []string{
	"/", "/ ", "/poaps 0x", "/poaps 0xZZ", "/poaps " + strings.Repeat("a", 300) + ".eth",
	"/poaps page:-1", "/poaps page:999999999999999999999", "/poaps @nobody", "/poaps member:ghost",
	"/link", "/link 0x", "/link vitalik", "/link a@b", "/link \"unterminated", "/link 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD",
	"/verify", "/verify 0x", "/verify nothex", "/verify 0x" + strings.Repeat("f", 130),
	"/unlink 0x1234", "/wallet extra words here", "/forget please",
	"/claim", "/claim abc", "/claim -1", "/claim 99999999", "/claim 197001 codeword:wrong",
	"/drop", "/drop add", "/drop add abc 123456", "/drop add 197001 12", "/drop add 197001 abcdef",
	"/drop add 197001 123456 delivery:teleport", "/drop add 197001 123456 starts:yesterday",
	"/drop add 197001 123456 starts:2026-12-02 ends:2026-12-01", "/drop add 197001 123456 low_stock:-5",
	"/drop info", "/drop info 42", "/drop remove 42", "/drop topup 197001 -3", "/drop topup 197001 999999999",
	"/drop export 42", "/drop network", "/drop network abc", "/drop network 42 base", "/drop network 197001 ethereum",
	"/drop network 197001 " + strings.Repeat("x", 30), "/distribute 42", "/distribute 197001 message:" + strings.Repeat("x", 600),
	"/nosuchcommand", "/help@OtherBot", "/poaps \x00\x01", "/link \u202e0x1234",
}

// TestBot_BadInput runs every bad line as a member and as a moderator, on a
// real store with the sandbox: each gets a personal answer that says what
// is wrong, counted as a user error, never an internal one.
func TestBot_BadInput(t *testing.T) {
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		e := newDropEnv(t, openStore(t, newURL()))
		for _, mod := range []bool{false, true} {
			for _, line := range badLines {
				e.obs.seen = nil
				req := &Request{
					Place:  core.Place{Platform: core.Console, ExternalID: "guild", Name: "Guild"},
					Caller: Caller{ExternalID: "m", Name: "m", ManagesDrops: mod, ManagesRoles: mod},
				}
				reply, ok := e.b.HandleLine(context.Background(), req, line, "")
				if !ok {
					continue // not a command at all: adapters answer with a hint
				}
				outcome := strings.Join(e.obs.seen, ",")
				if reply.Text == "" || strings.Contains(reply.Text, "reference ") || strings.HasSuffix(outcome, "/error") {
					t.Errorf("moderator %v: %q = %q (%s), want a clear answer to a user mistake", mod, line, reply.Text, outcome)
				}
				if !utf8.ValidString(reply.Text) {
					t.Errorf("%q: reply is not valid UTF-8", line)
				}
			}
		}
	})
}

// TestBot_SameAnswer types, as a moderator, the inputs that once reached
// the database and answered differently on PostgreSQL (the apology) and
// SQLite (stored): each is refused with its own clear answer before any
// store sees it, and every database gives the same answers.
func TestBot_SameAnswer(t *testing.T) {
	email := strings.Repeat("a", 3000) + "@example.org"
	tests := []struct{ line, want string }{
		{"/link a\x00b@example.org", "The option `wallet` has an invisible control character (U+0000)"},
		{"/link " + email, "The option `wallet` is too long: at most 256 characters"},
		{"/link " + strings.Repeat("a", 243) + "@example.org", "an e-mail address is at most 254 characters"},
		{"/claim 197001 open\x00sesame", "The option `codeword` has an invisible control character (U+0000)"},
		{"/claim 197001 " + strings.Repeat("s", 65), "The option `codeword` is too long: at most 64 characters"},
		{"/claim 197001 codeword:", "The option `codeword` needs a value after `codeword:`"},
		{"/drop add 197001 123456 codeword:a\u202eb", "The option `codeword` has an invisible control character (U+202E)"},
		{"/drop add 197001 123456 colour:red", "There is no option `colour` for `/drop add`; its options are `event`, `edit_code`"},
		{"/drop info abc", "The option `drop` must be a whole number. Type /help to see how to use `/drop info`."},
		{"/drop info 197001 123456", "Too many words: 1 more than the command takes"},
		{"/distribute 197001 message:" + strings.Repeat("x", 501), "The option `message` is too long: at most 500 characters"},
		{"/drop add 197001 123456 delivery:link starts:2026-12-01 18:00", "Claims: from 2026-12-01 at 18:00 UTC."},
	}
	// The dialects run in parallel subtests: their answers are compared
	// once both are done.
	var mu sync.Mutex
	answers := map[string][]string{}
	t.Cleanup(func() {
		var first []string
		for name, got := range answers {
			if first == nil {
				first = got
				continue
			}
			if diff := cmp.Diff(first, got); diff != "" {
				t.Errorf("%s answers differently (-one +other):\n%s", name, diff)
			}
		}
	})
	migrated.Each(t, func(t *testing.T, newURL func() string) {
		e := newDropEnv(t, openStore(t, newURL()))
		var got []string
		for _, tt := range tests {
			r := e.mod(t, tt.line)
			text := shown(r)
			if !strings.Contains(text, tt.want) {
				t.Errorf("%.60q = %q, want it to contain %q", tt.line, text, tt.want)
			}
			if strings.Contains(tt.line, "123456") && strings.Contains(text, "123456") {
				t.Errorf("%.60q: the answer repeats the edit code: %q", tt.line, text)
			}
			got = append(got, text)
		}
		mu.Lock()
		answers[t.Name()] = got
		mu.Unlock()
	})
}

// FuzzBot_HandleLine: whatever a member types, the bot answers without
// panicking, and the answer is never empty.
func FuzzBot_HandleLine(f *testing.F) {
	for _, l := range badLines {
		f.Add(l)
	}
	f.Add(fmt.Sprintf("/poaps %s", sandbox.DemoWallet))
	f.Add("/drop add 197001 123456")
	e := newDropEnv(f, openStore(f, migrated.SQLiteURL(f)))
	f.Fuzz(func(t *testing.T, line string) {
		req := &Request{Place: core.Place{Platform: core.Console, ExternalID: "guild"}, Caller: Caller{ExternalID: "m", Name: "m", ManagesDrops: true}}
		if reply, ok := e.b.HandleLine(context.Background(), req, line, ""); ok && reply.Text == "" && reply.Post == nil {
			t.Errorf("HandleLine(%q) gave an empty reply", line)
		}
	})
}

// openStore opens a database for the environment and closes it at the end.
func openStore(t testing.TB, url string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), url, storage.WithKey(storage.Key{7}))
	if err != nil {
		t.Fatalf("storage.Open() = %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
