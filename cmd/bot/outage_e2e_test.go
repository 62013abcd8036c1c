package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// TestMain_DatabaseOutage: PostgreSQL stops accepting connections in the
// middle of a session (ALLOW_CONNECTIONS false, and its backends
// terminated). Commands are answered, within a 2 s command deadline, with
// the storage message rather than the apology for an unknown error, and
// /readyz says 503; once the database is back, the same bot answers again
// without a restart, and no claim was lost or doubled.
func TestMain_DatabaseOutage(t *testing.T) {
	// Not parallel: a 2 s command deadline runs alone (see main_test.go).
	base := os.Getenv(storagetest.EnvURL)
	if base == "" {
		t.Skip(storagetest.EnvURL + " is not set (CI sets it)")
	}
	admin, name, url := outageDatabase(t, base)
	s := startMainTuned(t, map[string]string{"DATABASE_URL": url}, true, func(m *Main) { m.CommandTimeout = 2 * time.Second })
	ready := "http://" + s.m.Web.Addr() + "/readyz"
	say := func(line, want string) string {
		t.Helper()
		before := len(s.out.String())
		fmt.Fprintln(s.stdin, line)
		return waitAfter(t, s, before, func(out string) bool { return strings.Contains(out, want) })
	}
	say(fmt.Sprintf("/drop add %d %s delivery:link", sandbox.DemoLinksDropID, sandbox.DemoEditCode), "is set up here")
	say("/as alice", "You are now alice")
	first := mintLink.FindString(say(fmt.Sprintf("/claim %d", sandbox.DemoLinksDropID), "Here is your mint link"))

	adminExec(t, admin, fmt.Sprintf("ALTER DATABASE %s WITH ALLOW_CONNECTIONS false", name))
	adminExec(t, admin, fmt.Sprintf("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s' AND pid <> pg_backend_pid()", name))
	say("/as bob", "You are now bob")
	out := say(fmt.Sprintf("/claim %d", sandbox.DemoLinksDropID), "My storage is not answering right now")
	if strings.Contains(out, "reference ") || strings.Contains(out, "took too long") {
		t.Errorf("claim during the outage = %q, want only the storage message", out)
	}
	if code := status(t, ready); code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz during the outage = %d, want 503", code)
	}

	adminExec(t, admin, fmt.Sprintf("ALTER DATABASE %s WITH ALLOW_CONNECTIONS true", name))
	bobs := mintLink.FindString(say(fmt.Sprintf("/claim %d", sandbox.DemoLinksDropID), "Here is your mint link"))
	say("/as alice", "You are now alice")
	again := mintLink.FindString(say(fmt.Sprintf("/claim %d", sandbox.DemoLinksDropID), "mint link"))
	if first == "" || again != first || bobs == "" || bobs == first {
		t.Errorf("links: alice %q then %q, bob %q; want alice's the same twice and bob's another", first, again, bobs)
	}
	if code := status(t, ready); code != http.StatusOK {
		t.Errorf("GET /readyz after the outage = %d, want 200", code)
	}
}

// mintLink finds a mint link in console output.
var mintLink = regexp.MustCompile(`https?://\S+/mint/[0-9a-z]+`)

// outageDatabase creates a database of its own on the server of base (an
// outage must not touch the other tests' database) and drops it at the
// end. It returns an admin connection, the database's name and its URL.
func outageDatabase(t *testing.T, base string) (*sql.DB, string, string) {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("poapbot_outage_%d_%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
	adminExec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		// Registered after Main's cleanup, so it runs once Main closed.
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u := regexp.MustCompile(`/[^/?]*(\?|$)`).ReplaceAllString(base[strings.Index(base, "://")+3:], "/"+name+"$1")
	return admin, name, base[:strings.Index(base, "://")+3] + u
}

func adminExec(t *testing.T, db *sql.DB, query string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// status returns the status code of a GET of url.
func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMain_IssuerStorm: the issuing service answers 503 to everything.
// Once the client's circuit opens, commands are answered at once, within a
// 1 s command deadline, that POAP is not answering, and no request reaches
// the service any more. (TestClient_Circuit shows it closing again.)
func TestMain_IssuerStorm(t *testing.T) {
	// Not parallel: a 1 s command deadline runs alone (see main_test.go).
	s := startMainTuned(t, map[string]string{}, true, func(m *Main) {
		m.CommandTimeout = time.Second
		m.POAPCircuit = poap.CircuitPolicy{Cooldown: time.Hour}
	})
	s.m.SandboxAPI.FailNext(1_000_000, http.StatusServiceUnavailable)
	poaps := func() (answer string, requests int) {
		t.Helper()
		before, sent := len(s.out.String()), s.m.SandboxAPI.Requests(wire.OpScan)
		fmt.Fprintf(s.stdin, "/poaps %s\n", sandbox.DemoWallet)
		answer = waitAfter(t, s, before, func(out string) bool {
			return strings.Contains(out, "not answering") || strings.Contains(out, "took too long")
		})
		return answer, s.m.SandboxAPI.Requests(wire.OpScan) - sent
	}
	open := false
	for range 5 {
		if answer, n := poaps(); strings.Contains(answer, "not answering") && n == 0 {
			open = true
			break
		}
	}
	if !open {
		t.Fatal("after 5 commands in the storm, the circuit is not open")
	}
	for range 3 {
		answer, n := poaps()
		if !strings.Contains(answer, "The POAP service is not answering right now") || n != 0 {
			t.Errorf("/poaps with the circuit open = %q and %d requests, want the POAP message at once and none", answer, n)
		}
	}
}

// waitAfter waits, for up to 10 s, until the session's output after its
// first from bytes satisfies cond, checking after every write, and returns
// that part of the output. It asserts nothing about speed.
func waitAfter(t *testing.T, s *session, from int, cond func(string) bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := s.out.WaitFor(ctx, func(out string) bool { return cond(out[from:]) })
	if err != nil {
		t.Fatalf("waiting for an answer: %v\n%s", err, s.out.String()[from:])
	}
	return out[from:]
}
