package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// maxSubmitBytes bounds the body of a POST: a key's signature is 132
// characters, a smart-contract wallet's at most 0x and the hex of
// core.MaxContractSignature bytes; the message signed at most
// core.MaxSIWELen bytes, and JSON may write a byte as six.
const maxSubmitBytes = 2*core.MaxContractSignature + 4<<10 + 6*core.MaxSIWELen

// Errors of a request to the page itself, before the core sees it.
var (
	errBadNonce      = errors.New("malformed verification nonce")
	errForeignOrigin = errors.New("request from another origin")
	errContentType   = errors.New("content type is not application/json")
	errBodyTooLarge  = errors.New("request body too large")
	errBadJSON       = errors.New("request body is not the expected JSON")
	errNoSignature   = errors.New("no signature in the request")
	// errContractUnchecked stands for core.ErrChainsNotConfigured alone,
	// without a key's mismatch: a contract's signature nobody judged.
	errContractUnchecked = errors.New("smart-contract wallet signature not checked")
)

// submitResult is the JSON answer of a POST.
type submitResult struct {
	OK     bool   `json:"ok"`
	Wallet string `json:"wallet,omitempty"`
	// Chain names the network where a smart-contract wallet accepted
	// the signature ("Base (chain 8453)"); empty for a key's.
	Chain string `json:"chain,omitempty"`
	Error string `json:"error,omitempty"`
}

// submit takes the signature the page posts and has the core verify it,
// within the limit of the remote address.
func (h *verification) submit(w http.ResponseWriter, r *http.Request) {
	if ok, wait := h.limit.allow(r, h.now()); !ok {
		tooMany(w, wait)
		return
	}
	wallet, err := h.verify(w, r)
	if err != nil {
		p := h.problemFor(r.Context(), err)
		writeJSON(w, p.Status, submitResult{Error: p.sentence()})
		return
	}
	addr := wallet.Address
	if addr == "" {
		addr = wallet.Value
	}
	res := submitResult{OK: true, Wallet: addr}
	if wallet.VerifiedChain != 0 {
		res.Chain = core.ChainTitle(wallet.VerifiedChain)
	}
	writeJSON(w, http.StatusOK, res)
}

// tooMany answers a POST past its address's limit: 429, with Retry-After
// and the words in whole seconds, at least one.
func tooMany(w http.ResponseWriter, wait time.Duration) {
	seconds := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(seconds))
	unit := " seconds"
	if seconds == 1 {
		unit = " second"
	}
	p := problem{http.StatusTooManyRequests, "Too many signatures were sent from your network",
		"Please wait " + strconv.Itoa(seconds) + unit + ", then press the button again."}
	writeJSON(w, p.Status, submitResult{Error: p.sentence()})
}

// verify checks where the request comes from and what it carries, in that
// order, and only then calls the Verifier.
func (h *verification) verify(w http.ResponseWriter, r *http.Request) (core.Wallet, error) {
	if !h.sameOrigin(r) {
		return core.Wallet{}, errForeignOrigin
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return core.Wallet{}, errContentType
	}
	nonce := r.PathValue("nonce")
	if !validNonce(nonce) {
		return core.Wallet{}, errBadNonce
	}
	in, err := readSubmission(w, r)
	if err != nil {
		return core.Wallet{}, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), verifierTimeout)
	defer cancel()
	return h.v.VerifyMessage(ctx, nonce, in.Message, in.Signature)
}

// sameOrigin refuses a POST whose Origin header is present and is neither
// PUBLIC_URL's origin nor an origin on the request's own Host. Browsers send
// Origin with every POST, so a cross-site page cannot pass; clients that are
// not browsers send none and are not a cross-site threat. Requiring
// application/json also makes a cross-origin fetch need a CORS preflight,
// which this handler never grants.
func (h *verification) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if h.origin != "" && strings.EqualFold(origin, h.origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // includes the opaque origin "null"
	}
	return strings.EqualFold(u.Host, r.Host)
}

// submission is the body of a POST: the signature, and the text the page
// had the wallet sign (optional: clients other than the page may send
// only the signature, as /verify does).
type submission struct {
	Signature string `json:"signature"`
	Message   string `json:"message"`
}

// readSubmission reads a submission from a body of at most maxSubmitBytes.
func readSubmission(w http.ResponseWriter, r *http.Request) (submission, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSubmitBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return submission{}, errBodyTooLarge
	case err != nil:
		return submission{}, errBadJSON
	}
	var in submission
	if err := json.Unmarshal(body, &in); err != nil {
		return submission{}, errBadJSON
	}
	in.Signature = strings.TrimSpace(in.Signature)
	if in.Signature == "" {
		return submission{}, errNoSignature
	}
	return in, nil
}

// writeJSON writes v as the JSON body of a response with that status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// problem is what a member reads when verification fails: a status, a
// heading and what to do instead.
type problem struct {
	Status int
	Title  string
	Hint   string
}

// sentence joins the heading and the hint for the JSON answer.
func (p problem) sentence() string { return p.Title + ". " + p.Hint }

// relink is the way out of every dead link.
const relink = "Run /link in the chat again to get a new link."

// problems maps each known error to the member's words, first match wins.
var problems = []struct {
	err error
	p   problem
}{
	{core.ErrStoreUnavailable, problem{http.StatusServiceUnavailable, "The bot's storage is not answering right now", "Nothing was changed. Please try again in a minute."}},
	{errBadNonce, problem{http.StatusNotFound, "This verification link is not valid", "Check that you opened the whole link. " + relink}},
	{core.ErrNotFound, problem{http.StatusNotFound, "This verification link is not valid", "Check that you opened the whole link. " + relink}},
	{core.ErrNoChallenge, problem{http.StatusNotFound, "This verification link is not valid", "Check that you opened the whole link. " + relink}},
	{core.ErrChallengeExpired, problem{http.StatusGone, "This verification link has expired", "Links work for " + strconv.Itoa(int(core.ChallengeTTL.Minutes())) + " minutes. " + relink}},
	{core.ErrChallengeUsed, problem{http.StatusGone, "This verification link was already used", "Check your wallets with /wallet. " + relink}},
	// Before the signature errors: the one that locks wraps its reason.
	{core.ErrChallengeLocked, problem{http.StatusGone, "This verification link is locked after " + strconv.Itoa(core.MaxWrongSignatures) + " wrong signatures",
		"It takes no signature now, not even the right one. " + relink}},
	{core.ErrBadSignature, problem{http.StatusBadRequest, "The signature is malformed", "A signature is 0x followed by hex digits: 130 of them for an ordinary wallet, more for a smart-contract wallet. Sign the message again."}},
	{core.ErrSignatureOldMessage, problem{http.StatusUnprocessableEntity, "This signature is of an earlier message", "Sign the message shown on this page."}},
	{core.ErrSignatureAltered, problem{http.StatusUnprocessableEntity, "Your wallet signed a changed copy of the message", "Sign the exact message shown on this page: use the Copy button, and change nothing."}},
	{core.ErrTooManyChainChecks, problem{http.StatusTooManyRequests, "Too many signatures were checked for smart wallets in a short time",
		"Nothing was counted against you. Wait a few minutes, then press the button again."}},
	{core.ErrChainUnavailable, problem{http.StatusServiceUnavailable, "A network could not be reached to check your smart wallet's signature",
		"Nothing was counted against you. Press the button again in a minute."}},
	{errContractUnchecked, problem{http.StatusUnprocessableEntity, "This looks like a smart-contract wallet's signature, which this bot can't check",
		"Nothing was counted against you. A smart-contract wallet (a Safe, a Coinbase Smart Wallet, a passkey wallet) can verify only once the bot's operator sets CHAIN_RPC_URLS. If your wallet is an ordinary one, sign again."}},
	{core.ErrChainsNotConfigured, problem{http.StatusUnprocessableEntity, "The signature was not made by the linked wallet's key",
		"A smart-contract wallet (a Safe, a Coinbase Smart Wallet) can verify only once the bot's operator sets CHAIN_RPC_URLS. Otherwise, switch your wallet to the linked account and sign again."}},
	{core.ErrMessageMalformed, problem{http.StatusUnprocessableEntity, "What your wallet signed is not this page's sign-in message",
		"Reload this page and sign the message it shows, changing nothing."}},
	{core.ErrMessageDomain, problem{http.StatusUnprocessableEntity, "The signed message is a sign-in to another site",
		"It was not made for this page. If another site asked you to sign it, it was phishing for your wallet: sign nothing more there. " + relink}},
	{core.ErrMessageURI, problem{http.StatusUnprocessableEntity, "The signed message names another page", "Sign the message shown on this page."}},
	{core.ErrMessageAddress, problem{http.StatusUnprocessableEntity, "The signed message names another wallet", "Sign the message shown on this page, with the linked wallet."}},
	{core.ErrMessageNonce, problem{http.StatusUnprocessableEntity, "The signed message belongs to another challenge", "Its nonce is not this link's. Sign the message shown on this page."}},
	{core.ErrMessageChain, problem{http.StatusUnprocessableEntity, "The signed message names another chain or version", "Sign the message shown on this page."}},
	{core.ErrMessageTime, problem{http.StatusUnprocessableEntity, "The times in the signed message are not this link's",
		"Its issue or expiration time differs. Sign the message shown on this page."}},
	{core.ErrMessageChanged, problem{http.StatusUnprocessableEntity, "The signed message was changed", "Sign the exact message shown on this page."}},
	{core.ErrSignatureMismatch, problem{http.StatusUnprocessableEntity, "The signature was not made by the linked wallet", "Switch your wallet to the linked account and sign again."}},
	{core.ErrEmailNotVerifiable, problem{http.StatusUnprocessableEntity, "An e-mail address cannot be verified by signature", "Link a 0x address or an ENS name with /link instead."}},
	{errForeignOrigin, problem{http.StatusForbidden, "This request did not come from the verification page", "Open the link from the chat and sign there."}},
	{errContentType, problem{http.StatusUnsupportedMediaType, "The request must be JSON", `Send {"signature": "0x...", "message": "..."} with Content-Type application/json.`}},
	{errBodyTooLarge, problem{http.StatusRequestEntityTooLarge, "The request is too large", `Send only {"signature": "0x...", "message": "..."}.`}},
	{errBadJSON, problem{http.StatusBadRequest, "The request is not valid JSON", `Send {"signature": "0x..."}.`}},
	{errNoSignature, problem{http.StatusBadRequest, "The request carries no signature", `Send {"signature": "0x..."}.`}},
}

// problemFor is the one place that turns an error into the words a member
// reads. An unknown error gets a generic apology with a reference that is
// also logged with the error, so support can find it; its text, which may
// name database or network internals, is never shown.
func (h *verification) problemFor(ctx context.Context, err error) problem {
	if errors.Is(err, core.ErrChainsNotConfigured) && !errors.Is(err, core.ErrSignatureMismatch) {
		err = errContractUnchecked
	}
	for _, e := range problems {
		if errors.Is(err, e.err) {
			return e.p
		}
	}
	ref := reference()
	h.log.ErrorContext(ctx, "wallet verification failed", "ref", ref, "err", err)
	return problem{http.StatusInternalServerError, "Something went wrong on our side",
		"Please try again in a minute (reference " + ref + ")."}
}

// reference returns a short random id that ties an answer to a log line.
func reference() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
