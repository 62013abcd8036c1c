package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogDestination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		console, onTerm bool
		databaseURL     string
		want            string
	}{
		{"NoConsole", false, true, "", ""},
		{"ConsoleOnTerminal", true, true, "", "bot.log"},
		{"ConsoleOnTerminalSQLite", true, true, "sqlite:/var/lib/poap/bot.db", "/var/lib/poap/bot.log"},
		{"ConsoleOnTerminalSQLiteNoExt", true, true, "sqlite:data/poap", "data/poap.log"},
		{"ConsoleOnTerminalSQLiteLogName", true, true, "sqlite:data/odd.log", "data/odd.log.log"},
		{"ConsoleOnTerminalPostgres", true, true, "postgres://u:pw@db:5432/poap", "bot.log"},
		{"ConsoleOnTerminalMemory", true, true, "sqlite::memory:", "bot.log"},
		{"ConsoleStderrRedirected", true, false, "sqlite:/var/lib/poap/bot.db", ""},
		{"NoConsoleRedirected", false, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := logDestination(tc.console, tc.onTerm, tc.databaseURL); got != tc.want {
				t.Errorf("logDestination(%v, %v, %q) = %q, want %q", tc.console, tc.onTerm, tc.databaseURL, got, tc.want)
			}
		})
	}
}

func TestOpenLog(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bot.log")
	for _, line := range []string{"one\n", "two\n"} {
		w, closeLog, err := openLog(path, os.Stderr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
		if err := closeLog(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "one\ntwo\n" {
		t.Errorf("log file = %q, %v, want both lines appended", data, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("log file mode = %v, %v, want 0600", info.Mode(), err)
	}
	if _, _, err := openLog(filepath.Join(t.TempDir(), "missing", "bot.log"), os.Stderr); err == nil {
		t.Errorf("openLog() in a missing directory = nil error")
	}
	if w, _, err := openLog("", os.Stderr); err != nil || w != os.Stderr {
		t.Errorf("openLog(\"\") = %v, %v, want stderr", w, err)
	}
}

// TestRun_ConsoleLogs: with the console and a standard error that is not a
// terminal, the log goes there, the console says so in its first line, and
// no log line lands in the chat.
func TestRun_ConsoleLogs(t *testing.T) {
	cleanEnv(t, map[string]string{
		"DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "bot.db"), "HTTP_ADDR": "127.0.0.1:0", "LOG_LEVEL": "debug",
	})
	var stdout, stderr strings.Builder
	if code := run([]string{"-sandbox", "-console"}, strings.NewReader("/help\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("run() = %d, stderr:\n%s", code, stderr.String())
	}
	chat := stdout.String()
	if first, _, _ := strings.Cut(chat, "\n"); first != "Logs go to standard error." {
		t.Errorf("first console line = %q, want where the logs go", first)
	}
	if strings.Contains(chat, "level=") || !strings.Contains(chat, "/poaps") {
		t.Errorf("console output has log lines, or lacks /help:\n%s", chat)
	}
	if !strings.Contains(stderr.String(), "bot started") || !strings.Contains(stderr.String(), "bot stopped") {
		t.Errorf("stderr lacks the log:\n%s", stderr.String())
	}
}
