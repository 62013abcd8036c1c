package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// Outcomes of a command, the values of Observer.ObserveCommand's outcome
// (metric labels: stable and few).
const (
	// OutcomeOK: the command did what was asked.
	OutcomeOK = "ok"
	// OutcomeUserError: the member's input or state was wrong (bad wallet,
	// no links left, not linked...) and the reply said what to do instead.
	OutcomeUserError = "user_error"
	// OutcomeForbidden: the caller may not run the command here.
	OutcomeForbidden = "forbidden"
	// OutcomeError: an unexpected failure; the member got an apology and
	// the log has a line with a correlation id.
	OutcomeError = "error"
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
	if text, ok := attendanceErrText(req, err); ok {
		return personal(text, OutcomeUserError)
	}
	if text, ok := dropText(req, err); ok {
		return personal(text, OutcomeUserError)
	}
	if text, ok := linkText(err); ok {
		return personal(text, OutcomeUserError)
	}
	if text, ok := gateText(req, err); ok {
		return personal(text, OutcomeUserError)
	}
	if text, ok := momentText(req, err); ok {
		return personal(text, OutcomeUserError)
	}
	if text, ok := buttonText(err); ok {
		return personal(text, OutcomeForbidden)
	}
	if text, ok := refusalText(req, err); ok {
		b.log.Info("refused by the issuing service", "command", req.Command, "err", err)
		return personal(text, OutcomeUserError)
	}
	switch {
	case errors.Is(err, ErrAnonymous):
		return personal("You are posting as the group (an anonymous administrator), so I cannot tell who you are, "+
			"and "+codeSpan("/"+req.Command)+" answers what only you should see. Send it from your own account "+
			"(turn off Remain Anonymous in your administrator rights, or write to me in private).", OutcomeForbidden)
	case errors.As(err, &walletErr):
		return personal("That wallet doesn't look right: "+walletErr.Reason+". "+
			"Give a 0x address (42 characters), an ENS name like vitalik.eth, or an e-mail address.", OutcomeUserError)
	case errors.Is(err, core.ErrInvalidWallet):
		return personal("The issuing service says that is not a valid address. "+
			"Give a 0x address (42 characters), an ENS name like vitalik.eth, or an e-mail address.", OutcomeUserError)
	case errors.As(err, &optErr):
		return personal(optionText(req, optErr), OutcomeUserError)
	case errors.Is(err, ErrUnknownCommand):
		return personal("I don't know the command "+codeSpan("/"+req.Command)+". Type /help to see what I can do.", OutcomeUserError)
	case errors.Is(err, ErrNotDemoWallet):
		return personal(notDemoText(b.signer), OutcomeUserError)
	case errors.Is(err, core.ErrForbidden) && req.Caps.GroupGates && req.Chat.Private && strings.HasPrefix(req.Command, "gate "):
		return personal("On "+req.Place.Platform.Title()+" a gate is a group: run "+codeSpan("/"+req.Command)+" in the group you want to gate, as one of its administrators.", OutcomeForbidden)
	case errors.Is(err, core.ErrForbidden):
		return personal("Only moderators can run "+codeSpan("/"+req.Command)+" here.", OutcomeForbidden)
	case errors.Is(err, core.ErrNotLinked):
		return personal("There is no wallet linked yet. Link one with "+codeSpan("/link <wallet>")+
			", or name one with the command, for example "+codeSpan("/poaps 0x…")+".", OutcomeUserError)
	case errors.Is(err, core.ErrUnknownMember):
		return personal("I don't know that member yet: they have not linked a wallet with me.", OutcomeUserError)
	case errors.Is(err, core.ErrIssuerRejected):
		b.log.Error("issuing service refused our credentials", "command", req.Command, "err", err)
		return personal("The POAP service refused this bot's credentials, so I can't read POAPs right now. "+
			"A moderator should check the bot's POAP API key.", OutcomeError)
	case errors.Is(err, core.ErrIssuerUnavailable):
		b.log.Warn("issuing service unavailable", "command", req.Command, "err", err)
		if req.Command == "claim" {
			return personal("The POAP service did not answer, so nothing was minted. Please run "+codeSpan("/claim")+" again in a minute.", OutcomeError)
		}
		return personal("The POAP service is not answering right now. Please try again in a minute.", OutcomeError)
	case errors.Is(err, core.ErrStoreUnavailable):
		b.log.Warn("storage unavailable", "command", req.Command, "err", err)
		return personal("My storage is not answering right now, so I could not do that, and nothing was changed. "+
			"Please try again in a minute.", OutcomeError)
	case errors.Is(err, context.DeadlineExceeded):
		b.log.Warn("command timed out", "command", req.Command, "err", err)
		return personal("That took too long and was stopped. Please try again in a minute.", OutcomeError)
	}
	ref := reference()
	b.log.Error("command failed", "ref", ref, "platform", req.Place.Platform, "command", req.Command, "err", err)
	return personal("Sorry, something went wrong on my side (reference "+ref+"). Please try again in a minute.", OutcomeError)
}

// linkText words the errors of linking and verifying a wallet.
func linkText(err error) (string, bool) {
	var sigErr *core.SignatureError
	if text, ok := limitText(err); ok {
		return text, true
	}
	if text, ok := contractText(err); ok {
		return text, true
	}
	if text, ok := messageText(err); ok {
		return text, true
	}
	switch {
	case errors.Is(err, core.ErrNoChallenge):
		return "There's no wallet waiting for verification. Start with " + codeSpan("/link <wallet>") + ".", true
	case errors.Is(err, core.ErrChallengeExpired):
		return fmt.Sprintf("That challenge expired after %d minutes. Run %s again for a fresh one.",
			int(core.ChallengeTTL.Minutes()), codeSpan("/link <wallet>")), true
	case errors.Is(err, core.ErrChallengeLocked):
		return fmt.Sprintf("That challenge took %d wrong signatures, so it is locked: it takes no signature now, "+
			"not even the right one. Run %s again for a fresh challenge, and sign its message exactly as shown.",
			core.MaxWrongSignatures, codeSpan("/link <wallet>")), true
	case errors.Is(err, core.ErrChallengeUsed):
		return "That challenge was used already: a signature counts only once. " + codeSpan("/wallet") +
			" shows what is verified; to verify another wallet, start with " + codeSpan("/link <wallet>") + ".", true
	case errors.Is(err, core.ErrBadSignature):
		return "That doesn't look like a signature. A signature is 0x followed by hex characters (0-9, a-f): 130 of them " +
			"for an ordinary wallet, more for a smart-contract wallet, as your wallet app shows it after signing. Paste it whole: " + codeSpan("/verify 0x…") + ".", true
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
			"or the text signed was not exactly the message. Sign the message from the code block with " + want + "." + mismatchHint(err, want), true
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

// limitText words the refusals past a member's limits of wallets and
// open challenges: the limit, and what to do.
func limitText(err error) (string, bool) {
	var wallets *core.WalletLimitError
	var challenges *core.ChallengeLimitError
	switch {
	case errors.As(err, &wallets) && wallets.Held > wallets.Limit:
		return fmt.Sprintf("You have %d linked wallets, more than the %d a member can link now (they were linked before that limit), "+
			"so I linked nothing new. Your wallets stay linked; to link a new one, %s %d of them first (%s lists them).",
			wallets.Held, wallets.Limit, codeSpan("/unlink <wallet>"), wallets.Held-wallets.Limit+1, codeSpan("/wallet")), true
	case errors.As(err, &wallets):
		return fmt.Sprintf("You have linked %d wallets, the most a member can link here, so I linked nothing new. "+
			"To link another, %s one first (%s lists them).", wallets.Limit, codeSpan("/unlink <wallet>"), codeSpan("/wallet")), true
	case errors.As(err, &challenges):
		return fmt.Sprintf("You have %d wallet challenges waiting for a signature, the most at once, so I made no new one and linked nothing. "+
			"Sign the latest and send %s, or wait until %s UTC, when the first expires, and run %s again.",
			challenges.Limit, codeSpan("/verify <signature>"), challenges.Next.UTC().Format("15:04"), codeSpan("/link")), true
	}
	return "", false
}

// dropText words the refusals of drops and claims. Each says what to do
// instead, and when.
func dropText(req *Request, err error) (string, bool) {
	var choice *core.ChoiceError
	if errors.As(err, &choice) {
		return choiceText(req, choice), true
	}
	var de *core.DropError
	if !errors.As(err, &de) {
		return "", false
	}
	d := de.Drop
	id := fmt.Sprint(d.EventID)
	title := codeSpan(id)
	if d.Name != "" {
		title = dropTitle(d)
	}
	claimLine := codeSpan("/claim " + id)
	if text, ok := deliveryErrText(req, de, title, id); ok {
		return text, true
	}
	switch {
	case errors.Is(err, core.ErrWrongEditCode) && (req.Command == "drop network" || req.Command == "drop website"):
		return "POAP refused the edit code stored for drop " + codeSpan(id) + ", so nothing was changed. If the drop's edit code changed, " +
			"remove the drop with " + codeSpan("/drop remove "+id) + " and add it again with " + codeSpan("/drop add "+id+" <edit_code>") + ".", true
	case errors.Is(err, core.ErrWrongEditCode):
		return "POAP refused that edit code for drop " + codeSpan(id) + ", so nothing was stored. The edit code is the 6-digit code " +
			"POAP e-mailed when the drop was created; check it and run " + codeSpan("/drop add") + " again.", true
	case errors.Is(err, core.ErrUnknownEvent):
		return "POAP knows no drop " + codeSpan(id) + ". The drop id is the number in the drop's address on POAP; check it and try again.", true
	case errors.Is(err, core.ErrDropExists):
		return "Drop " + codeSpan(id) + " is set up here already. " + codeSpan("/drop info "+id) + " shows it, " +
			codeSpan("/drop edit "+id) + " changes its settings, and " + codeSpan("/drop refresh "+id) + " imports new mint links.", true
	case errors.Is(err, core.ErrInvalidWindow):
		return "That claim window can't work: " + codeSpan("ends") + " must be in the future and after " + codeSpan("starts") +
			". Times are in UTC, like 2026-12-01 18:00.", true
	case errors.Is(err, core.ErrInvalidClaimMethod):
		return "The claim method (" + codeSpan("delivery") + ") must be auto, link or mint.", true
	case errors.Is(err, core.ErrInvalidTopUp):
		return fmt.Sprintf("Ask for between 1 and %d mint links at a time.", core.MaxTopUp), true
	case errors.Is(err, core.ErrTopUpPending):
		return "A request for more mint links for " + title + " is already waiting for POAP's review, and only one can be pending. " +
			"Once it is approved, run " + codeSpan("/drop refresh "+id) + " to import the links.", true
	case errors.Is(err, core.ErrWebsitePending):
		return "A website request for " + title + " is already waiting for POAP's review, and only one can be pending. " +
			codeSpan("/drop info "+id) + " shows where it stands.", true
	case errors.Is(err, core.ErrInvalidWebsiteName):
		return fmt.Sprintf("A website claim name is 1 to %d letters, digits, - or _, like %s (the end of its poap.website address), "+
			"so nothing was asked of POAP and nothing was stored. Check the name and try again.", core.MaxWebsiteName, codeSpan("increase-group-student")), true
	case errors.Is(err, core.ErrNoWebsite):
		return "POAP has no website claim " + codeSpan(req.Text("website")) + " for drop " + codeSpan(id) + ", so nothing was stored. " +
			"Check the name (the end of its poap.website address), or set the drop up with another claim method and ask POAP for a website with " +
			codeSpan("/drop website") + ".", true
	case errors.Is(err, core.ErrNoSuchDrop):
		return "There is no drop " + codeSpan(id) + " here. Check the number; moderators see the drops of this place with " + codeSpan("/drop list") + ".", true
	case errors.Is(err, core.ErrDropRemoved):
		return title + " was stopped by the moderators here: it hands out no more POAPs.", true
	case errors.Is(err, core.ErrUnknownChain):
		return "POAP can't mint on that network, so nothing was changed. Name one of " + networkList() +
			" (or its chain id), for example " + codeSpan("/drop network "+id+" base") + ".", true
	case errors.Is(err, core.ErrMethodNotOffered) && strings.HasPrefix(req.Command, "drop "):
		method := strings.ToLower(strings.TrimSpace(req.Text("delivery")))
		if method == "" {
			method = string(de.Drop.Method)
		}
		return "This bot is not set up to hand out drops with " + codeSpan("delivery:"+method) + ", so nothing was changed. " +
			"Use auto, link or mint, or ask whoever runs the bot to set it up.", true
	case errors.Is(err, core.ErrMethodNotOffered):
		return title + " can't be claimed through this bot right now: it is handed out through a claim method this bot is not set up for. " +
			"Please tell a moderator.", true
	}
	return claimText(req, de, title, claimLine)
}

// claimText words the refusals of a claim.
func claimText(req *Request, de *core.DropError, title, claimLine string) (string, bool) {
	d, err := de.Drop, de.Err
	var ae *core.AttendanceError
	if errors.As(err, &ae) {
		return attendanceText(ae, title, claimLine), true
	}
	switch {
	case errors.Is(err, core.ErrClaimNotStarted) && d.Starts != nil:
		return title + " opens for claims on " + when(*d.Starts) + ". Come back then!", true
	case errors.Is(err, core.ErrDropExpired):
		return title + " has expired at POAP: no more of its POAPs can be minted. Sorry, this one is over.", true
	case errors.Is(err, core.ErrClaimEnded) && d.Ends != nil:
		return "Claims for " + title + " closed on " + when(*d.Ends) + ". Sorry, this one is over.", true
	case errors.Is(err, core.ErrClaimEnded):
		return "Claims for " + title + " are closed. Sorry, this one is over.", true
	case errors.Is(err, core.ErrWrongCodeword) && strings.TrimSpace(req.Text("codeword")) == "":
		return title + " needs a codeword, which the organisers share. Claim with " + codeSpan("/claim "+fmt.Sprint(d.EventID)+" <codeword>") + ".", true
	case errors.Is(err, core.ErrWrongCodeword):
		return "That is not the codeword of " + title + ". Check it with the organisers and try again: " +
			codeSpan("/claim "+fmt.Sprint(d.EventID)+" <codeword>") + ".", true
	case errors.Is(err, core.ErrMissingRole):
		return title + " is only for members with " + RoleMention(d.RequiredRole) + ". Once you have it, run " + claimLine + " again.", true
	case errors.Is(err, core.ErrNoMintLinksLeft):
		return "All mint links of " + title + " are taken. Moderators can ask POAP for more with " +
			codeSpan(fmt.Sprintf("/drop topup %d", d.EventID)) + "; try again later.", true
	case errors.Is(err, core.ErrWalletClaimed):
		return "Your primary wallet " + codeSpan(walletText(de.Wallet)) + " already received " + title + " through another member: " +
			"each wallet gets one POAP of a drop.", true
	case errors.Is(err, core.ErrWalletHoldsDrop):
		return "Your wallet " + codeSpan(walletText(de.Wallet)) + " already holds the POAP of " + title + ", so there is nothing more to claim. Enjoy it!", true
	case errors.Is(err, core.ErrMintLinkUsed):
		return "The mint link set aside for you for " + title + " turned out to be used outside this bot, so nothing was minted to you. " +
			"Please ask a moderator for help.", true
	case errors.Is(err, core.ErrWebsiteLimit):
		return "POAP says the website claim of " + title + " has minted all it may (LIMIT_EXCEEDED), so nothing was minted to you. " +
			"Moderators can raise its limit at POAP; try again after that.", true
	case errors.Is(err, core.ErrWebsiteInactive):
		return title + " is not open for claims yet: its website claim is waiting for POAP's review or is paused. Try again later.", true
	case errors.Is(err, core.ErrNoWebsite) && de.Drop.Method == core.ClaimWebsite:
		return "The website claim of " + title + " belongs to another drop at POAP, so I can't mint through it. Please tell a moderator.", true
	case errors.Is(err, core.ErrMintRefused):
		return "POAP refused to mint " + title + " to " + codeSpan(walletText(de.Wallet)) + ", so nothing was minted. Please tell a moderator.", true
	case errors.Is(err, core.ErrInvalidWallet) && de.Wallet != "":
		return "POAP does not accept " + codeSpan(walletText(de.Wallet)) + " as a wallet, so nothing was minted. Link another with " +
			codeSpan("/link <wallet>") + " and run " + claimLine + " again.", true
	case errors.Is(err, core.ErrNotLinked):
		return title + " is minted straight to your wallet. Link one first with " + codeSpan("/link <wallet>") + ", then run " + claimLine + " again.", true
	}
	return "", false
}

// attendanceText words a claim refused for attendance: counting still
// running, the member left the server, or their minutes and the minimum.
func attendanceText(ae *core.AttendanceError, title, claimLine string) string {
	st := ae.Standing
	channel := "the call"
	if name := strings.TrimSpace(st.ChannelName); name != "" {
		channel = Escape(name)
	}
	switch {
	case errors.Is(ae, core.ErrAttendancePending):
		return title + " is for the members who attend its call, and the attendance is still being counted. " +
			"Once the moderators stop it, run " + claimLine + " again."
	case errors.Is(ae, core.ErrAttendanceLeftServer):
		return "You were not counted in the attendance of " + channel + ": you left the server during it, so " + title +
			" is not yours to claim."
	}
	return fmt.Sprintf("You were not counted in the attendance of %s: %d of %d minutes. %s is for the members who met the minimum.",
		channel, st.Seconds/60, int64(st.Required/time.Minute), title)
}

// choiceText words a /claim or /distribute that named no drop where not
// exactly one is open.
func choiceText(req *Request, e *core.ChoiceError) string {
	command := "claim"
	if req.Command == "distribute" {
		command = req.Command
	}
	if len(e.Open) == 0 {
		if command == "distribute" {
			return "No drop is open for claims here, so say which one to post, for example " +
				codeSpan("/distribute <drop>") + "; " + codeSpan("/drop list") + " shows them."
		}
		return "No drop is open for claims here right now. Watch this place for the next one!"
	}
	names := make([]string, len(e.Open))
	for i, d := range e.Open {
		names[i] = dropTitle(d)
	}
	return "Several drops are open here: " + strings.Join(names, ", ") + ". Say which one, for example " +
		codeSpan(fmt.Sprintf("/%s %d", command, e.Open[0].EventID)) + "."
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
