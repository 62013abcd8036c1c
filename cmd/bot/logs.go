package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/poapbot/poapbot/storage"
)

// logFileName is the log file of a run whose database is not a file
// (PostgreSQL), in the working directory.
const logFileName = "bot.log"

// logDestination says where the log goes: "" for standard error, else
// the file to append it to. The console shares the terminal with its
// chat, so with the console on a terminal the log goes to a file beside
// the SQLite database (bot.log beside bot.db), or to bot.log in the working
// directory for PostgreSQL; a standard error that is not a terminal (a
// file, a pipe, a service manager) keeps the log apart from the chat
// already and gets it.
func logDestination(console, stderrTerminal bool, databaseURL string) string {
	if !console || !stderrTerminal {
		return ""
	}
	db, ok := storage.SQLitePath(databaseURL)
	if !ok || db == "" || strings.HasPrefix(db, ":memory:") || strings.HasPrefix(db, "file::memory:") {
		// PostgreSQL, or a database in memory: no file to sit beside.
		return logFileName
	}
	path := strings.TrimSuffix(db, filepath.Ext(db)) + ".log"
	if path == db {
		path += ".log"
	}
	return path
}

// startLog sets m.Logger to write where logDestination says, and, with
// the console, m.LogNote to say where. It returns the function that
// closes the log file, or the error of opening it.
func (m *Main) startLog(stderr io.Writer) (closeLog func() error, err error) {
	path := logDestination(m.Console, isTerminal(stderr), m.Config.DatabaseURL)
	w, closeLog, err := openLog(path, stderr)
	if err != nil {
		return nil, err
	}
	m.Logger = newLogger(w, m.Config.LogLevel, m.Config.LogFormat)
	if m.Console {
		m.LogNote = logNote(path)
	}
	return closeLog, nil
}

// openLog opens the log's destination: stderr when path is "", else the
// file at path, appended to and readable by its owner only (logs name
// members). The close function closes what was opened.
func openLog(path string, stderr io.Writer) (w io.Writer, closeLog func() error, err error) {
	if path == "" {
		return stderr, func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// logNote is the line the console prints at start to say where the log
// goes.
func logNote(path string) string {
	if path == "" {
		return "Logs go to standard error."
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "Logs go to " + path + " (not into this chat)."
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// newLogger builds the process logger; cfg was validated.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
