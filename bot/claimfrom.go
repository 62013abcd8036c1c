package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/poapbot/poapbot/core"
)

// ActFor is the adapter's part in a command typed in a private chat for a
// place of the platform (Request.ActFor): whether the caller belongs to
// place, asked of the platform. It returns the caller's request acting in
// place, ErrNotMember when they do not belong to it, another error when
// the platform could not tell, or nil and no error when place is not one a
// member acts for from a private chat (another private chat): it is left
// out.
type ActFor func(ctx context.Context, place core.Place) (*Request, error)

// ErrNotMember is ActFor's answer for a caller who does not belong to the
// place.
var ErrNotMember = errors.New("not a member of the place")

// maxClaimPlaces bounds the places whose membership one /claim from a
// private chat checks, one question to the platform each.
const maxClaimPlaces = 50

// Errors of /claim from a private chat; claimFromText words them.
var (
	errNoClaimPlace     = errors.New("the drop is handed out in no place of the member")
	errClaimPlaceLookup = errors.New("the places of a drop could not be listed")
	errClaimPlaceCheck  = errors.New("no membership of a place could be checked")
)

// claimPlacesError means the drop is handed out in more than one place the
// member belongs to; Names are their names, as far as known.
type claimPlacesError struct {
	EventID int64
	Names   []string
}

func (e *claimPlacesError) Error() string {
	return "drop " + strconv.FormatInt(e.EventID, 10) + " is handed out in several places of the member"
}

// claimFrom runs /claim <drop> typed in a private chat where the adapter
// lets a member act for a place (req.ActFor), and where no drop is set up:
// it finds the places of the platform that hand the drop out, keeps those
// ActFor says the member belongs to, and claims for the one place left, as
// its Claim button does. None or several is an answer that says what to
// do. ok is false when the request names no drop by its id, or when the
// places could not be read from storage: the command then runs as typed,
// and meets the same outage, which is worded as everywhere.
func (b *Bot) claimFrom(ctx context.Context, req *Request) (reply Reply, ok bool) {
	eventID, err := strconv.ParseInt(strings.TrimSpace(req.Options["drop"]), 10, 64)
	if err != nil || eventID <= 0 {
		return Reply{}, false
	}
	in, err := b.claimPlace(ctx, req, eventID)
	if errors.Is(err, core.ErrStoreUnavailable) {
		return Reply{}, false
	}
	if err != nil {
		return Reply{Text: claimFromText(err), Personal: true}, true
	}
	in.Command, in.Options = req.Command, req.Options
	// The request runs in the group once: never acted for again.
	in.ActFor = nil
	reply = b.Handle(ctx, in)
	reply.Personal, reply.Post = true, nil
	return reply, true
}

// claimPlace returns the request of the member claiming eventID in the one
// place that hands it out and that they belong to: errNoClaimPlace,
// *claimPlacesError, errClaimPlaceLookup, or errClaimPlaceCheck when no
// membership could be checked at all.
func (b *Bot) claimPlace(ctx context.Context, req *Request, eventID int64) (*Request, error) {
	places, err := b.DropPlaces(ctx, req.Place.Platform, eventID)
	if errors.Is(err, core.ErrStoreUnavailable) {
		return nil, err
	}
	if err != nil {
		b.log.Error("listing the places of a drop failed", "platform", req.Place.Platform, "event", eventID, "err", err)
		return nil, errClaimPlaceLookup
	}
	if len(places) > maxClaimPlaces {
		b.log.Warn("drop handed out in too many places; checking the first ones", "platform", req.Place.Platform, "event", eventID, "places", len(places))
		places = places[:maxClaimPlaces]
	}
	var found []*Request
	var names []string
	checked, failed := 0, 0
	for _, p := range places {
		in, err := req.ActFor(ctx, p)
		if in == nil && err == nil {
			continue // not a place to act for from here
		}
		checked++
		switch {
		case errors.Is(err, ErrNotMember):
			continue
		case err != nil:
			failed++
			continue
		}
		found = append(found, in)
		names = append(names, p.Name)
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return nil, &claimPlacesError{EventID: eventID, Names: names}
	case checked > 0 && failed == checked:
		return nil, errClaimPlaceCheck
	}
	return nil, errNoClaimPlace
}

// claimFromText is what the member reads when /claim from a private chat
// found no single place.
func claimFromText(err error) string {
	var several *claimPlacesError
	switch {
	case errors.As(err, &several):
		return fmt.Sprintf("This drop is handed out in several groups you belong to%s. Press the Claim button in the group you want it from, "+
			"or send /claim %d in that group.", placeList(several.Names), several.EventID)
	case errors.Is(err, errClaimPlaceLookup), errors.Is(err, errClaimPlaceCheck):
		return "I could not check which of your groups hand this drop out just now. Please send the command again in a minute."
	}
	return "This drop isn't handed out in any group you belong to. Join the group that hands it out, then send the command again."
}

// placeList is ", " between the names known, in parentheses, or "".
func placeList(names []string) string {
	var named []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			named = append(named, Escape(n))
		}
	}
	if len(named) == 0 {
		return ""
	}
	return " (" + strings.Join(named, ", ") + ")"
}
