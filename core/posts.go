package core

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PostRef says where a published message is: the platform, the place's
// platform id (Place), and the platform's ids of its channel and message.
type PostRef struct {
	Platform Platform
	Place    string
	Channel  string
	Message  string
}

// Post is a message the bot published for a drop (a claim message) and
// keeps current with the number of links left.
type Post struct {
	ID     int64
	DropID int64
	Ref    PostRef
	// Subject says what the message shows ("drop:42").
	Subject string
	// Intro is the text above the count line.
	Intro string
	// Available is the count of available links the message shows, as
	// ChangedPosts set it; AddPost stores it as not known yet.
	Available int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PostStore is what the drop service needs from stored state about the
// posts it published (claim messages) and the low-stock notices beside
// them. Every method is one atomic step.
type PostStore interface {
	// AddPost records a published post of p.DropID; recording the same
	// message again replaces it. The count it shows is stored as not
	// known, so the first ChangedPosts returns it. ErrConflict when the
	// drop does not exist.
	AddPost(ctx context.Context, p Post) error
	// ChangedPosts returns the posts of drops not removed whose count of
	// available links differs from the one they show (or is not known),
	// with Available set to the current count, and records that count as
	// shown, in one conditional step per post: a change is returned to one
	// caller only, however many race.
	ChangedPosts(ctx context.Context, at time.Time) ([]Post, error)
	// TakeLowStockPosts returns the posts of the drops, not removed, whose
	// shortage NoteLowStock noted and whose notice is still due, and
	// marks each drop's notice given, in one conditional step per drop: a
	// shortage goes to one caller only, however many race. A drop with
	// no post keeps its notice due until it has one. With an error, it
	// returns the posts of the drops it marked before.
	TakeLowStockPosts(ctx context.Context) ([]Post, error)
}

// PostState is new content for a published post: its drop and stock, the
// stock's Available being the count the post is to show.
type PostState struct {
	Ref   PostRef
	Intro string
	Drop  Drop
	Stock Stock
}

// DropSubject is the subject of a drop's claim message: "drop:<event id>".
func DropSubject(eventID int64) string { return "drop:" + strconv.FormatInt(eventID, 10) }

// SubjectDrop reads the event id of a DropSubject, with ok false when s is
// not one.
func SubjectDrop(s string) (eventID int64, ok bool) {
	rest, found := strings.CutPrefix(s, "drop:")
	if !found {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// Distribute returns the place's drop eventID with its stock, for the
// moderator to publish a claim message; eventID zero means the place's one
// drop open for claims, as with Claim. A drop with no links left can be
// distributed: its message says so. The moderator is audited. Errors: a
// *DropError with ErrNoSuchDrop or ErrDropRemoved, a *ChoiceError, or the
// store's error.
func (s *DropService) Distribute(ctx context.Context, moderator Member, p Place, eventID int64) (DropStatus, error) {
	var (
		d   Drop
		err error
	)
	if eventID == 0 {
		d, err = s.placeOpenDrop(ctx, p)
	} else {
		d, err = s.placeDrop(ctx, p, eventID, false)
	}
	if err != nil {
		return DropStatus{}, err
	}
	stock, err := s.mintLinks.Stock(ctx, d.ID)
	if err != nil {
		return DropStatus{}, wrap("distribute", err)
	}
	s.auditBy(ctx, d.PlaceID, moderator, AuditDropDistributed, fmt.Sprintf("event %d, %d links left", d.EventID, stock.Available))
	return DropStatus{Drop: d, Stock: stock}, nil
}

// placeOpenDrop returns the place's one drop open for claims, or a
// *ChoiceError.
func (s *DropService) placeOpenDrop(ctx context.Context, p Place) (Drop, error) {
	place, err := s.members.UpsertPlace(ctx, p.stored())
	if err != nil {
		return Drop{}, wrap("distribute", err)
	}
	return s.openDrop(ctx, place)
}

// RecordPost records where the claim message of the place's drop eventID
// was published, and the intro it shows above its count, so that
// PostUpdates keeps it current. Errors: a *DropError with ErrNoSuchDrop
// (the drop is unknown or was removed since), or the store's error.
func (s *DropService) RecordPost(ctx context.Context, ref PostRef, eventID int64, intro string) error {
	d, err := s.placeDrop(ctx, Place{Platform: ref.Platform, ExternalID: ref.Place}, eventID, false)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	p := Post{DropID: d.ID, Ref: ref, Subject: DropSubject(d.EventID), Intro: intro, CreatedAt: now, UpdatedAt: now}
	if err := s.posts.AddPost(ctx, p); err != nil {
		return wrap("record post", err)
	}
	return nil
}

// PostUpdates returns the posts whose drop's count of links left changed
// since they were last written, each change to one caller only (replicas
// may call it at once), with what they are to show. Posts of removed drops
// are left as they are. It returns the states it could read with the
// store's errors joined.
func (s *DropService) PostUpdates(ctx context.Context) ([]PostState, error) {
	posts, err := s.posts.ChangedPosts(ctx, s.clock.Now())
	if err != nil {
		return nil, wrap("post updates", err)
	}
	var (
		out  []PostState
		errs []error
	)
	for _, p := range posts {
		d, err := s.drops.DropByID(ctx, p.DropID)
		if err != nil {
			errs = append(errs, wrap("post updates", err))
			continue
		}
		stock, err := s.mintLinks.Stock(ctx, p.DropID)
		if err != nil {
			errs = append(errs, wrap("post updates", err))
			continue
		}
		// The post shows the count ChangedPosts recorded, even if a claim
		// has changed it since: the next call then sees the difference.
		stock.Available = p.Available
		out = append(out, PostState{Ref: p.Ref, Intro: p.Intro, Drop: d, Stock: stock})
	}
	return out, errors.Join(errs...)
}
