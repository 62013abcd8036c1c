// Package console is the terminal adapter of a rehearsal: it reads command
// lines from standard input and prints the bot's replies, and the posts it
// publishes with each change of their count, acting as the member
// "console" of the place "console", with moderator rights, until /as
// names another member. It keeps its own roles, by name, for gating, and
// opens files by their paths for Moments. It declares itself a rehearsal,
// so the commands that exist only there (/sign) are offered on it.
package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// Owner is the member the console acts as until /as says otherwise. It has
// moderator rights.
const Owner = "console"

// maxLine bounds one input line; longer lines are refused, not buffered.
const maxLine = 64 << 10

// Console is one terminal session.
type Console struct {
	in          io.Reader
	out         io.Writer
	interactive bool
	member      string
	fileDir     string
	roles       *Roles
	// outMu keeps lines whole: gate changes print from the background.
	outMu sync.Mutex
	// served is set by the first Run: a second would read the same input.
	served atomic.Bool
}

var _ bot.Adapter = (*Console)(nil)

// New returns a console over in and out; Run serves a bot on it.
// Interactive sessions (a terminal) get a prompt; piped input gets none.
func New(in io.Reader, out io.Writer, interactive bool) *Console {
	c := &Console{in: in, out: out, interactive: interactive, member: Owner, fileDir: os.TempDir()}
	c.roles = &Roles{c: c, members: map[string]map[string]bool{}}
	return c
}

// WithFileDir sets the directory where files sent with replies (exports)
// are saved; empty keeps the default, os.TempDir. It returns c.
func (c *Console) WithFileDir(dir string) *Console {
	if dir != "" {
		c.fileDir = dir
	}
	return c
}

// Platform returns core.Console.
func (c *Console) Platform() core.Platform { return core.Console }

// Run reads lines and runs them with b until the input ends (it returns
// nil), /quit is typed, or ctx is done (it returns ctx.Err()). Commands run
// one at a time, in order.
func (c *Console) Run(ctx context.Context, b *bot.Bot) error {
	if c.served.Swap(true) {
		return errors.New("console: Run called twice")
	}
	lines := make(chan lineOrErr)
	go c.read(ctx, lines)
	for {
		c.prompt()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok := <-lines:
			if !ok {
				return nil
			}
			if l.err != nil {
				c.printf("%s\n", l.err)
				continue
			}
			if !c.runLine(ctx, b, l.text) {
				return nil
			}
		}
	}
}

// runLine handles one line; it returns false when the session should end.
func (c *Console) runLine(ctx context.Context, b *bot.Bot, line string) bool {
	line = strings.TrimSpace(line)
	word, arg, _ := strings.Cut(line, " ")
	switch word {
	case "":
		return true
	case "/quit", "/exit":
		return false
	case "/as":
		c.switchMember(strings.TrimSpace(arg))
		return true
	}
	req := &bot.Request{
		Place: Place(),
		Chat:  bot.Chat{Private: true, Channel: "console"},
		Caps:  capabilities,
		Caller: bot.Caller{
			ExternalID:   c.member,
			Name:         c.member,
			ManagesDrops: c.member == Owner,
			ManagesRoles: c.member == Owner,
		},
	}
	if cmd := b.Command(strings.TrimPrefix(word, "/")); cmd != nil && cmd.TakesFiles() {
		// The console has no event id: nothing delivers a line twice.
		line, req.Media = cutMedia(line)
		req.Progress = func(r bot.Reply) { c.printf("  … %s\n", bot.PlainText(r.Text)) }
	}
	reply, ok := b.HandleLine(ctx, req, line, "")
	if !ok {
		c.printf("Commands start with a slash. Type /help to see them.\n")
		return true
	}
	if word == "/help" {
		reply.Text += "\n\nOn the console: " + "`/as NAME` acts as another member (`/as " + Owner + "` is the moderator), `/quit` leaves."
	}
	if reply.Post != nil {
		c.publish(ctx, b, *reply.Post)
		reply.Post = nil
	}
	c.render(reply)
	return true
}

// maxMemberName is the longest name /as takes: the console's member id,
// stored like a platform's.
const maxMemberName = 64

func (c *Console) switchMember(name string) {
	if name == "" || strings.ContainsAny(name, " \t") {
		c.printf("Give one name: /as alice\n")
		return
	}
	if !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxMemberName || strings.ContainsFunc(name, unicode.IsControl) {
		c.printf("Give a shorter name, at most %d letters or digits: /as alice\n", maxMemberName)
		return
	}
	c.member = name
	role := "a member"
	if name == Owner {
		role = "the moderator"
	}
	c.printf("You are now %s, %s.\n", name, role)
}

// render prints a reply as plain text, then its buttons, and saves its
// file, printing the path. The reply goes out in one write, so a line
// printed from the background (a gate's role change) never lands inside it
// and whoever reads the output sees a reply whole or not at all.
func (c *Console) render(r bot.Reply) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", bot.PlainText(r.Text))
	writeButtons(&b, r.Buttons)
	if r.File != nil {
		name := filepath.Base(r.File.Name)
		path, err := c.save(name, r.File.Data)
		if err != nil {
			fmt.Fprintf(&b, "  The file %s could not be saved: %v\n", name, err)
		} else {
			fmt.Fprintf(&b, "  Saved %s to %s\n", name, path)
		}
	}
	c.printf("%s", b.String())
}

// save writes data into the file directory under a new name made from name
// (a base name), keeping its extension, readable by the owner only (an
// export names wallets).
func (c *Console) save(name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	out, err := os.CreateTemp(c.fileDir, strings.TrimSuffix(name, ext)+"-*"+ext)
	if err != nil {
		return "", err
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return "", err
	}
	return out.Name(), out.Close()
}

// Say prints a line of the program's own, such as where its log goes,
// whole.
func (c *Console) Say(line string) {
	c.printf("%s\n", line)
}

func (c *Console) prompt() {
	if c.interactive {
		c.printf("%s> ", c.member)
	}
}

func (c *Console) printf(format string, args ...any) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	fmt.Fprintf(c.out, format, args...)
}

type lineOrErr struct {
	text string
	err  error
}

// errLineTooLong is reported for a line over maxLine bytes; the line is
// skipped and the session goes on.
var errLineTooLong = errors.New("that line is too long (over 64 KiB) and was skipped")

// read sends input lines until EOF or ctx is done, then closes the channel.
func (c *Console) read(ctx context.Context, out chan<- lineOrErr) {
	defer close(out)
	r := bufio.NewReaderSize(c.in, 4096)
	for {
		line, err := readLine(r)
		if errors.Is(err, io.EOF) && line == "" {
			return
		}
		item := lineOrErr{text: line}
		if errors.Is(err, errLineTooLong) {
			item = lineOrErr{err: err}
		}
		select {
		case out <- item:
		case <-ctx.Done():
			return
		}
		if errors.Is(err, io.EOF) {
			return
		}
	}
}

// readLine reads one line without its newline, discarding the rest of a
// line over maxLine bytes.
func readLine(r *bufio.Reader) (string, error) {
	var b strings.Builder
	tooLong := false
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return b.String(), err
		}
		if b.Len()+len(chunk) > maxLine {
			tooLong = true
		} else {
			b.Write(chunk)
		}
		if !isPrefix {
			break
		}
	}
	if tooLong {
		return "", errLineTooLong
	}
	return b.String(), nil
}

// capabilities are what the console can do: gates are roles it keeps by
// name; it is a rehearsal's, with its own commands; files are paths.
var capabilities = bot.Capabilities{
	Rehearsal: true,
	Voice:     true,
	FilesHint: "add `media:<path>[,<path>…]` with the files' paths",
}

// Capabilities returns what the console can do.
func (c *Console) Capabilities() bot.Capabilities { return capabilities }
