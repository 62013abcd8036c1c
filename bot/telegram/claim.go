package telegram

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// maxClaimPlaces bounds the groups whose membership one /claim in the
// private chat checks, one getChatMember each.
const maxClaimPlaces = 50

// Errors of /claim in the private chat; words turns them into text.
var (
	errNoGroup     = errors.New("telegram: the drop is handed out in no group of the member")
	errPlaceLookup = errors.New("telegram: the groups of a drop could not be listed")
	errGroupCheck  = errors.New("telegram: no group membership could be checked")
)

// severalGroupsError means the drop is handed out in more than one group
// the member belongs to; Groups are their titles, as far as known.
type severalGroupsError struct {
	EventID int64
	Groups  []string
}

func (e *severalGroupsError) Error() string {
	return "telegram: drop " + strconv.FormatInt(e.EventID, 10) + " is handed out in several groups of the member"
}

// privateClaim runs /claim <drop> typed in the bot's private chat, where no
// drop is set up: it finds the groups that hand the drop out (Drops), keeps
// those getChatMember says the member belongs to, and claims for the one
// group left, as the group's Claim button does. None or several is an
// answer that says what to do. ok is false when the line names no drop by
// its id: the command then runs as typed.
func (a *Adapter) privateClaim(ctx context.Context, o origin, text string) (reply bot.Reply, ok bool) {
	cmd, opts, err := a.bot.ParseLine(text, a.username)
	if err != nil || cmd.Name != "claim" {
		return bot.Reply{}, false
	}
	eventID, err := strconv.ParseInt(strings.TrimSpace(opts["drop"]), 10, 64)
	if err != nil || eventID <= 0 {
		return bot.Reply{}, false
	}
	req, err := a.claimPlace(ctx, o, eventID)
	if errors.Is(err, core.ErrStoreUnavailable) {
		// The command runs as typed and meets the same outage, which the
		// bot words as it words it everywhere.
		return bot.Reply{}, false
	}
	if err != nil {
		return bot.Reply{Text: words(err), Personal: true}, true
	}
	reply, _ = a.bot.HandleLine(ctx, req, text, a.username)
	reply.Personal, reply.Post = true, nil
	return reply, true
}

// claimPlace returns the request of the member claiming eventID for the
// one group that hands it out and that they belong to: errNoGroup,
// *severalGroupsError, errPlaceLookup, or errGroupCheck when no
// membership could be checked at all.
func (a *Adapter) claimPlace(ctx context.Context, o origin, eventID int64) (*bot.Request, error) {
	places, err := a.opts.Drops.DropPlaces(ctx, core.Telegram, eventID)
	if errors.Is(err, core.ErrStoreUnavailable) {
		return nil, err
	}
	if err != nil {
		a.log.Error("telegram: listing the groups of a drop failed", "event", eventID, "err", err)
		return nil, errPlaceLookup
	}
	if len(places) > maxClaimPlaces {
		a.log.Warn("telegram: drop handed out in too many groups; checking the first ones", "event", eventID, "groups", len(places))
		places = places[:maxClaimPlaces]
	}
	var found []*bot.Request
	var names []string
	checked, failed := 0, 0
	for _, p := range places {
		group, err := strconv.ParseInt(p.ExternalID, 10, 64)
		if err != nil || group >= 0 {
			continue // not a group: a private chat has no drops to claim
		}
		checked++
		admin, err := a.membership(ctx, group, o.from.ID)
		switch {
		case errors.Is(err, errMemberCheck):
			failed++
			continue
		case err != nil:
			continue
		}
		found = append(found, groupRequestFor(o, core.Place{Platform: core.Telegram, ExternalID: p.ExternalID, Name: p.Name}, admin))
		names = append(names, p.Name)
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, &severalGroupsError{EventID: eventID, Groups: names}
	case checked > 0 && failed == checked:
		return nil, errGroupCheck
	}
	return nil, errNoGroup
}
