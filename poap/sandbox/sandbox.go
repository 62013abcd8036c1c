// Package sandbox is an in-process fake of the POAP issuing service, for
// tests and for running the bot without credentials. The real service has no
// test environment; this one answers over HTTP in the shapes production uses
// (see poap-api-facts), so the real poap client can talk to it unchanged.
// Where production's behaviour is not known, it follows POAP's OpenAPI
// definition: the members a request must carry, the types of an answer's
// fields. What neither source settles is marked [GUESS] where it is decided.
//
// A Server is an http.Handler: serve it with httptest.NewServer in tests, or
// with an http.Server for a demo. State lives in memory; SeedDemo fills it
// with the demo wallets the README names, SeedCollector with a collection of
// any size, SeedHolders with a drop of any number of holders, and MoveToken
// transfers a POAP as a wallet would. Besides the service's routes it serves, on its own host, what
// production keeps elsewhere: the signed upload addresses of Moments
// (/uploads/), the gateway of the processed files (/gateway/media/) and the
// artwork of the drops made with POST /events (/assets/), and the pages
// people open: a mint link's page (/mint/<qr_hash>) and a delivery's page
// (/delivery/<slug>), HTML forms that mint through the same ledger as the
// API. The uploaded files are kept on disk until Close.
package sandbox

import (
	"cmp"
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// OpUnknown counts the requests to routes the service does not have; the
// Server counts the others under the operation names of wire (wire.OpScan...).
const OpUnknown = "unknown"

// Options configures a Server.
type Options struct {
	// APIKey is the X-API-Key the Server accepts; a request without it gets
	// the gateway's 403. Empty accepts every request.
	APIKey string
	// Latency delays every answer, to exercise timeouts and spinners.
	Latency time.Duration
	// Now tells the time for mints made without one; nil is time.Now.
	Now func() time.Time
	// Audience and MomentsAudience are the audiences the token service
	// issues tokens for, and that protected routes accept; empty means
	// production's (DefaultAudience, DefaultMomentsAudience).
	Audience        string
	MomentsAudience string
	// ClientID and ClientSecret are the client credentials the token
	// service accepts; an empty ClientID accepts any client and secret
	// (the demo mode).
	ClientID     string
	ClientSecret string
	// ReviewDelay is how long a distribution request (mint links, website,
	// secret word) stays pending before the review approves it, on the Now
	// clock; zero leaves it pending until ApproveRequests or RejectRequests.
	ReviewDelay time.Duration
	// TxDelay is how long a mint's transaction stays IN_PROCESS, on the Now
	// clock; zero finishes it at once.
	TxDelay time.Duration
	// RequireSecret makes GET /actions/claim-qr return each link's HMAC
	// secret and POST require it back, as production did before 2025-11;
	// false answers "NOT_REQUIRED_ANYMORE" and ignores it, as production
	// does now.
	RequireSecret bool
	// QueueUID makes POST /actions/claim-qr answer with the older queue_uid
	// (a UUID string) instead of transaction_request_id.
	QueueUID bool
	// MediaDelay is how long an uploaded Moments file takes to process, on
	// the Now clock: status reads answer 404 for its first half, IN_PROCESS for
	// the second, then PROCESSED, INVALID or FAILED. Zero finishes at once.
	MediaDelay time.Duration
	// WebsiteClaimRate and WebsiteClaimBurst throttle POST /website/claim
	// across all callers, as the gateway in front of production does: a
	// token bucket on the Now clock that earns WebsiteClaimRate claims a
	// second, holds up to WebsiteClaimBurst (at least 1) and starts full.
	// Every claim that reaches it spends a token, refused or not; one that
	// finds it empty is answered as the gateway throttles, 429
	// {"message":"Too Many Requests"} with Retry-After the whole seconds
	// until the next token (at least 1), and is not applied. [GUESS]
	// production documents no numbers (poap-api-facts §9, §10). A zero
	// rate means no limit.
	WebsiteClaimRate  float64
	WebsiteClaimBurst int
	// MediaDir is where the Server makes its own directory, on the first
	// upload, for the bytes of the files its media gateway serves; empty
	// is os.TempDir. Close removes that directory.
	MediaDir string
}

// The audiences production uses, the sandbox's defaults.
const (
	DefaultAudience        = "https://api.poap.tech"
	DefaultMomentsAudience = "https://moments.poap.tech"
)

// access says which credentials a route requires.
type access int

const (
	// keyOnly routes need the X-API-Key (the service's open endpoints).
	keyOnly access = iota
	// keyAndBearer routes need the key and a token for Audience.
	keyAndBearer
	// bearerOnly routes need a token for MomentsAudience and no key.
	bearerOnly
	// open routes need nothing (the token service, signed uploads,
	// media status reads, the Moments query).
	open
)

// route is what the Server knows of a registered pattern.
type route struct {
	op     string
	access access
}

// Server is the fake service. It is safe for concurrent use.
type Server struct {
	mux             *http.ServeMux
	routes          map[string]route // by pattern
	apiKey          string
	audience        string
	momentsAudience string
	now             func() time.Time

	mu         sync.Mutex
	latency    time.Duration
	failCount  int
	failStatus int
	requests   map[string]int
	// firstScans is, by address, the count of scans when its first scan
	// was answered (ScanRank).
	firstScans map[string]int
	state
	auth tokenService // the token service's state, with its own lock

	opts Options // as given to New, read by the issuing routes

	moments *momentStore // media and Moments, with their own lock
}

// New returns an empty Server; see SeedDemo for demo data.
func New(opts Options) *Server {
	s := &Server{
		routes:          map[string]route{},
		apiKey:          opts.APIKey,
		audience:        cmp.Or(opts.Audience, DefaultAudience),
		momentsAudience: cmp.Or(opts.MomentsAudience, DefaultMomentsAudience),
		now:             opts.Now,
		latency:         opts.Latency,
		requests:        map[string]int{},
		firstScans:      map[string]int{},
		state:           newState(),
		auth:            tokenService{clientID: opts.ClientID, clientSecret: opts.ClientSecret},
		opts:            opts,
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.mux = http.NewServeMux()
	s.handle(wire.OpScan, "GET /actions/scan/{address}", keyOnly, s.scan)
	s.handle(wire.OpScanEvent, "GET /actions/scan/{address}/{eventId}", keyOnly, s.scanEvent)
	s.authRoutes()
	s.issuingRoutes()
	s.artworkRoutes()
	s.momentsRoutes()
	s.pageRoutes()
	s.handle(OpUnknown, "/", keyOnly, notFound)
	return s
}

// handle registers h for pattern and remembers its operation and access.
func (s *Server) handle(op, pattern string, acc access, h http.HandlerFunc) {
	s.routes[pattern] = route{op: op, access: acc}
	s.mux.HandleFunc(pattern, h)
}

// ServeHTTP counts the request, waits the latency, then answers as the
// gateway would (a planned failure, a refused key) or routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, pattern := s.mux.Handler(r)
	rt := s.routes[pattern]
	latency, fail := s.admit(rt.op)
	if !wait(r, latency) {
		return
	}
	switch {
	case fail != 0:
		writeGatewayError(w, fail)
	case (rt.access == keyOnly || rt.access == keyAndBearer) && !s.authorized(r):
		writeGatewayError(w, http.StatusForbidden)
	case s.refuseBearer(w, r, rt.access):
	default:
		s.mux.ServeHTTP(w, r)
	}
}

// admit counts a request to op and takes one planned failure, if any.
func (s *Server) admit(op string) (latency time.Duration, failStatus int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[op]++
	if s.failCount > 0 {
		s.failCount--
		return s.latency, s.failStatus
	}
	return s.latency, 0
}

// authorized reports whether r carries the accepted API key.
func (s *Server) authorized(r *http.Request) bool {
	if s.apiKey == "" {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(r.Header.Get("X-API-Key")), []byte(s.apiKey)) == 1
}

// wait sleeps d, or less if the client gives up; it reports whether to
// answer.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// Requests returns how many requests for operation (wire.OpScan...) the Server
// received, whatever their answer.
func (s *Server) Requests(operation string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[operation]
}

// ScanRank returns how many scans the Server had received, this one
// included, when it answered the first scan of address (any case); 0 when
// it never did. Tests read from it which requests were served before
// which.
func (s *Server) ScanRank(address string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstScans[strings.ToLower(address)]
}

// SetLatency changes the delay before every answer.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// FailNext makes the next n requests, whatever their route, answer status
// with a gateway body such as {"message":"Service Unavailable"}; a 429 also
// carries Retry-After: 1.
func (s *Server) FailNext(n int, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failCount, s.failStatus = n, status
}
