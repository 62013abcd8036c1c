package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// verifierTimeout bounds one call to the Verifier, well inside the server's
// 30 s write timeout.
const verifierTimeout = 10 * time.Second

// Verifier is what the verification page needs from the core;
// *core.WalletService satisfies it.
type Verifier interface {
	// Challenge returns the challenge with that nonce, or ErrNotFound or
	// ErrNoChallenge when there is none. It may return ErrChallengeExpired,
	// ErrChallengeUsed or ErrChallengeLocked, or the stored challenge,
	// whose UsedAt, ExpiresAt and WrongSignatures the page then checks
	// itself.
	Challenge(ctx context.Context, nonce string) (core.Challenge, error)
	// VerifyMessage checks that message (the text the page had the
	// wallet sign; empty when the client did not say) is the challenge's,
	// and the signature of the challenge's message; it marks the challenge
	// used and the wallet verified, and returns the wallet. It returns the
	// core sentinels of the challenge on failure, and for a message that is
	// not the challenge's ErrMessageMalformed or a *core.MessageError.
	VerifyMessage(ctx context.Context, nonce, message, signature string) (core.Wallet, error)
}

var (
	//go:embed verify.html
	verifyHTML string
	//go:embed verify.js
	verifyJS []byte
	//go:embed verify.css
	verifyCSS string

	verifyTemplates = template.Must(template.New("verify").Parse(verifyHTML))

	// verifyCSP allows the page's own script file, its one inline style
	// block (by hash, so no other inline style or script runs) and requests
	// back to its own origin; nothing else, and no framing. Images may
	// also be data: URIs, for the icons that wallets announce (EIP-6963
	// gives them as data:image/ URIs, and the script takes no other); an
	// image runs no script, and a data: URI makes no request.
	verifyCSP = strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src '" + cspHash(verifyCSS) + "'",
		"connect-src 'self'",
		"img-src 'self' data:",
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
)

// cspHash returns the CSP source expression ('sha256-...') of an inline block.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// VerificationOptions configure the verification page.
type VerificationOptions struct {
	// PublicURL is PUBLIC_URL: the page's own origin, which a POST must
	// come from besides the origin of the request's Host, and the base of
	// the page's address in its QR code and wallet-app links. Without it
	// (only tests mount the page so) the page offers neither: its address
	// is never taken from the request's Host header, which the client
	// chooses.
	PublicURL string
	// BotName is the bot's name, which the page shows as who asks; empty
	// is core.DefaultName.
	BotName string
	// Logger gets a line, with the reference shown to the member, for
	// every unexpected error; nil discards them.
	Logger *slog.Logger
}

// HandleVerification mounts the wallet-verification page of v on the server
// at core.VerificationPath (see NewVerificationHandler); a nil
// opts.Logger is the server's.
func (s *Server) HandleVerification(v Verifier, opts VerificationOptions) {
	if opts.Logger == nil {
		opts.Logger = s.log
	}
	s.Handle(core.VerificationPath, NewVerificationHandler(v, opts))
}

// NewVerificationHandler returns the handler of the one-click wallet
// verification, to be mounted at core.VerificationPath:
//
//	GET  /verify/{nonce}  the page: who asks (bot, community, platform), the
//	                      wallet, the message, what signing does; a button
//	                      that asks the browser wallet to sign it (a choice
//	                      when several announce themselves); without one,
//	                      links that reopen the page in a wallet app (on a
//	                      phone) or its address as a QR code (on a desktop),
//	                      both only with opts.PublicURL, and the /verify
//	                      command
//	POST /verify/{nonce}  {"signature":"0x...","message":"..."} in (message,
//	                      the text signed, optional), {"ok":true,"wallet":"0x..."}
//	                      or {"ok":false,"error":"..."} out
//	GET  /verify/app.js   the page's script
//
// POSTs are limited per remote address (see submitBurst), past which they
// are answered 429 with Retry-After.
func NewVerificationHandler(v Verifier, opts VerificationOptions) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	bot := core.StripDirectionControls(strings.TrimSpace(opts.BotName))
	if bot == "" {
		bot = core.DefaultName
	}
	h := &verification{v: v, log: log, bot: bot, now: time.Now, limit: newAddressLimiter(submitBurst, submitEvery, maxAddresses)}
	if u, err := url.Parse(opts.PublicURL); err == nil && u.Scheme != "" && u.Host != "" {
		h.origin = u.Scheme + "://" + u.Host
		h.publicURL = opts.PublicURL
	}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET "+core.VerificationPath+"app.js", h.script)
	h.mux.HandleFunc("GET "+core.VerificationPath+"{nonce}", h.page)
	h.mux.HandleFunc("POST "+core.VerificationPath+"{nonce}", h.submit)
	return h
}

// verification serves the verification page and takes its signatures.
type verification struct {
	v         Verifier
	origin    string // scheme://host of PUBLIC_URL, or empty
	publicURL string // PUBLIC_URL when it has an origin, or empty
	bot       string // the bot's name
	log       *slog.Logger
	now       func() time.Time
	limit     *addressLimiter // of POSTs, per remote address
	mux       *http.ServeMux
}

func (h *verification) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w.Header())
	h.mux.ServeHTTP(w, r)
}

// setPageHeaders sets the security headers every answer of the page gets.
func setPageHeaders(hdr http.Header) {
	hdr.Set("Content-Security-Policy", verifyCSP)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-store")
}

// pageData fills the templates; Style is trusted CSS whose hash is in the CSP.
type pageData struct {
	Title       string
	Style       template.CSS
	Wallet      string
	Address     string
	Message     string
	MessageHex  string
	MinutesLeft int
	Hint        string
	// Domain is the domain of an EIP-4361 message, which the wallet
	// shows as the site the member signs in to; empty for plain text.
	Domain string
	// Bot, Place (empty when unknown) and Platform say who asks.
	Bot, Place, Platform string
	// PageURL is the page's own address below PUBLIC_URL (empty without
	// it), which Apps reopen in a wallet app and QR (empty when it cannot
	// be drawn) encodes.
	PageURL string
	Apps    []appLink
	QR      template.HTML
}

// page renders the challenge, or a page that says why there is none.
func (h *verification) page(w http.ResponseWriter, r *http.Request) {
	c, err := h.challenge(r.Context(), r.PathValue("nonce"))
	if err != nil {
		p := h.problemFor(r.Context(), err)
		h.render(w, p.Status, "problem", pageData{Title: p.Title, Hint: p.Hint})
		return
	}
	// Without PUBLIC_URL the page has no address of its own to offer.
	var (
		page string
		apps []appLink
		qr   template.HTML
	)
	if h.publicURL != "" {
		page = core.VerificationURL(h.publicURL, c.Nonce)
		apps = appLinks(page)
		var err error
		if qr, err = qrSVG(page); err != nil {
			// Only an absurdly long PUBLIC_URL gets here; the page works without.
			h.log.Warn("verification page QR code", "err", err)
		}
	}
	h.render(w, http.StatusOK, "page", pageData{
		Title:   "Verify your wallet",
		Wallet:  c.Wallet,
		Address: c.Address,
		// The member's name in the message is the platform's: shown
		// without the characters that would reorder what the page shows
		// (a message made before names were cleaned may hold them).
		Message: core.StripDirectionControls(c.Message),
		// The wallet signs these exact bytes: HTML text would lose a
		// carriage return, a hex attribute cannot.
		MessageHex:  "0x" + hex.EncodeToString([]byte(c.Message)),
		MinutesLeft: minutesLeft(c.ExpiresAt, h.now()),
		Domain:      siweDomain(c.Message),
		Bot:         h.bot,
		Place:       core.StripDirectionControls(c.Place),
		Platform:    c.Platform.Title(),
		PageURL:     page,
		Apps:        apps,
		QR:          qr,
	})
}

// siweDomain is the domain of an EIP-4361 message, or empty.
func siweDomain(message string) string {
	m, err := core.ParseSIWE(message)
	if err != nil {
		return ""
	}
	return m.Domain
}

// minutesLeft rounds the time left up to whole minutes; 0 when unknown.
func minutesLeft(expires, now time.Time) int {
	if expires.IsZero() || !now.Before(expires) {
		return 0
	}
	return int(math.Ceil(expires.Sub(now).Minutes()))
}

// challenge validates the nonce's shape before asking the Verifier, and
// turns a used or expired challenge into its sentinel.
func (h *verification) challenge(ctx context.Context, nonce string) (core.Challenge, error) {
	if !validNonce(nonce) {
		return core.Challenge{}, errBadNonce
	}
	ctx, cancel := context.WithTimeout(ctx, verifierTimeout)
	defer cancel()
	c, err := h.v.Challenge(ctx, nonce)
	switch {
	case err != nil:
		return core.Challenge{}, err
	case c.UsedAt != nil:
		return core.Challenge{}, core.ErrChallengeUsed
	case !c.ExpiresAt.IsZero() && !h.now().Before(c.ExpiresAt):
		return core.Challenge{}, core.ErrChallengeExpired
	case c.WrongSignatures >= core.MaxWrongSignatures:
		return core.Challenge{}, core.ErrChallengeLocked
	}
	return c, nil
}

// validNonce reports whether s looks like a challenge nonce: 16 to 128 hex
// digits. Anything else is refused without a database query.
func validNonce(s string) bool {
	if len(s) < 16 || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// render executes a template into a buffer first, so a template error
// becomes a clean 500 instead of half a page.
func (h *verification) render(w http.ResponseWriter, status int, name string, d pageData) {
	d.Style = template.CSS(verifyCSS)
	var buf bytes.Buffer
	if err := verifyTemplates.ExecuteTemplate(&buf, name, d); err != nil {
		h.log.Error("render verification page", "template", name, "err", err)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// script serves the page's JavaScript.
func (h *verification) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	_, _ = w.Write(verifyJS)
}
