package main

import (
	"context"
	"errors"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// refreshInterval is how often every drop's mint links are re-imported (a
// top-up approved at the issuing service, links used elsewhere) and mints
// in doubt are settled.
const refreshInterval = 15 * time.Minute

// postInterval is how often published posts (a /distribute claim message
// and its count of links left) are brought up to date. Every change of the
// interval is batched into at most one edit per post, whatever the number
// of claims: a post is edited at most 12 times a minute, well under
// Discord's rate limit on a channel's messages (5 per 5 s) and Telegram's
// (about 20 messages a minute in a group).
const postInterval = 5 * time.Second

// refreshJob names the exclusive lock of the refresh-and-reconcile turn.
const refreshJob = "refresh and reconcile"

// background settles the mints a crash or a lost answer left in doubt, at
// once, then re-imports links and settles mints every refreshInterval, and
// edits the published posts and posts notices every postInterval, and
// sweeps the gates every GATE_SYNC_INTERVAL (sweepGates) and resumes
// interrupted Moments every resumeInterval (resumeMoments), until ctx is
// done. Failures are logged and retried at the next turn.
//
// With several replicas, one at a time takes a refresh-and-reconcile turn
// (storage.DB.TryExclusive: a PostgreSQL advisory lock), so that they do
// not all import every drop's links at once; the others skip it. The post
// tick runs everywhere without a lock: each update and notice is handed out
// once by a conditional UPDATE, so the cost is repeated reads, not repeated
// messages.
func (m *Main) background(ctx context.Context) {
	m.refreshTurn(ctx, false)
	t := time.NewTicker(refreshInterval)
	defer t.Stop()
	postEvery := m.PostInterval
	if postEvery <= 0 {
		postEvery = postInterval
	}
	posts := time.NewTicker(postEvery)
	defer posts.Stop()
	// Gate sweeps and resumed Moments run beside the rest: a long sweep
	// (role changes waiting out rate limits) or a resumed upload holds up
	// no post edit nor mint settlement.
	sweeping := make(chan struct{})
	go func() { every(ctx, m.gates.Interval(), m.sweepGates); close(sweeping) }()
	defer func() { <-sweeping }()
	resuming := make(chan struct{})
	go func() { every(ctx, resumeInterval, m.resumeMoments); close(resuming) }()
	defer func() { <-resuming }()
	sending := make(chan struct{})
	go func() { m.sendWebsiteClaims(ctx); close(sending) }()
	defer func() { <-sending }()
	attendanceEvery := m.AttendanceInterval
	if attendanceEvery <= 0 {
		attendanceEvery = core.AttendanceHeartbeatEvery
	}
	telling := make(chan struct{})
	go func() { m.tellSummaries(ctx); close(telling) }()
	defer func() { <-telling }()
	attending := make(chan struct{})
	go func() { every(ctx, attendanceEvery, m.attendanceTurn); m.lastHeartbeat(); close(attending) }()
	defer func() { <-attending }()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.refreshTurn(ctx, true)
		case <-posts.C:
			m.editPosts(ctx)
			m.postNotices(ctx)
		}
	}
}

// attendanceTurn stamps the open attendance sessions this process follows
// (so that a restart's downtime is not credited), and stops those that
// reached their maximum length, handing each one's summary to
// tellSummaries, which also looks again for summaries still owed. Each
// stop is handed out once across replicas (the store's conditional
// close), and each try at telling a summary is claimed by one process
// (core.AttendanceService.ClaimSummary).
func (m *Main) attendanceTurn(ctx context.Context) {
	if err := m.attendance.Heartbeat(ctx, m.now()); err != nil && ctx.Err() == nil {
		m.Logger.Warn("attendance heartbeat failed", "err", err)
	}
	stopped, err := m.attendance.StopExpired(ctx)
	if err != nil && ctx.Err() == nil {
		m.Logger.Warn("stopping expired attendance failed", "err", err)
	}
	m.postSummaries(ctx, stopped)
	if m.AttendanceTurned != nil {
		m.AttendanceTurned()
	}
	m.summaries.lookAgain()
}

// lastHeartbeat stamps the open sessions this process follows once more
// as it stops, so that the downtime of a restart runs from the stop
// rather than from the last beat.
func (m *Main) lastHeartbeat() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.attendance.Heartbeat(ctx, m.now()); err != nil {
		m.Logger.Warn("last attendance heartbeat failed", "err", err)
	}
}

// now is the attendance sessions' time: Main.Clock's, or the system's.
func (m *Main) now() time.Time {
	if m.Clock != nil {
		return m.Clock.Now()
	}
	return time.Now()
}

// resumeInterval is how often posts of Moments that a stop interrupted are
// looked for; a post is taken for interrupted five minutes after its last
// write (core.MomentService.Resume).
const resumeInterval = time.Minute

// resumeMoments finishes or reports the posts of Moments a stop
// interrupted, one replica at a time (core.MomentService.Resume takes a
// lock).
func (m *Main) resumeMoments(ctx context.Context) {
	n, err := m.moments.Resume(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		m.Logger.Warn("interrupted Moments not resumed", "err", err)
	case n > 0:
		m.Logger.Info("interrupted Moments resumed", "count", n)
	}
}

// websiteJob names the exclusive lock of the website claims' dispatcher.
const websiteJob = "website claims"

// websiteRetry is how often a replica that does not run the website
// claims' dispatcher tries to take it over (its holder died), and how long
// after a failure the dispatcher is started again.
const websiteRetry = 10 * time.Second

// sendWebsiteClaims runs the dispatcher of website claims
// (core.WebsiteService.RunWebsiteClaims) on one replica at a time, until ctx
// is done; the others try to take over every websiteRetry.
func (m *Main) sendWebsiteClaims(ctx context.Context) {
	for ctx.Err() == nil {
		ran, err := m.DB.TryExclusive(ctx, websiteJob, m.websites.RunWebsiteClaims)
		switch {
		case err != nil && ctx.Err() == nil:
			m.Logger.Warn("website claims' dispatcher stopped", "err", err)
		case !ran:
			m.Logger.Debug("website claims left to another replica")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(websiteRetry):
		}
	}
}

// every runs f every d until ctx is done.
func every(ctx context.Context, d time.Duration, f func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(ctx)
		}
	}
}

// refreshTurn re-imports every drop's links when refresh is true, then
// settles the mints in doubt, unless another replica is doing so.
func (m *Main) refreshTurn(ctx context.Context, refresh bool) {
	ran, err := m.DB.TryExclusive(ctx, refreshJob, func(ctx context.Context) error {
		if refresh {
			if err := m.drops.RefreshAll(ctx); err != nil && ctx.Err() == nil {
				m.Logger.Warn("scheduled import of mint links failed", "err", err)
			}
		}
		m.reconcile(ctx)
		return nil
	})
	switch {
	case err != nil && ctx.Err() == nil:
		m.Logger.Warn("scheduled import of mint links not started", "err", err)
	case !ran:
		m.Logger.Debug("scheduled import of mint links left to another replica")
	}
}

// reconcile settles the mints left in doubt and logs how many. Only mints
// no live process holds are touched (their lease ran out, see
// core.MintLease), so running it at start-up while another replica mints,
// or right after this one sent a mint, changes nothing of theirs.
func (m *Main) reconcile(ctx context.Context) {
	n, err := m.links.ReconcileMints(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		m.Logger.Warn("settling mints in doubt failed", "err", err)
	case n > 0:
		m.Logger.Info("settled mints left in doubt", "count", n)
	}
}

// editPosts hands each post update to the adapter of its platform. Posts
// of a platform without an adapter here are skipped.
func (m *Main) editPosts(ctx context.Context) {
	updates, err := m.Bot.PostUpdates(ctx)
	if err != nil {
		if ctx.Err() == nil {
			m.Logger.Warn("reading post updates failed", "err", err)
		}
		return
	}
	for _, u := range updates {
		m.editPost(ctx, u)
	}
}

func (m *Main) editPost(ctx context.Context, u bot.PostUpdate) {
	e := m.adapters.Editor(u.Ref.Platform)
	if e == nil {
		return
	}
	if err := e.EditPost(ctx, u.Ref, u.Post); err != nil && ctx.Err() == nil {
		m.Logger.Warn("editing a post failed", "platform", u.Ref.Platform, "channel", u.Ref.Channel, "message", u.Ref.Message, "subject", u.Post.Subject, "err", err)
	}
}

// postNotices posts each notice (a drop running low) with the adapter of
// its platform, each apart: a notice waits its turn last under Telegram's
// flood limits, and must hold up neither the others nor the post edits.
// Each is handed out once across replicas, so a failure is logged, not
// retried: a notice is better lost than repeated.
func (m *Main) postNotices(ctx context.Context) {
	notices, err := m.Bot.Notices(ctx)
	if err != nil && ctx.Err() == nil {
		m.Logger.Warn("reading notices failed", "err", err)
	}
	for _, n := range notices {
		nt := m.adapters.Editor(n.Ref.Platform)
		if nt == nil {
			continue
		}
		go func() {
			if err := nt.Notify(ctx, n.Ref, n.Text); err != nil && ctx.Err() == nil {
				m.Logger.Warn("posting a notice failed", "platform", n.Ref.Platform, "channel", n.Ref.Channel, "err", err)
			}
		}()
	}
}

// sweepGates applies every gate to every member, unless another replica
// runs the sweep (core.GateService.Sweep takes a lock for it, and one per
// place).
func (m *Main) sweepGates(ctx context.Context) {
	r, err := m.gates.Sweep(ctx)
	switch {
	case errors.Is(err, core.ErrSyncRunning):
		m.Logger.Debug("gate sweep left to another replica")
		return
	case err != nil && ctx.Err() == nil:
		m.Logger.Warn("gate sweep failed", "err", err)
	}
	gained, lost := 0, 0
	for _, res := range r.Results {
		gained += len(res.Gained)
		lost += len(res.Lost)
	}
	m.Logger.Info("gate sweep", "gates", len(r.Results), "gained", gained, "lost", lost, "issuer_calls", r.IssuerCalls, "plan", r.Plan)
}
