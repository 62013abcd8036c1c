package poap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/internal/transport"
)

// The service writes some values as a number in one release and a string in
// another (queue_uid, the redeem-request id, a token's transferCount, result
// token ids). These types read either, so a change of type upstream does not
// break decoding.

// flexString reads a JSON string or number as text; null gives "".
type flexString string

// UnmarshalJSON implements json.Unmarshaler.
func (s *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*s = ""
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = flexString(strings.TrimSpace(v))
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("poap: %.40s is neither a string nor a number", b)
		}
		*s = flexString(n.String())
	}
	return nil
}

// flexInt reads a JSON integer, or a string holding one; null and "" give 0.
type flexInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *flexInt) UnmarshalJSON(b []byte) error {
	var s flexString
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	if s == "" {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return fmt.Errorf("poap: %q is not an integer", transport.Truncate(string(s), 40))
	}
	*n = flexInt(v)
	return nil
}

// idJSON reads an id the service returns as a bare number or string, or as an
// object {"id": ...} holding one.
type idJSON string

// UnmarshalJSON implements json.Unmarshaler.
func (id *idJSON) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var w struct {
			ID flexString `json:"id"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		*id = idJSON(w.ID)
		return nil
	}
	var s flexString
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	*id = idJSON(s)
	return nil
}

// flexBool reads a JSON boolean, or a string "true" or "false"; null and
// anything else give false.
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (v *flexBool) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	*v = flexBool(strings.EqualFold(s, "true"))
	return nil
}

// looseTime reads an instant in any of timestampLayouts, or a bare
// YYYY-MM-DD day (midnight UTC); a value in no known format gives the zero
// time rather than failing the whole answer, for fields of records whose
// schema the service does not publish.
type looseTime struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *looseTime) UnmarshalJSON(b []byte) error {
	var ts timestamp
	if err := ts.UnmarshalJSON(b); err == nil {
		t.Time = ts.Time
		return nil
	}
	t.Time = time.Time{}
	if s, err := jsonString(b); err == nil {
		if day, err := time.Parse(time.DateOnly, s); err == nil {
			t.Time = day
		}
	}
	return nil
}
