package bot

import (
	"context"
	"fmt"

	"github.com/poapbot/poapbot/core"
)

// AttendancePost is the summary of a stopped session as a claim message
// for its drop, in the channel the session was started in, whoever or
// whatever stopped it: the summary, why it stopped when it stopped by
// itself, what was minted (MintAttendees' words), then the claim intro,
// the count of links left and a Claim button, as /distribute posts (its
// count follows the claims once the post is recorded with Posted).
func (b *Bot) AttendancePost(ctx context.Context, sum core.AttendanceSummary, minted string) (Post, error) {
	place := sum.Place
	place.ID = 0
	dist, err := b.drops.DropInfo(ctx, place, sum.Session.EventID)
	if err != nil {
		return Post{}, err
	}
	intro := SummaryText(sum) + stopText(sum.Session.StopReason) + minted + "\n" + defaultIntro(dist.Drop)
	return claimPost(sum.Session.SummaryChannelID, intro, dist.Drop, dist.Stock), nil
}

// SummaryNotice is the summary of a stopped session as a notice, for
// when its claim message could not be made or published: AttendancePost's
// words, and how to claim without a button.
func SummaryNotice(sum core.AttendanceSummary, minted string) string {
	return SummaryText(sum) + stopText(sum.Session.StopReason) + minted +
		fmt.Sprintf(" Members who met the minimum claim with `/claim %d`.", sum.Session.EventID)
}

// stopText says why a session stopped by itself; "" for a moderator's
// stop.
func stopText(r core.StopReason) string {
	switch r {
	case core.StopEventCompleted:
		return " Its scheduled event ended."
	case core.StopEventCanceled:
		return " Its scheduled event was cancelled."
	case core.StopAtMaxLength:
		return " It reached its maximum length."
	}
	return ""
}

// SealPost readies a post the bot publishes by itself, outside any reply
// (a session's summary): its command buttons' actions are stored for
// anyone in ref's place, as a reply's post's are.
func (b *Bot) SealPost(ctx context.Context, ref PostRef, p Post) Post {
	p.Buttons = b.sealButtons(ctx, ref.Platform, ref.Place, "", p.Buttons, 0)
	return p
}

// stopSummary mints and makes the summary's claim post of a session a
// command stopped, for the command's reply to publish, with what
// MintAttendees said. The command takes on telling the summary first
// (core.AttendanceService.ClaimSummary), so that no replica's summaries
// queue tells it meanwhile; the post's publication marks it told (Posted). A
// post that is not published leaves it owed: the queue tells it once the
// claim's lease ends. Neither mints nor post (nil) when another process
// holds the summary already: it does both. A claim that fails is logged and
// the post made: the summary may then be told twice, never lost.
func (b *Bot) stopSummary(ctx context.Context, sum core.AttendanceSummary) (*Post, string, error) {
	id := sum.Session.ID
	_, ok, err := b.attendance.ClaimSummary(ctx, id)
	if err != nil {
		b.log.Warn("attendance summary not claimed: it may be told twice", "session", id, "err", err)
	}
	if err == nil && !ok {
		b.log.Info("attendance summary left to the process that holds it", "session", id)
		return nil, "", nil
	}
	minted := b.MintAttendees(ctx, sum)
	post, err := b.AttendancePost(ctx, sum, minted)
	if err != nil {
		return nil, "", err
	}
	post.Summary = id
	return &post, minted, nil
}

// summaryTold records that a post telling the session's summary was
// published, so that it is not owed; a failure is logged: the summary may
// then be told twice, never lost.
func (b *Bot) summaryTold(ctx context.Context, sessionID int64) {
	if err := b.attendance.SummaryTold(ctx, sessionID); err != nil {
		b.log.Warn("attendance summary not marked as told", "session", sessionID, "err", err)
	}
}
