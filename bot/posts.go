package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// errNotDropPost means a post reported with Posted is not a drop's claim
// message (its subject is not "drop:<id>").
var errNotDropPost = errors.New("posted: not a drop's claim message")

// Posted records where an adapter published a Reply.Post, so that
// PostUpdates keeps its count current, and that the attendance summary it
// tells (Post.Summary) is out. Its Subject names the drop
// ("drop:<event id>") and its text gives the intro to keep. It returns
// an error for a post that is not a drop's claim message, a
// *core.DropError with core.ErrNoSuchDrop when the drop was removed
// meanwhile, or the store's error.
func (b *Bot) Posted(ctx context.Context, ref PostRef, p Post) error {
	if p.Summary != 0 {
		b.summaryTold(ctx, p.Summary)
	}
	eventID, ok := core.SubjectDrop(p.Subject)
	if !ok {
		return fmt.Errorf("%w: subject %q", errNotDropPost, p.Subject)
	}
	cref := core.PostRef{Platform: ref.Platform, Place: ref.Place, Channel: ref.Channel, Message: ref.Message}
	return b.drops.RecordPost(ctx, cref, eventID, postIntro(p.Text))
}

// PostUpdates returns new content for the published posts whose drop's
// count of links left changed since they were last written, each change
// once however many replicas ask at the same time: the caller edits them.
// Adapters pick the updates of their platform. It returns the updates it
// could render together with the store's errors, if any.
func (b *Bot) PostUpdates(ctx context.Context) ([]PostUpdate, error) {
	states, err := b.drops.PostUpdates(ctx)
	out := make([]PostUpdate, 0, len(states))
	for _, s := range states {
		ref := PostRef{Platform: s.Ref.Platform, Place: s.Ref.Place, Channel: s.Ref.Channel, Message: s.Ref.Message}
		post := claimPost(s.Ref.Channel, s.Intro, s.Drop, s.Stock)
		post.Buttons = b.sealButtons(ctx, ref.Platform, ref.Place, "", post.Buttons, 0)
		out = append(out, PostUpdate{Ref: ref, Post: post})
	}
	return out, err
}

// postIntro is the intro of a claim message rendered by claimPost: its
// text before the count line.
func postIntro(text string) string {
	if i := strings.LastIndex(text, "\n\n"); i >= 0 {
		return text[:i]
	}
	return text
}
