// Command bot runs the POAP bot: the Discord and Telegram adapters, or the
// console, over one core, with the web endpoints beside them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the exit, so tests can call it. It returns the exit
// code: 0 on a clean stop, 1 on a failure, 2 on a usage or configuration
// error. Errors are printed as one line each, never as a stack trace.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	m := NewMain()
	fs := flag.NewFlagSet("bot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&m.Sandbox, "sandbox", false, "run the built-in sandbox of the issuing service and use it")
	fs.BoolVar(&m.Console, "console", false, "chat with the bot from this terminal")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { usage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bot: unexpected argument %q (see bot -h)\n", fs.Arg(0))
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "poapbot", version)
		return 0
	}

	cfg, err := LoadConfig()
	if err == nil {
		err = cfg.Validate(m.Sandbox, m.Console)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot: %s\n", oneLine(err))
		return 2
	}
	m.Config = cfg
	m.Stdin, m.Stdout = stdin, stdout
	m.Interactive = isTerminal(stdin)
	closeLog, err := m.startLog(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bot: log file: %s\n", oneLine(err))
		return 1
	}
	defer closeLog()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runErr := m.Run(ctx)
	closeErr := m.Close()
	if err := errors.Join(runErr, closeErr); err != nil {
		fmt.Fprintf(stderr, "bot: %s\n", oneLine(err))
		return 1
	}
	return 0
}

// oneLine joins the lines of a (joined) error with "; ".
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: bot [-sandbox] [-console] [-version]\n\n")
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nTry it with no credentials:  bot -sandbox -console\n")
	fmt.Fprintf(w, "Every environment variable is listed in README.md.\n")
}
