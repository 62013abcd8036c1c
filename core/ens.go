package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adraffy/go-ens-normalize/ensip15"
)

// ENS names are normalised by ENSIP-15 (https://docs.ens.domains/ensip/15),
// the rules every ENS app applies before it computes a name's namehash, in
// the implementation its author maintains for Go,
// github.com/adraffy/go-ens-normalize. Version v0.1.0 implements ENSIP-15
// 1.11.0 (Unicode 16) and passes all of that version's validation vectors;
// the vectors kept in testdata/ensip15 are those, and
// TestParseWallet_ENSIP15Vectors holds ParseWallet to them.
//
// Characters ENSIP-15 ignores (the soft hyphen, the zero-width space, the
// byte-order mark, variation selectors) are dropped, as ENSIP-15 says, not
// refused: they never reach the namehash, so "vit\u00adalik.eth" is
// vitalik.eth for every ENS app, and the member reads back exactly that,
// the normalised name, which is what is stored and shown. Refusing them
// would turn away a name ENS resolves without making any link safer.

// MaxENSLen is the most characters of a normalised ENS name the bot links.
// ENS sets no limit; this one keeps every reply that shows a name (two
// names in one /unlink reply, a challenge message) within a chat message,
// since normalising can lengthen a name (U+3316 becomes six letters).
const MaxENSLen = 255

// ensStops are the characters a member may type to separate the parts of
// an ENS name: the full stop, and the ideographic and full-width stops.
// Only the full stop separates parts in ENSIP-15, which refuses the other
// three; taking them for a name here lets the reply say so.
const ensStops = ".\uFF0E\u3002\uFF61"

// parseENS normalises an ENS name by ENSIP-15 and returns the normalised
// name, or a *WalletError saying in a member's words why ENSIP-15 refuses
// it, or why the bot does not link it: longer than MaxENSLen, or, once
// normalised, 42 characters starting with 0x, which ParseWallet reads as
// an address.
func parseENS(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", &WalletError{Input: s, Reason: "this is not a valid ENS name: it is not valid text"}
	}
	name, err := ensip15.Shared().Normalize(s)
	if err != nil {
		return "", &WalletError{Input: s, Reason: ensReason(err)}
	}
	if n := utf8.RuneCountInString(name); n > MaxENSLen {
		return "", &WalletError{Input: s, Reason: fmt.Sprintf("an ENS name here is at most %d characters once normalised, and this one has %d", MaxENSLen, n)}
	}
	if addressShaped(name) {
		// Typed with a full-width letter, say: stored, it would read as
		// a mistyped address, and no member could name it again.
		return "", &WalletError{Input: s, Reason: "once normalised this name has the shape of a 0x address (42 characters), and ENS names here do not"}
	}
	return name, nil
}

// ensReasons put the library's errors into a member's words. Each reason
// gets the detail the library writes after its sentinel's text (a group
// name, a code point written {HEX}, a character's name).
var ensReasons = []struct {
	err   error
	words func(detail string) string
}{
	{ensip15.ErrDisallowedCharacter, disallowedWords},
	{ensip15.ErrIllegalMixture, mixtureWords},
	{ensip15.ErrWholeConfusable, confusableWords},
	{ensip15.ErrEmptyLabel, fixed("a part of the name is empty (two dots in a row, or a dot at the start or end)")},
	{ensip15.ErrLeadingUnderscore, fixed("an underscore is allowed only at the start of a part of the name")},
	{ensip15.ErrInvalidLabelExtension, fixed("a part of the name has hyphens in its third and fourth place (as in xn--), which ENS does not allow")},
	{ensip15.ErrFencedLeading, withDetail("a part of the name starts with a punctuation mark ENS does not allow there")},
	{ensip15.ErrFencedTrailing, withDetail("a part of the name ends with a punctuation mark ENS does not allow there")},
	{ensip15.ErrFencedAdjacent, withDetail("the name has two punctuation marks in a row")},
	{ensip15.ErrCMLeading, withCodepoint("a part of the name starts with a combining mark")},
	{ensip15.ErrCMAfterEmoji, withCodepoint("a combining mark follows an emoji")},
	{ensip15.ErrNSMDuplicate, withCodepoint("a letter carries the same mark twice")},
	{ensip15.ErrNSMExcessive, fixed("a letter carries more marks than ENS allows")},
}

// ensReason says why ENSIP-15 refused a name. The library wraps the cause
// as `invalid label "…": cause`; the cause is matched by errors.Is or, for
// the three sentinels v0.1.0 formats with %v rather than %w (leading
// combining mark, emoji + combining mark, whole-script confusable), by the
// sentinel's text at the start of the cause: never in the label, which a
// member typed.
func ensReason(err error) string {
	cause := errors.Unwrap(err)
	if cause == nil {
		cause = err
	}
	msg := cause.Error()
	for _, r := range ensReasons {
		prefix := r.err.Error()
		if errors.Is(cause, r.err) || msg == prefix || strings.HasPrefix(msg, prefix+": ") {
			return r.words(strings.TrimPrefix(strings.TrimPrefix(msg, prefix), ": "))
		}
	}
	return ensOtherReason
}

// ensOtherReason is the reason for an error of the library ensReasons does
// not know: TestENSReason_EveryVector keeps it unused by the vectors.
const ensOtherReason = "ENS does not allow this name"

func fixed(reason string) func(string) string {
	return func(string) string { return reason }
}

// withDetail adds the library's words in brackets: the names of fenced
// characters ("apostrophe") are plain words.
func withDetail(reason string) func(string) string {
	return func(detail string) string { return reason + " (" + detail + ")" }
}

func withCodepoint(reason string) func(string) string {
	return func(detail string) string { return reason + codepointNote(detail) }
}

// disallowedWords names the character ENS does not allow by its code
// point: the character itself may be invisible or reorder the reply.
func disallowedWords(detail string) string {
	cp, ok := lastCodepoint(detail)
	switch {
	case !ok:
		return "the name contains a character ENS does not allow"
	case cp == ' ':
		return "the name contains a space, which ENS does not allow"
	case cp != '.' && strings.ContainsRune(ensStops, cp):
		return fmt.Sprintf("the name contains a character ENS does not allow: U+%04X; separate the parts of a name with a plain full stop (.)", cp)
	}
	return fmt.Sprintf("the name contains a character ENS does not allow: U+%04X", cp)
}

// mixtureWords reads `Latin + Cyrillic "і" {456}` (or `Latin + "x" {78}`
// when the character belongs to no other group).
func mixtureWords(detail string) string {
	group, rest, _ := strings.Cut(detail, " + ")
	cp, ok := lastCodepoint(rest)
	note := ""
	if ok {
		note = fmt.Sprintf(" (U+%04X)", cp)
	}
	other, _, found := strings.Cut(rest, " ")
	if !found || strings.HasPrefix(other, "\"") || strings.HasPrefix(other, "{") {
		return "the name mixes " + scriptWords(group) + " with a character ENS does not allow with it" + note
	}
	return "the name mixes " + scriptWords(group) + " and " + scriptWords(other) + note + ", as look-alike names do"
}

// confusableWords reads `Cyrillic/Latin`.
func confusableWords(detail string) string {
	group, other, ok := strings.Cut(detail, "/")
	if !ok {
		return "the name looks like another script (whole-script confusable)"
	}
	return "the name looks like another script (whole-script confusable): its " + scriptWords(group) +
		" letters can pass for " + scriptWords(other)
}

// scriptWords turns the library's group name into words: Restricted[Brai]
// is "the restricted script Brai" (its ISO 15924 code).
func scriptWords(group string) string {
	if code, ok := strings.CutPrefix(group, "Restricted["); ok {
		return "the restricted script " + strings.TrimSuffix(code, "]")
	}
	return group
}

// codepointNote is " (U+0303)" for a detail ending in {303}, or "".
func codepointNote(detail string) string {
	if cp, ok := lastCodepoint(detail); ok {
		return fmt.Sprintf(" (U+%04X)", cp)
	}
	return ""
}

// lastCodepoint reads the last {HEX} of a detail, as the library writes
// code points.
func lastCodepoint(detail string) (rune, bool) {
	open := strings.LastIndexByte(detail, '{')
	end := strings.LastIndexByte(detail, '}')
	if open < 0 || end < open {
		return 0, false
	}
	n, err := strconv.ParseUint(detail[open+1:end], 16, 32)
	if err != nil || n > utf8.MaxRune {
		return 0, false
	}
	return rune(n), true
}
