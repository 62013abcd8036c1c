package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// WebsiteClaimState is where a member's mint through a website claim is.
type WebsiteClaimState string

// States of a website claim.
const (
	// WebsiteQueued: waiting its turn (or to be settled, when Sent).
	WebsiteQueued WebsiteClaimState = "queued"
	// WebsiteSending: taken by the dispatcher until DueAt.
	WebsiteSending WebsiteClaimState = "sending"
	// WebsiteMinted: the service minted it to the wallet.
	WebsiteMinted WebsiteClaimState = "minted"
	// WebsiteRefused: the service refused it for Reason; a new /claim
	// queues it again.
	WebsiteRefused WebsiteClaimState = "refused"
)

// Reasons of a refused website claim, as stored.
const (
	reasonLimit      = "limit"
	reasonInactive   = "inactive"
	reasonNotStarted = "not_started"
	reasonEnded      = "ended"
	reasonHolds      = "holds"
	reasonWallet     = "invalid_wallet"
	reasonRemoved    = "removed"
)

// reasonErrs maps the stored reasons to the errors members read, and back.
var reasonErrs = []struct {
	reason string
	err    error
}{
	{reasonLimit, ErrWebsiteLimit},
	{reasonInactive, ErrWebsiteInactive},
	{reasonNotStarted, ErrClaimNotStarted},
	{reasonEnded, ErrClaimEnded},
	{reasonHolds, ErrWalletHoldsDrop},
	{reasonWallet, ErrInvalidWallet},
	{reasonRemoved, ErrDropRemoved},
}

// websiteReason returns the stored reason of a refusal err, or "" when err is no
// refusal (the mint may be sent again).
func websiteReason(err error) string {
	if errors.Is(err, ErrNoWebsite) {
		return reasonInactive
	}
	for _, r := range reasonErrs {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return ""
}

// reasonError is the error of a stored reason.
func reasonError(reason string) error {
	for _, r := range reasonErrs {
		if r.reason == reason {
			return r.err
		}
	}
	return fmt.Errorf("refused (%s): %w", reason, ErrIssuerUnavailable)
}

// WebsiteClaim is a member's mint through a drop's website claim.
type WebsiteClaim struct {
	ID     int64
	DropID int64
	// UserID is the member's; nil once they were forgotten.
	UserID *int64
	Wallet string
	State  WebsiteClaimState
	// Reason says why the service refused it (WebsiteRefused).
	Reason string
	// Sent is true once a request for it may have reached the service:
	// it is settled before anything is sent again.
	Sent bool
	// Tries counts the takes of the claim, never reset: the count a take
	// returns is that taker's token, which recording its outcome must
	// present (only the latest taker's is accepted).
	Tries int
	// DueAt is when a queued claim is due, and when a sending one's lease
	// ends.
	DueAt         time.Time
	QRHash        string
	TransactionID string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// WebsiteOutcome is what the dispatcher records of a claim it took.
type WebsiteOutcome struct {
	State WebsiteClaimState
	// Reason, for WebsiteRefused.
	Reason string
	// Mint, for WebsiteMinted.
	Mint WebsiteMint
	// DueAt and Sent, for WebsiteQueued: when to try again, and whether
	// the request may have reached the service.
	DueAt time.Time
	Sent  bool
}

// WebsiteStats counts a drop's website claims by state.
type WebsiteStats struct {
	Queued  int
	Minted  int
	Refused int
}

// WebsiteStore is what website claims need from stored state
// (storage.DB). Every method is one atomic step.
type WebsiteStore interface {
	// SetDropWebsite makes the drop mint through the website claim name,
	// requested by the bot at requestedAt (nil when the drop had it).
	SetDropWebsite(ctx context.Context, dropID int64, name string, requestedAt *time.Time) error

	// QueueWebsiteClaim queues the user's mint of the drop to wallet, due
	// at at, or returns the user's claim of the drop (again true), queued
	// again when it was refused. ErrWalletClaimed when another member's
	// claim of the drop has that wallet.
	QueueWebsiteClaim(ctx context.Context, dropID, userID int64, wallet string, at time.Time) (WebsiteClaim, bool, error)
	// WebsiteClaim returns the claim, or ErrNotFound.
	WebsiteClaim(ctx context.Context, id int64) (WebsiteClaim, error)
	// MemberWebsiteClaim returns the user's claim of the drop, or
	// ErrNotFound.
	MemberWebsiteClaim(ctx context.Context, dropID, userID int64) (WebsiteClaim, error)
	// TakeWebsiteClaims takes up to limit claims that are due at now
	// (queued, or sending with an expired lease), oldest due first, each
	// for one taker: they become sending until now+lease, and Tries grows.
	TakeWebsiteClaims(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]WebsiteClaim, error)
	// MarkWebsiteSent records that a request for the claim c, as
	// TakeWebsiteClaims gave it, is about to leave. ErrConflict unless it
	// is sending by the same take (c.Tries): another took it since.
	MarkWebsiteSent(ctx context.Context, c WebsiteClaim, at time.Time) error
	// FinishWebsiteClaim records what became of the claim c the
	// dispatcher took. ErrConflict unless it is sending by the same take
	// (c.Tries): a taker whose lease ran out records nothing over the
	// next one's.
	FinishWebsiteClaim(ctx context.Context, c WebsiteClaim, out WebsiteOutcome, at time.Time) error
	// WebsiteQueueAhead counts the claims queued or sending before the
	// claim, across every drop (one queue).
	WebsiteQueueAhead(ctx context.Context, id int64) (int, error)
	// WebsiteStats counts the drop's website claims by state.
	WebsiteStats(ctx context.Context, dropID int64) (WebsiteStats, error)
}

// WebsiteService claims drops through their website claims (claim method
// website): a member's claim is queued, one per member and one per wallet
// of a drop, and minted by the dispatcher (RunWebsiteClaims) at the pace
// the issuing service allows, never twice; moderators ask the service for
// a website claim of a drop (RequestWebsite).
type WebsiteService struct {
	dropBase
	mintNews
	issuer WebsiteIssuer
	store  WebsiteStore
	// web is the process's side of the queue.
	web *websiteQueue
	// websiteWait is WebsiteServiceDeps.Wait.
	websiteWait time.Duration
}

// WebsiteServiceDeps are the dependencies of a WebsiteService.
type WebsiteServiceDeps struct {
	// Members, Drops, Audit and Store are stored state (storage.DB), all
	// required.
	Members MemberStore
	Drops   DropStore
	Audit   AuditLog
	Store   WebsiteStore
	// Issuer is the issuing service's side of website claims
	// (poap.DropIssuer), required.
	Issuer WebsiteIssuer
	// Mints hears of the POAPs minted to members (GateService), required.
	Mints MintEvents
	// Wait is the longest a claim waits for its mint before it tells the
	// member they are queued; zero is DefaultWebsiteWait.
	Wait time.Duration
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
}

// NewWebsiteService returns the website claims' service. It returns an
// error wrapping ErrMissingDependency when a required dependency is nil.
func NewWebsiteService(d WebsiteServiceDeps) (*WebsiteService, error) {
	const name = "website service"
	if err := missing(name, "Store", d.Store, "Issuer", d.Issuer, "Mints", d.Mints); err != nil {
		return nil, err
	}
	b, err := newDropBase(name, d.Members, d.Drops, d.Audit, newBase(d.Clock, d.Logger, nil))
	if err != nil {
		return nil, err
	}
	s := &WebsiteService{dropBase: b, mintNews: newMintNews(d.Mints, b), issuer: d.Issuer, store: d.Store,
		web: newWebsiteQueue(), websiteWait: DefaultWebsiteWait}
	if d.Wait > 0 {
		s.websiteWait = d.Wait
	}
	return s, nil
}

// Timing of website claims.
const (
	// WebsiteLease is how long the dispatcher holds a claim it took: a
	// dispatcher that dies leaves it to the next after that.
	WebsiteLease = 2 * time.Minute
	// DefaultWebsiteWait is the longest a /claim waits for its mint
	// before it tells the member they are queued.
	DefaultWebsiteWait = 15 * time.Second
	// websiteStatusTTL is how long a website's status read is reused by
	// claims' checks.
	websiteStatusTTL = 30 * time.Second
	// settleAfter is how long a mint whose outcome is unknown waits before
	// it is settled: the service's mint shows in a scan after a moment.
	settleAfter = 5 * time.Second
	// busyBase and busyMax bound the pause after the service refused for
	// rate limiting, when it did not say how long.
	busyBase = time.Second
	busyMax  = time.Minute
	// websiteWorkers is how many mints the dispatcher has under way at
	// once; the client's own rate limit paces them.
	websiteWorkers = 4
	// websitePoll is how often a waiting claim, and an idle dispatcher,
	// read the queue when nothing in this process woke them.
	websitePoll = time.Second
)

// websiteQueue is the process's side of the queue of website claims: it
// wakes the dispatcher when a claim is queued, and the claims waiting for
// their mint when the dispatcher recorded one.
type websiteQueue struct {
	mu      sync.Mutex
	kick    chan struct{}
	changed chan struct{}
	// openAt is when each website's status was last read and found open.
	openAt map[string]time.Time
}

func newWebsiteQueue() *websiteQueue {
	return &websiteQueue{kick: make(chan struct{}, 1), changed: make(chan struct{}), openAt: map[string]time.Time{}}
}

// wake tells the dispatcher a claim is due.
func (q *websiteQueue) wake() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// waitChange returns a channel closed at the dispatcher's next record.
func (q *websiteQueue) waitChange() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

// recorded wakes every claim waiting on a change.
func (q *websiteQueue) recorded() {
	q.mu.Lock()
	defer q.mu.Unlock()
	close(q.changed)
	q.changed = make(chan struct{})
}

// claim mints the drop to the member's primary wallet through its
// website claim: it checks the claim is open, queues the member's mint (one
// per member and one per wallet per drop) and waits up to s.websiteWait for
// the dispatcher to mint it. Still queued then, the result says so, with
// how many are ahead.
func (s *WebsiteService) claim(ctx context.Context, d Drop, user User) (ClaimResult, error) {
	wallet, err := primaryWallet(ctx, s.members, user.ID)
	if errors.Is(err, ErrNotLinked) {
		return ClaimResult{}, dropError(d, ErrNotLinked)
	}
	if err != nil {
		return ClaimResult{}, wrap("claim", err)
	}
	c, again, err := s.queueWebsite(ctx, d, user, wallet)
	if err != nil {
		return ClaimResult{}, err
	}
	if c.State == WebsiteMinted {
		return websiteResult(d, c, again), nil
	}
	s.web.wake()
	c, err = s.awaitWebsite(ctx, c)
	if err != nil {
		return ClaimResult{}, err
	}
	switch c.State {
	case WebsiteMinted:
		// The dispatcher minted it while the member waited (and told
		// MintEvents as it recorded it).
		return websiteResult(d, c, false), nil
	case WebsiteRefused:
		return ClaimResult{}, s.websiteRefusal(ctx, d, c)
	}
	res := websiteResult(d, c, again)
	if res.Ahead, err = s.store.WebsiteQueueAhead(ctx, c.ID); err != nil {
		s.log.Warn("place in the website queue not read", "claim", c.ID, "err", err)
	}
	return res, nil
}

// held reports whether the member has a claim of the drop minted or
// queued; a refused one is not held (a claim queues it again).
func (s *WebsiteService) held(ctx context.Context, d Drop, user User) (bool, error) {
	c, err := s.store.MemberWebsiteClaim(ctx, d.ID, user.ID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil && c.State != WebsiteRefused, err
}

// queueWebsite queues the member's mint, or returns their claim of the drop
// (again true). A new or refused claim is queued only when the website is
// open for it, as far as its status says (a status that cannot be read
// lets it queue: the dispatcher meets any refusal).
func (s *WebsiteService) queueWebsite(ctx context.Context, d Drop, user User, wallet string) (WebsiteClaim, bool, error) {
	c, err := s.store.MemberWebsiteClaim(ctx, d.ID, user.ID)
	switch {
	case err == nil && c.State != WebsiteRefused:
		// Minted, or queued already: the same claim, whatever the website
		// says now.
		return c, true, nil
	case err == nil:
		// Refused before: queued again only when the website's status,
		// read afresh, says it may pass now (a limit raised, a window
		// opened); otherwise the member hears why, as it is now.
		s.web.forget(d.Website)
	case !errors.Is(err, ErrNotFound):
		return WebsiteClaim{}, false, wrap("claim", err)
	}
	if err := s.websiteOpen(ctx, d); err != nil {
		return WebsiteClaim{}, false, err
	}
	c, again, err := s.store.QueueWebsiteClaim(ctx, d.ID, user.ID, wallet, s.clock.Now())
	switch {
	case errors.Is(err, ErrWalletClaimed):
		return WebsiteClaim{}, false, &DropError{Drop: d, Wallet: wallet, Err: ErrWalletClaimed}
	case err != nil:
		return WebsiteClaim{}, false, wrap("claim", err)
	}
	if !again {
		s.record(ctx, d.PlaceID, user.ID, AuditWebsiteQueued, fmt.Sprintf("event %d, claim #%d", d.EventID, c.ID))
	}
	return c, again, nil
}

// websiteOpen checks the drop's website claim is active, within its window
// and not at its limit: nil, or a *DropError. A status that cannot be read
// is no refusal. A verdict of open is reused for websiteStatusTTL, so a
// rush reads the status once; a refusal is always read afresh, so a claim
// approved or raised meanwhile opens at once.
func (s *WebsiteService) websiteOpen(ctx context.Context, d Drop) error {
	now := s.clock.Now()
	s.web.mu.Lock()
	at, ok := s.web.openAt[d.Website]
	s.web.mu.Unlock()
	if ok && now.Sub(at) < websiteStatusTTL {
		return nil
	}
	st, err := s.issuer.Website(ctx, d.Website)
	switch {
	case errors.Is(err, ErrNoWebsite):
		return dropError(d, ErrWebsiteInactive)
	case err != nil:
		s.log.Warn("website claim status not read", "event", d.EventID, "err", err)
		return nil
	}
	if err := websiteVerdict(d, st, now); err != nil {
		return err
	}
	s.web.mu.Lock()
	s.web.openAt[d.Website] = now
	s.web.mu.Unlock()
	return nil
}

// websiteVerdict says whether the website claim st of d is open at now.
func websiteVerdict(d Drop, st WebsiteStatus, now time.Time) error {
	switch {
	case st.EventID != 0 && st.EventID != d.EventID:
		return dropError(d, ErrNoWebsite)
	case !st.Active:
		return dropError(d, ErrWebsiteInactive)
	case !st.From.IsZero() && now.Before(st.From):
		opens := d
		opens.Starts = &st.From
		return dropError(opens, ErrClaimNotStarted)
	case !st.To.IsZero() && !now.Before(st.To):
		return dropError(d, ErrClaimEnded)
	case st.Total > 0 && st.Claimed >= st.Total:
		return dropError(d, ErrWebsiteLimit)
	}
	return nil
}

// awaitWebsite waits until the claim is minted or refused, up to
// s.websiteWait (or ctx's deadline, less a margin for the reply), and returns
// it as it is then.
func (s *WebsiteService) awaitWebsite(ctx context.Context, c WebsiteClaim) (WebsiteClaim, error) {
	wait := s.websiteWait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-3*time.Second)
	}
	deadline := time.NewTimer(max(wait, 0))
	defer deadline.Stop()
	poll := time.NewTicker(websitePoll)
	defer poll.Stop()
	for {
		changed := s.web.waitChange()
		now, err := s.store.WebsiteClaim(ctx, c.ID)
		if err != nil {
			return WebsiteClaim{}, wrap("claim", err)
		}
		if now.State == WebsiteMinted || now.State == WebsiteRefused {
			return now, nil
		}
		select {
		case <-changed:
		case <-poll.C:
		case <-deadline.C:
			return now, nil
		case <-ctx.Done():
			return now, nil
		}
	}
}

// websiteResult is the answer for a website claim minted or queued.
func websiteResult(d Drop, c WebsiteClaim, again bool) ClaimResult {
	res := ClaimResult{Drop: d, Wallet: c.Wallet, Again: again, Outcome: ResultWebsiteQueued,
		MintLink: MintLink{QRHash: c.QRHash, TransactionID: c.TransactionID}}
	if c.State == WebsiteMinted {
		res.Outcome = ResultWebsiteMinted
	}
	return res
}

// websiteRefusal is the error of a refused claim.
func (s *WebsiteService) websiteRefusal(ctx context.Context, d Drop, c WebsiteClaim) error {
	err := reasonError(c.Reason)
	if errors.Is(err, ErrClaimNotStarted) {
		if st, rerr := s.issuer.Website(ctx, d.Website); rerr == nil && !st.From.IsZero() {
			d.Starts = &st.From
		}
	}
	return &DropError{Drop: d, Wallet: c.Wallet, Err: err}
}
