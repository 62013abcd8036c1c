package telegramtest

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"unicode/utf16"
)

// Limits of the Bot API, counted in UTF-16 code units after entity
// parsing.
const (
	maxText    = 4096
	maxCaption = 1024
)

// htmlTags are the tags Telegram's HTML parse mode accepts.
var htmlTags = map[string]bool{
	"b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true, "s": true, "strike": true,
	"del": true, "span": true, "tg-spoiler": true, "a": true, "tg-emoji": true, "code": true, "pre": true,
	"blockquote": true,
}

// checkText rejects what the real API rejects: text too long, and with
// parse_mode HTML, unknown tags, unbalanced tags or a bare "&" or "<".
// The fake is strict XML here, a little stricter than Telegram, so that a
// renderer passing it is safe there.
func checkText(text, parseMode string, caption bool) *Failure {
	visible := text
	if strings.EqualFold(parseMode, "HTML") {
		v, err := parseHTML(text)
		if err != nil {
			return badRequest("can't parse entities: " + err.Error())
		}
		visible = v
	}
	limit, what := maxText, "message is too long"
	if caption {
		limit, what = maxCaption, "message caption is too long"
	}
	if len(utf16.Encode([]rune(visible))) > limit {
		return badRequest(what)
	}
	return nil
}

// parseHTML returns the visible text of Telegram HTML, or why it is not
// valid.
func parseHTML(text string) (string, error) {
	d := xml.NewDecoder(strings.NewReader("<telegram>" + text + "</telegram>"))
	d.Strict = true
	var visible strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return visible.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "telegram" && !htmlTags[t.Name.Local] {
				return "", errors.New("unsupported start tag \"" + t.Name.Local + "\"")
			}
		case xml.CharData:
			visible.Write(t)
		}
	}
}
