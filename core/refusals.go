package core

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Refusals of the issuing service and of Moments: answers (4xx) that say
// the request was understood and refused, so nothing changed and sending it
// again unchanged would be refused again. They are told apart from
// ErrIssuerUnavailable, which is for a service that did not answer (a
// timeout, a 5xx, an open circuit).
var (
	// ErrIssuerRefused means the issuing service (or Moments) refused a
	// request with a 4xx answer that has no sentinel of its own; an
	// *IssuerRefusal carries the status and the service's own words.
	ErrIssuerRefused = errors.New("refused by the issuing service")
	// ErrWebsiteExists means the issuing service refused a website request
	// because the drop has a website claim already (one per drop); a
	// *WebsiteExistsError names it when the name is known.
	ErrWebsiteExists = errors.New("the drop has a website claim already")
	// ErrClaimNameTaken means the issuing service refused a website claim
	// name another drop's claim (or secret word) has.
	ErrClaimNameTaken = errors.New("website claim name taken")
	// ErrMediaChanged means a file's bytes changed while it was uploading:
	// the platform handed over more or fewer bytes than were checked.
	ErrMediaChanged = errors.New("the file changed while it was uploading")
	// ErrMediaNotFile means an attached reference names something that is
	// not a file: a directory, a device, a named pipe or a socket.
	ErrMediaNotFile = errors.New("not a file")
)

// MaxRefusalMessage bounds, in characters, the service's words an
// *IssuerRefusal keeps.
const MaxRefusalMessage = 120

// IssuerRefusal is a refusal of the issuing service (or of Moments, when
// Moments is set) that has no sentinel of its own: Status is the HTTP
// status (a 4xx) and Message the service's short message, made safe to
// quote by NewIssuerRefusal. It matches ErrIssuerRefused.
type IssuerRefusal struct {
	Status  int
	Message string
	Moments bool
}

// NewIssuerRefusal returns the refusal of status with the service's
// message made safe to quote to a member: control characters and runs of
// white space become one space, long unbroken runs of letters and digits
// (tokens, keys, signatures) are cut out, and what is left is bounded to
// MaxRefusalMessage characters. The caller blanks out the secrets it sent
// before.
func NewIssuerRefusal(status int, message string, moments bool) *IssuerRefusal {
	return &IssuerRefusal{Status: status, Message: safeMessage(message), Moments: moments}
}

func (e *IssuerRefusal) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("refused by the issuing service (status %d)", e.Status)
	}
	return fmt.Sprintf("refused by the issuing service (status %d): %s", e.Status, e.Message)
}

// Is makes errors.Is(err, ErrIssuerRefused) true.
func (e *IssuerRefusal) Is(target error) bool { return target == ErrIssuerRefused }

// maxTokenRun is the longest run of letters, digits and -_. kept in a
// refusal's message; a longer one is likely a token or a key.
const maxTokenRun = 32

// safeMessage is message as NewIssuerRefusal keeps it.
func safeMessage(message string) string {
	message = strings.ToValidUTF8(message, "?")
	message = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, message)
	words := strings.Fields(message)
	for i, w := range words {
		if longestRun(w) > maxTokenRun {
			words[i] = "[…]"
		}
	}
	message = strings.Join(words, " ")
	if utf8.RuneCountInString(message) > MaxRefusalMessage {
		message = strings.TrimRight(string([]rune(message)[:MaxRefusalMessage]), " ") + "…"
	}
	return message
}

// longestRun is the length of w's longest run of letters, digits, '-',
// '_' and '.'.
func longestRun(w string) int {
	longest, run := 0, 0
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// WebsiteExistsError is ErrWebsiteExists with the name of the drop's
// website claim, "" when the service did not say it.
type WebsiteExistsError struct {
	Name string
}

func (e *WebsiteExistsError) Error() string {
	if e.Name == "" {
		return ErrWebsiteExists.Error()
	}
	return ErrWebsiteExists.Error() + ": " + quote(e.Name)
}

// Is makes errors.Is(err, ErrWebsiteExists) true.
func (e *WebsiteExistsError) Is(target error) bool { return target == ErrWebsiteExists }
