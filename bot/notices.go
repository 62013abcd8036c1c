package bot

import (
	"context"
	"fmt"

	"github.com/poapbot/poapbot/core"
)

// PostNotice is a short message to post in the channel of a published
// post (Ref.Channel), in the reply text's markup: the low-stock notice to
// moderators.
type PostNotice struct {
	Ref  PostRef
	Text string
}

// Notices returns the notices to post now: for each drop that ran low on
// mint links since the last call, one in every channel where its claim
// message was published, each shortage once however many replicas ask at
// the same time. Adapters pick the notices of their platform. It returns
// the notices it could render together with the store's errors, if any.
func (b *Bot) Notices(ctx context.Context) ([]PostNotice, error) {
	notices, err := b.drops.LowStockNotices(ctx)
	out := make([]PostNotice, 0, len(notices))
	for _, n := range notices {
		ref := PostRef{Platform: n.Ref.Platform, Place: n.Ref.Place, Channel: n.Ref.Channel, Message: n.Ref.Message}
		out = append(out, PostNotice{Ref: ref, Text: lowStockText(n.Drop, n.Stock)})
	}
	return out, err
}

// lowStockText tells moderators, in a drop's channel, how few links are
// left and how to get more.
func lowStockText(d core.Drop, s core.Stock) string {
	var left string
	switch s.Available {
	case 0:
		left = "No mint links left"
	case 1:
		left = "Only 1 mint link left"
	default:
		left = fmt.Sprintf("Only %d mint links left", s.Available)
	}
	return fmt.Sprintf("%s for %s. Moderators: %s asks POAP for more (review can take a day), then %s.",
		left, dropTitle(d), codeSpan(fmt.Sprintf("/drop topup %d", d.EventID)), codeSpan(fmt.Sprintf("/drop refresh %d", d.EventID)))
}
