package sandbox

import (
	_ "embed"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// OpPage counts the requests to the pages the Server serves for people
// rather than for the client: a mint link's page and a delivery's page.
const OpPage = "page"

// pageRoutes registers the pages production serves on hosts of its own:
// the page a mint link opens (<POAP_MINT_URL>/mint/<qr_hash>, poap.xyz in
// production) and a delivery's page (<POAP_DELIVERY_URL>/<slug>,
// poap.delivery in production), here under /delivery/. They are open, as
// production's are: a member's browser carries no API key.
func (s *Server) pageRoutes() {
	s.handle(OpPage, "GET /mint/{hash}", open, s.mintPage)
	s.handle(OpPage, "POST /mint/{hash}", open, s.mintPage)
	s.handle(OpPage, "GET /delivery/{slug}", open, s.deliveryPage)
	s.handle(OpPage, "POST /delivery/{slug}", open, s.deliveryPage)
}

//go:embed pages.html
var pagesHTML string

var pageTemplate = template.Must(template.New("page").Parse(pagesHTML))

// page is what a page shows: its drops, a notice saying what happened (a
// Problem when the visitor has something to change) and, while there is
// something to mint, the form.
type page struct {
	Site    string // the production site the page rehearses
	Title   string
	Drops   []pageDrop
	Text    string
	Notice  string
	Problem bool
	Form    bool
	Action  string // the form's path
	Label   string
	Input   string // the form's value, given back after a refusal
	// MaxInput bounds the address field, as readAddress does.
	MaxInput int
}

// pageDrop is a drop as a page shows it.
type pageDrop struct {
	ID          int64
	Name        string
	Description string
	Image       string
}

// pageDropOf shows d.
func pageDropOf(d Drop) pageDrop {
	return pageDrop{ID: d.ID, Name: d.Name, Description: d.Description, Image: d.ImageURL}
}

// writePage renders p with status. The pages load nothing but images and
// post only to the Server.
func writePage(w http.ResponseWriter, status int, p page) {
	p.MaxInput = maxAddressInput
	var b strings.Builder
	if err := pageTemplate.Execute(&b, p); err != nil {
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write([]byte(b.String()))
}

// Bounds of a page's form: its body, and the address field.
const (
	maxPageForm     = 4 << 10
	maxAddressInput = 254
)

// errPageForm means a page's form could not be read: too large, not a
// form, or with its address given more than once.
var errPageForm = errors.New("sandbox: page form is not readable")

// readAddress reads the one address field of a page's form, bounded in
// size, trimmed. An address that is empty, too long, not UTF-8 or with
// control characters is returned as "" with ok false; errPageForm when
// the body is no such form.
func readAddress(w http.ResponseWriter, r *http.Request) (address string, ok bool, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxPageForm)
	if err := r.ParseForm(); err != nil {
		return "", false, errPageForm
	}
	values := r.PostForm["address"]
	if len(values) != 1 {
		return "", false, errPageForm
	}
	a := strings.TrimSpace(values[0])
	if a == "" || len(a) > maxAddressInput || !utf8.ValidString(a) || strings.ContainsFunc(a, unicode.IsControl) {
		return "", false, nil
	}
	return a, true, nil
}

// pageInput is what the form gives back after a refusal: the visitor's
// text when it is printable, else nothing.
func pageInput(a string) string {
	if len(a) > maxAddressInput || !utf8.ValidString(a) || strings.ContainsFunc(a, unicode.IsControl) {
		return ""
	}
	return a
}
