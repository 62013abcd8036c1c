package poap

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/poapbot/poapbot/core"
)

// ErrInvalidInput is matched by every error the client returns for input it
// refuses before sending anything; the error is a *FieldError naming the field.
var ErrInvalidInput = errors.New("invalid input")

// FieldError is input the client refused locally, before any request, because
// the interface states a rule it breaks. Field is the service's name of the
// field ("description", "secret_code"...). Reason never quotes a secret.
type FieldError struct {
	// Operation is the client's name of the call (wire.OpCreateDrop...).
	Operation string
	// Field is the service's name of the refused field.
	Field string
	// Reason says what rule the value breaks.
	Reason string
}

// Error describes the refusal in one line, prefixed by the operation.
func (e *FieldError) Error() string {
	return fmt.Sprintf("poap: %s: invalid %s: %s", e.Operation, e.Field, e.Reason)
}

// Is matches ErrInvalidInput and ErrNotSent always, ErrInvalidAddress for the
// address field and ErrInvalidEditCode for the edit-code fields, so callers
// handle a local refusal like the service's own.
func (e *FieldError) Is(target error) bool {
	switch target {
	case ErrInvalidInput, ErrNotSent:
		return true
	case ErrInvalidAddress:
		return e.Field == "address" || e.Field == "author"
	case ErrInvalidEditCode:
		return e.Field == "secret_code" || e.Field == "secret_codes" || e.Field == "edit_code"
	}
	return false
}

// fieldError returns a *FieldError; reason is a format for args.
func fieldError(op, field, reason string, args ...any) *FieldError {
	return &FieldError{Operation: op, Field: field, Reason: fmt.Sprintf(reason, args...)}
}

// checkEditCode checks a drop's edit code: exactly 6 ASCII digits.
func checkEditCode(op, field string, code core.Secret) error {
	s := code.Reveal()
	if len(s) != 6 || strings.Trim(s, "0123456789") != "" {
		return fieldError(op, field, "the edit code must be 6 digits")
	}
	return nil
}

// checkID checks an id the path or body carries: ids start at 1.
func checkID(op, field string, id int64) error {
	if id <= 0 {
		return fieldError(op, field, "%d is not a valid id", id)
	}
	return nil
}

// checkRequired refuses an empty or blank value.
func checkRequired(op, field, value string) error {
	if strings.TrimSpace(value) == "" {
		return fieldError(op, field, "it is required")
	}
	return nil
}

// checkNotBlank refuses a value made only of spaces, which the service
// rejects for city, country and event_url; the empty string is allowed.
func checkNotBlank(op, field, value string) error {
	if value != "" && strings.TrimSpace(value) == "" {
		return fieldError(op, field, "a value of only spaces is rejected")
	}
	return nil
}

// checkLength refuses a value longer than max characters.
func checkLength(op, field, value string, max int) error {
	if n := utf8.RuneCountInString(value); n > max {
		return fieldError(op, field, "%d characters, at most %d allowed", n, max)
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
