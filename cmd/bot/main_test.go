package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poapbot/poapbot/internal/testlog"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage/storagetest"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// configVars are the variables a test clears so the developer's own
// environment cannot leak into it: every one Config reads.
var configVars = func() []string {
	var names []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Config]()) {
		names = append(names, f.Tag.Get("envconfig"))
	}
	return names
}()

// The tests of this package run in parallel (t.Parallel), each on its own
// fakes, loopback ports, database and Config (testConfig), except those
// that go test then runs alone, one after another, before the others:
//   - the tests of run, which reads the process environment (cleanEnv);
//   - the bursts of hundreds or a thousand members (TestClaim_TelegramThousand,
//     TestDistribute_DiscordThousand, TestAttendance_DiscordBurst), whose
//     load beside other tests would make the Discord fake's 3 s deadline and
//     the machine's share of each test a matter of luck;
//   - the tests of a chain that never answers (see startWithHangingChain);
//   - the outages with a short command deadline (TestMain_DatabaseOutage,
//     2 s; TestMain_IssuerStorm, 1 s), where a command slowed by the others'
//     load would be answered "took too long" instead of the message tested.

// cleanEnv clears every configuration variable for the test, then sets the
// given ones. It is for the tests of run, which reads the process
// environment: they cannot run in parallel (t.Setenv refuses to). Other
// tests build their Config with testConfig.
func cleanEnv(t testing.TB, set map[string]string) {
	t.Helper()
	for _, k := range configVars {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for k, v := range set {
		t.Setenv(k, v)
	}
}

// testConfig reads a Config from env alone, as LoadConfig would from a
// process environment holding just those variables: the test's own
// environment does not leak in, and tests running in parallel do not see
// each other's.
func testConfig(t testing.TB, env map[string]string) Config {
	t.Helper()
	c, err := configFrom(mapLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRun_Configuration runs run, which reads the process environment: it
// and its subtests stay sequential (cleanEnv).
func TestRun_Configuration(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		want     string
	}{
		{"NothingSet", nil, nil, 2, "nothing to run: set DISCORD_TOKEN or TELEGRAM_TOKEN, or start with -console"},
		{"NoAPIKey", []string{"-console"}, nil, 2, "POAP_API_KEY is not set"},
		{"BadDuration", []string{"-console", "-sandbox"}, map[string]string{"GATE_SYNC_INTERVAL": "1d"}, 2, `GATE_SYNC_INTERVAL: "1d" is not a valid duration`},
		{"BadShard", []string{"-console", "-sandbox"}, map[string]string{"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_ID": "2"}, 2, "DISCORD_SHARD_ID must be between 0 and DISCORD_SHARD_COUNT-1"},
		{"BadLogLevel", []string{"-console", "-sandbox"}, map[string]string{"LOG_LEVEL": "loud"}, 2, "LOG_LEVEL must be one of"},
		{"HalfCredentials", []string{"-console", "-sandbox"}, map[string]string{"POAP_CLIENT_ID": "abc"}, 2, "POAP_CLIENT_ID and POAP_CLIENT_SECRET go together"},
		{"BadURL", []string{"-console", "-sandbox"}, map[string]string{"PUBLIC_URL": "example.org"}, 2, "PUBLIC_URL must be an absolute"},
		{"UpperCaseScheme", []string{"-console", "-sandbox"}, map[string]string{"PUBLIC_URL": "HTTPS://bot.example.org"}, 2, "PUBLIC_URL must be an absolute"},
		{"URLWithQuery", []string{"-console", "-sandbox"}, map[string]string{"PUBLIC_URL": "https://bot.example.org/?a=b"}, 2, "PUBLIC_URL must not carry a query"},
		{"URLWithFragment", []string{"-console", "-sandbox"}, map[string]string{"PUBLIC_URL": "https://bot.example.org/#x"}, 2, "PUBLIC_URL must not carry a query (?...) or a fragment"},
		{"URLWithEmptyQuery", []string{"-console", "-sandbox"}, map[string]string{"POAP_API_URL": "https://api.example.org?"}, 2, "POAP_API_URL must not carry a query"},
		{"PostgresWithoutKey", []string{"-console", "-sandbox"}, map[string]string{"DATABASE_URL": "postgres://u:pw@127.0.0.1:1/x", "HTTP_ADDR": "127.0.0.1:0"}, 1, "BOT_SECRET_KEY is required"},
		{"BadFlag", []string{"-nope"}, nil, 2, "flag provided but not defined: -nope"},
		{"Version", []string{"-version"}, nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t, tt.env)
			var stdout, stderr strings.Builder
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("run(%v) = %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), tt.wantCode, tt.want)
			}
			if tt.wantCode == 2 && tt.name != "BadFlag" && strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("configuration error is not one line: %q", stderr.String())
			}
			if strings.Contains(stderr.String(), "pw@") || strings.Contains(stderr.String(), "goroutine ") {
				t.Errorf("stderr leaks a password or a stack trace: %q", stderr.String())
			}
		})
	}
}

// testDatabases lists the databases the end-to-end test runs on: a SQLite
// file always, already migrated, and PostgreSQL when TEST_DATABASE_URL is
// set (in a schema of its own, so runs never see each other's rows).
func testDatabases(t *testing.T) map[string]string {
	t.Helper()
	return databases(t, migrated.SQLiteURL)
}

// emptyDatabases is testDatabases with an empty SQLite file, for the tests
// of what the bot's start does to a new database.
func emptyDatabases(t *testing.T) map[string]string {
	t.Helper()
	return databases(t, storagetest.SQLiteURL)
}

// databases lists a SQLite database sqliteURL makes and, when
// TEST_DATABASE_URL is set, a PostgreSQL schema.
func databases(t *testing.T, sqliteURL func(testing.TB) string) map[string]string {
	t.Helper()
	dbs := map[string]string{"sqlite": sqliteURL(t)}
	if base := os.Getenv(storagetest.EnvURL); base != "" {
		dbs["postgres"] = storagetest.PostgresURL(t, base)
	}
	return dbs
}

// session is a Main running in a goroutine.
type session struct {
	m     *Main
	stdin io.WriteCloser
	out   *testlog.Buffer
	stop  context.CancelFunc
	done  chan struct{}
	err   error
}

// wait waits for Run to return and gives its error.
func (s *session) wait() error { <-s.done; return s.err }

// startMain runs a Main with -sandbox -console on the database, with its
// console fed from s.stdin; closing it ends the session.
func startMain(t *testing.T, databaseURL string) *session {
	t.Helper()
	return startMainWith(t, map[string]string{"DATABASE_URL": databaseURL}, true)
}

// startMainWith runs a Main with -sandbox on loopback, configured by env
// alone (not the process environment), with or without the console; s.stop
// ends it.
func startMainWith(t *testing.T, env map[string]string, withConsole bool) *session {
	t.Helper()
	return startMainTuned(t, env, withConsole, nil)
}

// startMainTuned is startMainWith with tune applied to the Main before it
// runs (a shorter PostInterval, say).
func startMainTuned(t testing.TB, env map[string]string, withConsole bool, tune func(*Main)) *session {
	t.Helper()
	env = maps.Clone(env)
	env["HTTP_ADDR"] = "127.0.0.1:0"
	if env["BOT_SECRET_KEY"] == "" {
		env["BOT_SECRET_KEY"] = strings.Repeat("ab", 32)
	}
	if env["DATABASE_URL"] == "" {
		env["DATABASE_URL"] = migrated.SQLiteURL(t)
	}
	cfg := testConfig(t, env)
	in, stdin := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	s := &session{stdin: stdin, out: &testlog.Buffer{}, stop: stop, done: make(chan struct{})}
	s.m = NewMain()
	s.m.Config, s.m.Sandbox, s.m.Console, s.m.Stdin, s.m.Stdout = cfg, true, withConsole, in, s.out
	if tune != nil {
		tune(s.m)
	}
	go func() { s.err = s.m.Run(ctx); close(s.done) }()
	t.Cleanup(func() { stdin.Close(); stop(); s.wait(); s.m.Close() })
	select {
	case <-s.m.Started():
	case <-s.done:
		t.Fatalf("Run() = %v before it started", s.err)
	}
	return s
}

func TestMain_Console(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMain(t, url)
			fmt.Fprintf(s.stdin, "/help\n/poaps %s\n/poaps 0x12\n/poaps %s\n", sandbox.DemoWallet, sandbox.EmptyWallet)
			waitOutput(t, s, "holds no POAPs yet")

			base := "http://" + s.m.Web.Addr()
			for path, want := range map[string]string{
				"/healthz": "ok",
				"/readyz":  "ready",
				"/metrics": `poapbot_commands_total{command="poaps",outcome="ok",platform="console"} 2`,
			} {
				if body := get(t, base+path); !strings.Contains(body, want) {
					t.Errorf("GET %s lacks %q:\n%.2000s", path, want, body)
				}
			}
			metrics := get(t, base+"/metrics")
			for _, want := range []string{
				`poapbot_commands_total{command="poaps",outcome="user_error",platform="console"} 1`,
				`poapbot_poap_requests_total{operation="scan",status="200"} 2`,
				`poapbot_poap_request_duration_seconds_count{operation="scan"} 2`,
			} {
				if !strings.Contains(metrics, want) {
					t.Errorf("metrics lack %q", want)
				}
			}
			s.stdin.Close()
			if err := s.wait(); err != nil {
				t.Errorf("Run() = %v, want nil at end of input", err)
			}
			got := s.out.String()
			for _, want := range []string{"/poaps [wallet] [member]", "POAPs of 0xd3eeee483984730e415b604b6a526c504a7b1eca: 14, newest first (page 1 of 2)", "[Next] type: /poaps wallet:", "That wallet doesn't look right"} {
				if !strings.Contains(got, want) {
					t.Errorf("console output lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// TestMain_Restart starts twice on one database: the second start applies
// no migration again and the bot still answers.
func TestMain_Restart(t *testing.T) {
	t.Parallel()
	for name, url := range emptyDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var versions []int
			for range 2 {
				s := startMain(t, url)
				v, err := s.m.DB.SchemaVersion(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				versions = append(versions, v)
				s.stdin.Close()
				if err := s.wait(); err != nil {
					t.Fatal(err)
				}
				if err := s.m.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if versions[0] == 0 || versions[0] != versions[1] {
				t.Errorf("schema versions across restarts = %v, want the same non-zero version", versions)
			}
		})
	}
}

// TestRun_Signal runs the program in a child process and stops it with
// SIGTERM: it shuts down cleanly and exits 0.
func TestRun_Signal(t *testing.T) {
	if os.Getenv("POAPBOT_CHILD") == "1" {
		os.Exit(run([]string{"-sandbox", "-console"}, os.Stdin, os.Stdout, os.Stderr))
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRun_Signal$")
	cmd.Env = append(os.Environ(), "POAPBOT_CHILD=1", "HTTP_ADDR=127.0.0.1:0",
		"DATABASE_URL=sqlite:"+filepath.Join(t.TempDir(), "bot.db"), "LOG_FORMAT=text", "LOG_LEVEL=info")
	stdinW, err := cmd.StdinPipe() // kept open: the console waits for input
	if err != nil {
		t.Fatal(err)
	}
	defer stdinW.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() && !strings.Contains(lines.Text(), "bot started") {
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	if err := cmd.Wait(); err != nil {
		t.Errorf("child after SIGTERM: %v, want exit 0", err)
	}
	if !strings.Contains(string(rest), "bot stopped") {
		t.Errorf("child did not shut down cleanly; its log after the signal:\n%s", rest)
	}
}

// TestRun_SecondProcess starts the program on a SQLite file another bot
// process has open: it exits 1 with one line that names the lock file and
// the reason.
func TestRun_SecondProcess(t *testing.T) {
	dir := t.TempDir()
	databaseURL := "sqlite:" + filepath.Join(dir, "bot.db")
	if os.Getenv("POAPBOT_CHILD") == "1" {
		os.Exit(run([]string{"-sandbox", "-console"}, os.Stdin, os.Stdout, os.Stderr))
	}
	t.Parallel()
	first := startMainWith(t, map[string]string{"DATABASE_URL": databaseURL}, true)
	// The second is run as a child process, as a second bot would be.
	cmd := exec.Command(os.Args[0], "-test.run=^TestRun_SecondProcess$")
	cmd.Env = append(os.Environ(), "POAPBOT_CHILD=1", "HTTP_ADDR=127.0.0.1:0", "DATABASE_URL="+databaseURL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("second process on the file: %v, want exit 1", err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "bot: ") || !strings.Contains(last, filepath.Join(dir, "bot.db.lock")) ||
		!strings.Contains(last, "another bot process is using this SQLite database") {
		t.Errorf("second process's last line = %q, want one naming the lock file and saying why", last)
	}
	if strings.Contains(stderr.String(), "bot started") {
		t.Errorf("the second process started:\n%s", stderr.String())
	}
	// The first runs on.
	fmt.Fprintf(first.stdin, "/poaps %s\n", sandbox.DemoWallet)
	waitOutput(t, first, "POAPs of")
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// waitOutput waits, for up to 10 s, until the session's output contains
// want, checking after every write. It waits for goroutines of the program
// under test; it asserts nothing about speed.
func waitOutput(t *testing.T, s *session, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.out.WaitFor(ctx, func(out string) bool { return strings.Contains(out, want) }); err != nil {
		t.Fatalf("waiting for %q in the output: %v\n%s", want, err, s.out)
	}
}
