package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childEnv, set in a process's environment, makes the test binary the
// bot itself: TestMain runs main's run with the arguments in childArgs.
// Tests that must kill the bot outright, or measure its memory alone, run
// it so, as a process of its own.
const (
	childEnv  = "POAPBOT_TEST_CHILD"
	childArgs = "POAPBOT_TEST_CHILD_ARGS"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(run(strings.Fields(os.Getenv(childArgs)), os.Stdin, os.Stdout, os.Stderr))
	}
	flag.Parse()
	parallelAtLeast(minParallel)
	os.Exit(m.Run())
}

// minParallel is how many tests of this package run at once, at least,
// unless -parallel says otherwise. The end-to-end tests spend most of
// their time waiting on their fakes and tickers, not computing (a plain
// run used about a tenth of one core), so go test's default of one test
// per core leaves a small machine idle. At 8 the whole package passed,
// under -race too, on a 2-core machine shared with other suites.
const minParallel = 8

// parallelAtLeast raises -test.parallel to n when the command line did not
// set it.
func parallelAtLeast(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if p := flag.Lookup("test.parallel"); p != nil && !set {
		if cur, err := strconv.Atoi(p.Value.String()); err == nil && cur < n {
			_ = p.Value.Set(strconv.Itoa(n))
		}
	}
}

// child is the bot running in a process of its own.
type child struct {
	cmd  *exec.Cmd
	addr string // HTTP_ADDR
	logs *lockedBuffer
	done chan struct{}
	err  error
}

// lockedBuffer is the child's output, written by its pipe and read by
// the test.
type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed at the next write
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		close(l.written)
		l.written = nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// next returns a channel closed at the next write: take it before reading
// the output, so no write between the two is missed.
func (l *lockedBuffer) next() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written == nil {
		l.written = make(chan struct{})
	}
	return l.written
}

// startChild runs the bot, as the test binary re-run (TestMain), in a new
// process with env and args; see startProcess.
func startChild(t testing.TB, env map[string]string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{childEnv + "=1", childArgs + "=" + strings.Join(args, " ")}
	return startProcess(t, cmd, env)
}

// startBuilt runs the bot built by buildBot, in a new process with env and
// args: a measure of the bot's own memory, which the test binary's would
// overstate (it links the simulated chain of the smart-wallet tests,
// go-ethereum's, whose packages alone hold about 35 MB).
func startBuilt(t testing.TB, bin string, env map[string]string, args ...string) *child {
	t.Helper()
	return startProcess(t, exec.Command(bin, args...), env)
}

// buildBot builds ./cmd/bot as the Dockerfile does (CGO_ENABLED=0,
// -trimpath, -ldflags "-s -w") into the test's temporary directory and returns its path.
func buildBot(t testing.TB) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building the bot needs the go command on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "bot")
	build := exec.Command(goTool, "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/bot: %v\n%s", err, out)
	}
	return bin
}

// startProcess runs cmd as the bot with env added to cmd.Env (over a clean
// environment: no variable of the test's own leaks in), and waits until it
// answers /readyz. It listens on a loopback port the system chooses, read
// from its own log line (so LOG_LEVEL, debug unless env sets it, must be
// info or debug): a port found free and closed before the bot bound it
// could be taken meanwhile by another test, whose /readyz would then
// answer for it. The test's end kills it if it still runs.
func startProcess(t testing.TB, cmd *exec.Cmd, env map[string]string) *child {
	t.Helper()
	if l := env["LOG_LEVEL"]; l != "" && l != "debug" && l != "info" {
		t.Fatalf("the bot's address is read from an info line: LOG_LEVEL %q would hide it", l)
	}
	c := &child{cmd: cmd, logs: &lockedBuffer{}, done: make(chan struct{})}
	c.cmd.Env = append(c.cmd.Env, "HTTP_ADDR=127.0.0.1:0", "HOME="+os.Getenv("HOME"), "PATH="+os.Getenv("PATH"), "LOG_LEVEL=debug", "LOG_FORMAT=text")
	if env["BOT_SECRET_KEY"] == "" {
		c.cmd.Env = append(c.cmd.Env, "BOT_SECRET_KEY="+strings.Repeat("ab", 32))
	}
	for k, v := range env {
		c.cmd.Env = append(c.cmd.Env, k+"="+v)
	}
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
		if t.Failed() {
			t.Logf("bot process output:\n%s", c.logs)
		}
	})
	c.addr = c.waitListening(t)
	c.waitReady(t)
	return c
}

// listening is the log line of the bot's HTTP_ADDR listener, with the
// address it bound.
var listening = regexp.MustCompile(`msg="http server listening" addr=(127\.0\.0\.1:[0-9]+) variable=HTTP_ADDR`)

// waitListening waits until the child logs the address it listens on, or
// fails the test when it exits first or takes a minute.
func (c *child) waitListening(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		written := c.logs.next()
		if m := listening.FindStringSubmatch(c.logs.String()); m != nil {
			return m[1]
		}
		select {
		case <-c.done:
			t.Fatalf("the bot process exited before it listened (%v):\n%s", c.err, c.logs)
		case <-ctx.Done():
			t.Fatalf("the bot process did not listen within a minute:\n%s", c.logs)
		case <-written:
		}
	}
}

// waitReady waits until the child answers GET /readyz with 200, or
// fails the test when it exits first or takes a minute.
func (c *child) waitReady(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.addr+"/readyz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-c.done:
			t.Fatalf("the bot process exited before it was ready (%v):\n%s", c.err, c.logs)
		case <-ctx.Done():
			t.Fatalf("the bot process was not ready within a minute:\n%s", c.logs)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill ends the child at once (SIGKILL): nothing of it runs after, no
// shutdown code, as when a machine dies.
func (c *child) kill(t testing.TB) {
	t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.done
}

// stop asks the child to stop (SIGTERM) and waits for it to exit.
func (c *child) stop(t testing.TB) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(time.Minute):
		t.Fatalf("the bot process did not stop within a minute of SIGTERM:\n%s", c.logs)
	}
	if c.err != nil {
		t.Errorf("the bot process exited with %v:\n%s", c.err, c.logs)
	}
}

// peakRSS returns the child's peak resident set (VmHWM), while it runs.
func (c *child) peakRSS(t testing.TB) uint64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("peak RSS of the bot process: %v", err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}
