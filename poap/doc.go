// Package poap is a client of the POAP issuing service
// (https://documentation.poap.tech), of Moments and of the Moments query
// service (Compass), and the adapters that let the core use it: Client
// satisfies core.Scanner (holdings) and core.IssuerCheck (/setup check);
// DropIssuer core.DropIssuer (drops, mint links, mints), core.WebsiteIssuer
// (website claims), core.DeliveryIssuer (deliveries) and
// core.NetworkIssuer (the network a drop mints on); GateIssuer
// core.GateIssuer (what gating reads: holdings, a drop's holders, its
// name); and MomentIssuer core.MomentIssuer (Moments: uploads, creation,
// lists).
//
// Every operation goes through one small request core (do) that adds the
// API key and, for protected operations, an access token from a
// TokenSource; waits for the client's rate limiter, in the turn of the
// context's requester (core.Requester); bounds each attempt with
// a timeout and the size of what it reads (8 MiB, except for the list scan
// and the pages of holders, which grow with the data and are decoded as they
// arrive, element by element, each element and their number bounded);
// retries idempotent requests after
// transient failures with jittered exponential backoff (honouring
// Retry-After); renews a refused token once; reports every attempt to an
// Observer; and turns failures into errors the caller can test with
// errors.Is: ErrNotFound, ErrUnauthorized, ErrRateLimited, ErrInvalidAddress,
// ErrUnavailable, ErrQRClaimed, ErrQRExpired, ErrAlreadyMinted,
// ErrInvalidEditCode, ErrLimitExceeded, ErrEventExpired, ErrMediaInvalid,
// ErrRequestPending, ErrSlugTaken, ErrNotListed, ErrInvalidInput and
// ErrTokenBudget, carried by *APIError when the service answered and by
// *FieldError when the client refused an input before sending it. A
// refusal is read by its status and code, never by wording only the
// sandbox uses: where the service documents no code (a second request
// while one is pending, a delivery slug in use), the client confirms the
// refusal with a read of the service's state. The one exception is
// ErrNotListed, a delivery claim for an address not on the list, which no
// read can confirm: it is read from the sandbox's words and their likely
// variants, and a wording the client does not know stays a plain
// *APIError.
//
// A mint (POST /actions/claim-qr) is never retried after a failure that may
// have reached the service: callers read the link's claim status first.
//
// Access tokens come from a TokenSource: in production *auth.Tokens of
// poap/auth, which gets them from the token service with the client
// credentials, stores them encrypted (shared by restarts and replicas),
// renews them ahead of expiry, requests them one at a time, and never more
// than the service's budget of 4 an hour per client, all audiences
// together. The credential flow has three parts: the manager
// (auth.Tokens), the token service's call in poap/auth, and the request
// core here, which attaches a token and renews it once after a 401 or the
// gateway's 403 for an expired or revoked token.
//
// The operation names (the Observer's, APIError.Operation), the chains a
// drop can mint on and the JSON shapes of Moments and Compass are the
// service's contract, shared with the sandbox in poap/wire; the client reads
// them into its own types.
//
// The decoding follows what production returns rather than the published
// schema where the two differ: token ids are strings, "created" is
// "YYYY-MM-DD HH:MM:SS", event dates are "DD-Mon-YYYY", the list scan and the
// mint links are bare JSON arrays, the pending-request count is an array.
package poap
