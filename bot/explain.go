package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// Outcomes counted per command.
const (
	outcomeUserError = "user_error"
	outcomeForbidden = "forbidden"
	outcomeError     = "error"
)

// explain is the one place where an error becomes the words a member reads.
// Every reply it makes is personal. Errors it does not know become a short
// apology with a reference that is also logged, so support can find it.
func (b *Bot) explain(req *Request, err error) (Reply, string) {
	personal := func(text, outcome string) (Reply, string) {
		return Reply{Text: text, Personal: true}, outcome
	}
	var (
		walletErr *core.WalletError
		optErr    *OptionError
	)
	if text, ok := linkText(err); ok {
		return personal(text, outcomeUserError)
	}
	switch {
	case errors.As(err, &walletErr):
		return personal("That wallet doesn't look right: "+walletErr.Reason+". "+
			"Give a 0x address (42 characters), an ENS name like vitalik.eth, or an e-mail address.", outcomeUserError)
	case errors.Is(err, core.ErrInvalidWallet):
		return personal("The issuing service says that is not a valid address. "+
			"Give a 0x address (42 characters), an ENS name like vitalik.eth, or an e-mail address.", outcomeUserError)
	case errors.As(err, &optErr):
		return personal(optionText(req, optErr), outcomeUserError)
	case errors.Is(err, ErrUnknownCommand):
		return personal("I don't know the command "+codeSpan("/"+req.Command)+". Type /help to see what I can do.", outcomeUserError)
	case errors.Is(err, core.ErrForbidden):
		return personal("Only moderators can run "+codeSpan("/"+req.Command)+" here.", outcomeForbidden)
	case errors.Is(err, core.ErrNotLinked):
		return personal("There is no wallet linked yet. Link one with "+codeSpan("/link <wallet>")+
			", or name one with the command, for example "+codeSpan("/poaps 0x…")+".", outcomeUserError)
	case errors.Is(err, core.ErrUnknownMember):
		return personal("I don't know that member yet: they have not linked a wallet with me.", outcomeUserError)
	case errors.Is(err, core.ErrIssuerRejected):
		b.log.Error("issuing service refused our credentials", "command", req.Command, "err", err)
		return personal("The POAP service refused this bot's credentials, so I can't read POAPs right now. "+
			"A moderator should check the bot's POAP API key.", outcomeError)
	case errors.Is(err, core.ErrIssuerUnavailable):
		b.log.Warn("issuing service unavailable", "command", req.Command, "err", err)
		return personal("The POAP service is not answering right now. Please try again in a minute.", outcomeError)
	case errors.Is(err, context.DeadlineExceeded):
		b.log.Warn("command timed out", "command", req.Command, "err", err)
		return personal("That took too long and was stopped. Please try again in a minute.", outcomeError)
	}
	ref := reference()
	b.log.Error("command failed", "ref", ref, "platform", req.Platform, "command", req.Command, "err", err)
	return personal("Sorry, something went wrong on my side (reference "+ref+"). Please try again in a minute.", outcomeError)
}

// linkText words the errors of linking and verifying a wallet.
func linkText(err error) (string, bool) {
	var sigErr *core.SignatureError
	switch {
	case errors.Is(err, core.ErrNoChallenge):
		return "There's no wallet waiting for verification. Start with " + codeSpan("/link <wallet>") + ".", true
	case errors.Is(err, core.ErrChallengeExpired):
		return "That challenge expired after 10 minutes. Run " + codeSpan("/link <wallet>") + " again for a fresh one.", true
	case errors.Is(err, core.ErrChallengeUsed):
		return "That challenge was used already: a signature counts only once. " + codeSpan("/wallet") +
			" shows what is verified; to verify another wallet, start with " + codeSpan("/link <wallet>") + ".", true
	case errors.Is(err, core.ErrBadSignature):
		return "That doesn't look like a signature. A signature is 0x followed by 130 hex characters (0-9, a-f), " +
			"as your wallet app shows it after signing. Paste it whole: " + codeSpan("/verify 0x…") + ".", true
	case errors.Is(err, core.ErrSignatureOldMessage):
		return "That is a signature of an earlier challenge message. Sign the message from your latest " +
			codeSpan("/link") + " reply, then send " + codeSpan("/verify") + " again.", true
	case errors.Is(err, core.ErrSignatureAltered):
		return "Your wallet signed a slightly different text: line breaks or spaces changed on the way. " +
			"Copy the message from the code block exactly as it is, sign it, then send " + codeSpan("/verify") + " again.", true
	case errors.As(err, &sigErr):
		want := codeSpan(core.ChecksumAddress(sigErr.Want))
		return "That signature doesn't match " + want + ", the wallet you are verifying: it was made by " +
			codeSpan(core.ChecksumAddress(sigErr.Recovered)) + ". Either another account signed (switch accounts in your wallet app), " +
			"or the text signed was not exactly the message. Sign the message from the code block with " + want + ".", true
	case errors.Is(err, core.ErrEmailNotVerifiable):
		return "An e-mail can receive mints but can't sign a message, so it can't be verified. " +
			"To verify a wallet, link a 0x address or an ENS name with " + codeSpan("/link <wallet>") + ".", true
	case errors.Is(err, core.ErrWalletNotLinked):
		return "You haven't linked that wallet. " + codeSpan("/wallet") + " lists the ones you have.", true
	case errors.Is(err, core.ErrConflict):
		return "That clashed with another change made at the same moment. Please try again.", true
	}
	return "", false
}

// optionText words an *OptionError, naming the command's usage.
func optionText(req *Request, e *OptionError) string {
	var b strings.Builder
	if e.Option != "" {
		b.WriteString("The option " + codeSpan(e.Option) + " " + e.Reason + ".")
	} else {
		b.WriteString(strings.ToUpper(e.Reason[:1]) + e.Reason[1:] + ".")
	}
	if req.Command != "" {
		b.WriteString(" Type /help to see how to use " + codeSpan("/"+req.Command) + ".")
	}
	return b.String()
}

// codeSpan marks text as inline code, dropping backquotes inside it.
func codeSpan(s string) string { return "`" + strings.ReplaceAll(s, "`", "") + "`" }

// commandWord returns the command word of a line, without slash or bot name.
func commandWord(line string) string {
	w, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	w, _, _ = strings.Cut(w, "@")
	const max = 32
	if len(w) > max {
		w = w[:max]
	}
	return strings.ToLower(w)
}

// reference returns a short random id that ties a reply to a log line.
func reference() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
