package bot

import (
	"context"
	"strings"
)

func (b *Bot) helpCommand() *Command {
	return &Command{
		Name:          "help",
		Description:   "What this bot can do here, and what to do first",
		Access:        Anyone,
		AnswerInGroup: true,
		Handler:       b.help,
	}
}

// help lists the commands the caller may run here, with their usage.
func (b *Bot) help(_ context.Context, req *Request) (Reply, error) {
	var s strings.Builder
	s.WriteString("**" + Escape(b.name) + "** brings POAPs into this chat.\n\n")
	s.WriteString("**Start here:** link your wallet with " + codeSpan("/link <wallet>") + " (a 0x address, an ENS name or an e-mail), " +
		"then prove it's yours with " + codeSpan("/verify") + ". " + codeSpan("/poaps") + " shows the POAPs you hold.\n\n")
	s.WriteString("**Commands**\n")
	for _, c := range b.commands {
		if !allowed(c.Access, req.Caller) || (c.Console && !req.Caps.Rehearsal) {
			continue
		}
		s.WriteString(codeSpan(c.Usage()) + " — " + c.Description + "\n")
		for _, o := range c.Options {
			if o.Hidden || o.Type == AttachmentOption {
				continue
			}
			s.WriteString("    " + o.Name + ": " + o.Description + "\n")
		}
		if c.TakesFiles() {
			s.WriteString("    " + req.Caps.FilesHint + "\n")
		}
	}
	return Reply{Text: strings.TrimRight(s.String(), "\n"), Personal: true}, nil
}
