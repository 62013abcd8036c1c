package telegram

import (
	"context"
	"errors"
	"strconv"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// actFor lets the member of a private chat act for a group they belong to
// (bot.ActFor): a /claim there of a drop handed out in one of their groups
// claims it in that group. getChatMember says whether they belong to it;
// a place that is not a group (another private chat) is left out.
func (a *Adapter) actFor(o origin) bot.ActFor {
	return func(ctx context.Context, p core.Place) (*bot.Request, error) {
		group, err := strconv.ParseInt(p.ExternalID, 10, 64)
		if err != nil || group >= 0 {
			return nil, nil
		}
		admin, err := a.membership(ctx, group, o.from.ID)
		switch {
		case errors.Is(err, errNotInGroup):
			return nil, bot.ErrNotMember
		case err != nil:
			return nil, err
		}
		return groupRequestFor(o, core.Place{Platform: core.Telegram, ExternalID: p.ExternalID, Name: p.Name}, admin), nil
	}
}
