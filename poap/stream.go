package poap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The answers that grow with the data, the list scan and the pages of
// holders, are decoded as they arrive, element by element, instead of being
// read whole under transport.MaxBodySize: a collector with 9,000 POAPs
// already sends more than 8 MiB. What bounds memory then is the size of each
// element and their number.
const (
	// maxStreamElement bounds one element of a streamed answer (a token of
	// a scan, a holder, a field of a holder page), in bytes. A real scan
	// item is about 1 KiB, 10 at most with a 1,500-character description
	// escaped throughout.
	maxStreamElement = 64 << 10
	// MaxScanTokens is the most POAPs Scan reads for one address; a longer
	// answer fails with ErrUnavailable rather than filling memory. The
	// largest collections hold a few tens of thousands.
	MaxScanTokens = 100_000
)

var (
	// errElementTooLarge reports an element over maxStreamElement.
	errElementTooLarge = fmt.Errorf("an element is over %d bytes", maxStreamElement)
	// errTrailingData reports data after the answer's JSON value.
	errTrailingData = errors.New("data after the JSON value")
)

// jsonStream decodes one JSON value from a body as it arrives, allowing each
// element at most maxStreamElement bytes.
type jsonStream struct {
	dec  *json.Decoder
	body *boundedReader
}

// newJSONStream returns a stream reading r.
func newJSONStream(r io.Reader) *jsonStream {
	body := &boundedReader{r: r, limit: maxStreamElement}
	return &jsonStream{dec: json.NewDecoder(body), body: body}
}

// boundedReader lets its reader (the decoder) read up to limit bytes from
// the start of the body; jsonStream moves the limit forward element by
// element.
type boundedReader struct {
	r     io.Reader
	read  int64
	limit int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read >= b.limit {
		return 0, errElementTooLarge
	}
	if rest := b.limit - b.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// next allows the next token or element maxStreamElement bytes past what the
// decoder has used so far. The limit only moves forward: what the decoder
// holds unread in its buffer was allowed before.
func (s *jsonStream) next() {
	s.body.limit = max(s.body.limit, s.dec.InputOffset()+maxStreamElement)
}

// decode decodes the next element into v.
func (s *jsonStream) decode(v any) error {
	s.next()
	return s.dec.Decode(v)
}

// open reads the opening delimiter want ('[' or '{'); null reads as an empty
// value, reported by ok false.
func (s *jsonStream) open(want json.Delim) (ok bool, err error) {
	s.next()
	tok, err := s.dec.Token()
	if err != nil {
		return false, err
	}
	if tok == nil {
		return false, nil
	}
	if d, isDelim := tok.(json.Delim); !isDelim || d != want {
		return false, fmt.Errorf("want %v, got %v", want, tok)
	}
	return true, nil
}

// more reports whether the array or object being read has another element.
func (s *jsonStream) more() bool {
	s.next()
	return s.dec.More()
}

// close reads the closing delimiter of the array or object being read.
func (s *jsonStream) close() error {
	s.next()
	_, err := s.dec.Token()
	return err
}

// array reads an array (or null) whose elements each reads, at most
// maxItems of them.
func (s *jsonStream) array(maxItems int, each func() error) error {
	if ok, err := s.open('['); !ok || err != nil {
		return err
	}
	for n := 0; s.more(); n++ {
		if n == maxItems {
			return fmt.Errorf("more than %d elements", maxItems)
		}
		if err := each(); err != nil {
			return err
		}
	}
	return s.close()
}

// end checks that nothing but white space follows the value read.
func (s *jsonStream) end() error {
	s.next()
	if _, err := s.dec.Token(); err != io.EOF {
		if err != nil {
			return err
		}
		return errTrailingData
	}
	return nil
}

// decodeArray reads a body that is a JSON array (or null) of at most
// maxItems elements, each of them into a T handed to add.
func decodeArray[T any](body io.Reader, maxItems int, add func(T)) error {
	s := newJSONStream(body)
	err := s.array(maxItems, func() error {
		var v T
		if err := s.decode(&v); err != nil {
			return err
		}
		add(v)
		return nil
	})
	if err != nil {
		return err
	}
	return s.end()
}

// decodeHolderPage reads a page of holders: an object whose "tokens" is an
// array of at most MaxHoldersPage holders, and whose other members fill the
// page's numbers; members it does not know are skipped, each bounded too.
func decodeHolderPage(body io.Reader, page *HolderPage) error {
	s := newJSONStream(body)
	ok, err := s.open('{')
	if !ok || err != nil {
		return err
	}
	numbers := map[string]any{
		"total": &page.Total, "limit": &page.Limit, "offset": &page.Offset, "transferCount": &page.TransferCount,
	}
	for s.more() {
		s.next()
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		switch key, _ := tok.(string); {
		case key == "tokens":
			err = s.array(MaxHoldersPage, func() error {
				var h Holder
				if err := s.decode(&h); err != nil {
					return err
				}
				page.Holders = append(page.Holders, h)
				return nil
			})
		case numbers[key] != nil:
			err = s.decode(numbers[key])
		default:
			var skip json.RawMessage
			err = s.decode(&skip)
		}
		if err != nil {
			return fmt.Errorf("%v: %w", tok, err)
		}
	}
	if err := s.close(); err != nil {
		return err
	}
	return s.end()
}
