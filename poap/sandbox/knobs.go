package sandbox

import (
	"net/http"
	"time"
)

// knobs are the Server's settings and planned misbehaviour beyond latency
// and FailNext, guarded by Server.mu.
type knobs struct {
	opFails       map[string]failPlan
	dropEvery     int // drop the response of every dropEvery-th mint
	dropNext      int // drop the responses of the next dropNext mints
	mints         int // mints applied since DropMintResponses
	dropCreations int // drop the responses of the next dropCreations deliveries created
	reviewDelay   time.Duration
	txDelay       time.Duration
	requireSecret bool
	queueUID      bool
	websiteClaims bucket // the gateway's throttle of POST /website/claim
}

// failPlan is a number of planned failures and their status.
type failPlan struct {
	n, status int
}

// FailNextOp makes the next n requests of operation op (wire.OpMint...) answer
// status with a gateway body, as FailNext does for every route. It applies
// to the operations of the issuing service other than the scans, and is
// answered after the credentials are checked.
func (s *Server) FailNextOp(op string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opFails[op] = failPlan{n: n, status: status}
}

// DropMintResponses makes every every-th mint from now on (POST
// /actions/claim-qr, /website/claim, /actions/claim-delivery-v2) take effect
// and then lose its response: the connection closes without an answer, as
// when a network fails after the service committed. Zero stops it.
func (s *Server) DropMintResponses(every int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropEvery, s.mints = max(every, 0), 0
}

// DropNextMintResponses makes the next n mints take effect and lose their
// response, as DropMintResponses does.
func (s *Server) DropNextMintResponses(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropNext = max(n, 0)
}

// DropNextDeliveryResponses makes the next n deliveries created (POST
// /deliveries) take effect and then lose their response, as
// DropMintResponses does for mints: the delivery exists (GET
// /delivery/slug/{slug} finds it) but the caller never hears its id.
func (s *Server) DropNextDeliveryResponses(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropCreations = max(n, 0)
}

// SetReviewDelay changes Options.ReviewDelay for requests still pending.
func (s *Server) SetReviewDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reviewDelay = d
}

// SetTxDelay changes Options.TxDelay, for transactions made before too.
func (s *Server) SetTxDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txDelay = d
}

// SetWebsiteClaimRate changes Options.WebsiteClaimRate and
// WebsiteClaimBurst: from now on POST /website/claim earns rate claims a
// second up to burst, starting full; a zero rate lifts the limit.
func (s *Server) SetWebsiteClaimRate(rate float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.websiteClaims = newBucket(rate, burst)
}

// takeOpFailure takes one planned failure of op, returning its status, or
// zero when none is planned.
func (s *Server) takeOpFailure(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.opFails[op]
	if p.n <= 0 {
		return 0
	}
	p.n--
	s.opFails[op] = p
	return p.status
}

// mintApplied counts a mint that took effect and reports whether its
// response is to be dropped. The caller holds s.mu.
func (k *knobs) mintApplied() (drop bool) {
	k.mints++
	if k.dropNext > 0 {
		k.dropNext--
		return true
	}
	return k.dropEvery > 0 && k.mints%k.dropEvery == 0
}

// deliveryApplied reports whether the response of a delivery just created
// is to be dropped. The caller holds s.mu.
func (k *knobs) deliveryApplied() (drop bool) {
	if k.dropCreations > 0 {
		k.dropCreations--
		return true
	}
	return false
}

// abortResponse ends the request without any response. The mint it follows
// has taken effect; net/http closes the connection for this panic value
// and logs nothing, so the client sees the connection drop.
func abortResponse() {
	panic(http.ErrAbortHandler)
}
