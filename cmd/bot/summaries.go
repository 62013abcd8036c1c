package main

import (
	"context"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/console"
	"github.com/poapbot/poapbot/core"
)

// summaryBacklog is how many summaries wait for tellSummaries at most; one
// that finds no room stays owed in the store, and is told from there at
// the first attendance turn after its minute of grace, by any replica.
const summaryBacklog = 256

// summaryQueue hands the summaries of sessions that stopped by themselves
// to the one goroutine that tells them (tellSummaries), without ever
// blocking who hands them (a server's voice worker, the attendance turn).
type summaryQueue struct {
	sums chan core.AttendanceSummary
	// again asks tellSummaries to look in the store for summaries owed.
	again chan struct{}
}

func newSummaryQueue() *summaryQueue {
	return &summaryQueue{sums: make(chan core.AttendanceSummary, summaryBacklog), again: make(chan struct{}, 1)}
}

// add queues sum; false when the queue is full.
func (q *summaryQueue) add(sum core.AttendanceSummary) bool {
	select {
	case q.sums <- sum:
		return true
	default:
		return false
	}
}

// lookAgain asks for a look at the summaries owed, once however often it
// is asked before the look.
func (q *summaryQueue) lookAgain() {
	select {
	case q.again <- struct{}{}:
	default:
	}
}

// postSummaries hands the summaries of sessions that stopped by
// themselves (maximum length, their scheduled event's end, a restart past
// their length) to tellSummaries and returns at once. The attendance turn
// and the Discord adapter (Resume, scheduled events) call it.
func (m *Main) postSummaries(_ context.Context, sums []core.AttendanceSummary) {
	for _, sum := range sums {
		if !m.summaries.add(sum) {
			m.Logger.Warn("attendance summary queue full: the summary is told from the store at a later turn", "session", sum.Session.ID)
			m.summaries.lookAgain()
		}
	}
}

// tellSummaries tells the summaries handed to postSummaries, and those
// owed in the store (a process that stopped a session died before telling
// it, or could not tell it), first at once and then whenever asked
// (lookAgain: every attendance turn), one at a time, until ctx is done.
// Each try of a summary is made by the one process that claims it.
func (m *Main) tellSummaries(ctx context.Context) {
	m.owedSummaries(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case sum := <-m.summaries.sums:
			m.tellSummary(ctx, sum)
		case <-m.summaries.again:
			m.owedSummaries(ctx)
		}
	}
}

// owedSummaries tells the summaries still owed in the store, of the
// platforms this process posts to.
func (m *Main) owedSummaries(ctx context.Context) {
	platforms := make([]core.Platform, 0, len(m.adapters))
	for _, a := range m.adapters {
		platforms = append(platforms, a.Platform())
	}
	sums, err := m.attendance.OwedSummaries(ctx, platforms...)
	if err != nil && ctx.Err() == nil {
		m.Logger.Warn("reading the attendance summaries owed failed", "err", err)
	}
	for _, sum := range sums {
		if ctx.Err() != nil {
			return
		}
		m.tellSummary(ctx, sum)
	}
}

// tellSummary claims the summary (another process may have it, or it
// waits after a failed try), mints a delivery:mint drop to the eligible
// members within bot.AttendanceStopTimeout, as /attendance stop does, and
// publishes the summary's claim post, or tells it as a notice when the
// post cannot be published. A summary told is marked so. One that could
// not be told waits before its next try, longer each time, and is given
// up after core.AttendanceSummaryAttempts tries; one left because this
// process stops is released at once. A summary of a platform this process
// does not post to is not claimed: another replica may tell it.
func (m *Main) tellSummary(ctx context.Context, sum core.AttendanceSummary) {
	id := sum.Session.ID
	ed := m.adapters.Editor(sum.Place.Platform)
	if ed == nil {
		m.Logger.Debug("attendance summary left: no adapter of its platform here", "session", id, "platform", sum.Place.Platform)
		return
	}
	claim, ok, err := m.attendance.ClaimSummary(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			m.Logger.Warn("attendance summary not claimed", "session", id, "err", err)
		}
		return
	}
	if !ok {
		return // told, being told or waiting to be tried again, or given up
	}
	if sum.Session.SummaryChannelID == "" {
		m.Logger.Warn("attendance summary not posted: no channel", "session", id, "platform", sum.Place.Platform)
		m.summaryTold(ctx, id)
		return
	}
	sctx, cancel := context.WithTimeout(ctx, bot.AttendanceStopTimeout)
	defer cancel()
	minted := m.Bot.MintAttendees(sctx, sum)
	if m.publishSummary(sctx, ed, sum, minted) {
		m.summaryTold(ctx, id)
		return
	}
	if ctx.Err() != nil {
		m.releaseSummary(ctx, claim)
		return
	}
	m.summaryFailed(ctx, claim)
}

// publishSummary publishes the summary's claim post in the channel the
// session was started in and records it with Bot.Posted, so that its count
// follows the claims; when the post cannot be made or published, it tells
// the summary as a notice instead. It reports whether the summary is out.
// A post Discord took but answered with an error is followed by the
// notice.
func (m *Main) publishSummary(ctx context.Context, ed bot.PostEditor, sum core.AttendanceSummary, minted string) bool {
	ref := bot.PostRef{Platform: sum.Place.Platform, Place: sum.Place.ExternalID, Channel: sum.Session.SummaryChannelID}
	post, err := m.Bot.AttendancePost(ctx, sum, minted)
	if err == nil {
		post = m.Bot.SealPost(ctx, ref, post)
		var out bot.PostRef
		if out, err = ed.Publish(ctx, ref, post); err == nil {
			if err := m.Bot.Posted(context.WithoutCancel(ctx), out, post); err != nil {
				m.Logger.Warn("attendance summary posted, not recorded: its count will not follow the claims", "session", sum.Session.ID, "err", err)
			}
			return true
		}
	}
	if ctx.Err() != nil {
		return false
	}
	m.Logger.Warn("attendance summary's claim post not published: told as a notice", "session", sum.Session.ID, "err", err)
	if err := ed.Notify(ctx, ref, bot.SummaryNotice(sum, minted)); err != nil {
		if ctx.Err() == nil {
			m.Logger.Warn("posting an attendance summary failed", "session", sum.Session.ID, "err", err)
		}
		return false
	}
	return true
}

// summaryTold marks the session's summary as out; a failure is logged (it
// may be told again).
func (m *Main) summaryTold(ctx context.Context, id int64) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.attendance.SummaryTold(ctx, id); err != nil {
		m.Logger.Warn("attendance summary not marked as told: it may be told again", "session", id, "err", err)
	}
}

// summaryFailed puts off the next try of a summary not told, and warns,
// once, when it was the last.
func (m *Main) summaryFailed(ctx context.Context, c core.SummaryClaim) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	gaveUp, err := m.attendance.SummaryFailed(ctx, c)
	if err != nil {
		m.Logger.Warn("attendance summary's next try not put off: it waits for its lease to end", "session", c.SessionID, "err", err)
	}
	if gaveUp {
		m.Logger.Warn("attendance summary given up: it could not be told", "session", c.SessionID, "tries", c.Attempt)
	}
}

// releaseSummary gives up the claim on a summary not tried to the end.
func (m *Main) releaseSummary(ctx context.Context, c core.SummaryClaim) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.attendance.ReleaseSummary(ctx, c); err != nil {
		m.Logger.Warn("attendance summary not released: it waits for its lease to end", "session", c.SessionID, "err", err)
	}
}

// resumeConsole takes up the console's open sessions at start-up, nobody
// present (the console keeps no voice state across a restart): the time
// the console was down is credited to nobody, and a session past its
// maximum length stops, its summary told.
func (m *Main) resumeConsole(ctx context.Context) {
	if m.console == nil {
		return
	}
	sums, err := m.attendance.Resume(ctx, console.Place(), nil)
	if err != nil && ctx.Err() == nil {
		m.Logger.Warn("resuming the console's attendance failed", "err", err)
	}
	m.postSummaries(ctx, sums)
}
