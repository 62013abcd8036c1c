package core

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"time"
)

// ButtonAction is what a button of the bot runs when pressed: a command
// line the bot wrote, stored when the button was made, for the place it was
// made in and, where it matters, the one member it was made for. The
// platform carries only the action's ID (Telegram's callback data and /start
// payload, Discord's custom_id), so a member who forges one can at most name
// an action the bot made, and only where and for whom it was made.
type ButtonAction struct {
	// ID is random (ButtonIDLen characters of base32), unguessable.
	ID       string
	Platform Platform
	// Place is the platform's id of the place the button was made in (the
	// Discord server, the Telegram chat). A press elsewhere is refused.
	Place string
	// Member is the platform's id of the member the button was made for
	// (the one who ran the command whose reply it is under); empty for a
	// button anyone in the place may press (a claim message's).
	Member string
	// Line is the command line the press runs, as the bot wrote it.
	Line      string
	CreatedAt time.Time
	// ExpiresAt is when the button stops working; nil for never (a claim
	// message stays up as long as its drop).
	ExpiresAt *time.Time
}

// ButtonIDLen is the length of a ButtonAction's ID: crypto/rand.Text's 26
// characters of base32 (A-Z, 2-7), 128 random bits. It fits Telegram's 64
// bytes of callback data and of a /start payload, and Discord's 100 of a
// custom_id, with room for a prefix.
const ButtonIDLen = 26

// ButtonStore keeps the buttons' actions; storage.DB satisfies it.
type ButtonStore interface {
	// SaveButtonAction stores a and returns it as stored. An action with
	// the same platform, place, member and line is stored once: its stored
	// ID is returned, and its expiry moved to the later of the two (none
	// wins over any), so that a message edited again and again keeps one
	// button and the table keeps one row. Expired actions may be deleted
	// on the way.
	SaveButtonAction(ctx context.Context, a ButtonAction) (ButtonAction, error)
	// ButtonAction returns the action with that ID, or ErrNotFound.
	ButtonAction(ctx context.Context, id string) (ButtonAction, error)
}

// Presser is who pressed a button, and where.
type Presser struct {
	Platform Platform
	// Place is the platform's id of the place the press came from.
	Place string
	// Member is the platform's id of the member who pressed.
	Member string
}

// ButtonService makes the actions of the bot's buttons and opens them when
// one is pressed: the only way a button or a deep link starts anything.
type ButtonService struct {
	base
	store ButtonStore
}

// ButtonServiceDeps are the dependencies of a ButtonService.
type ButtonServiceDeps struct {
	// Store is required; storage.DB is one.
	Store ButtonStore
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
}

// NewButtonService returns the button service. It returns an error wrapping
// ErrMissingDependency when Store is nil.
func NewButtonService(d ButtonServiceDeps) (*ButtonService, error) {
	if err := missing("button service", "Store", d.Store); err != nil {
		return nil, err
	}
	return &ButtonService{base: newBase(d.Clock, d.Logger, nil), store: d.Store}, nil
}

// Make stores the action a button runs and returns it with its ID: for
// a.Member alone when set, for anyone in a.Place otherwise, for ttl from
// now (zero: for as long as the button is up). The same action made again
// returns the same ID. It returns an error for an action without a
// platform, place or line, or the store's error.
func (s *ButtonService) Make(ctx context.Context, a ButtonAction, ttl time.Duration) (ButtonAction, error) {
	if !a.Platform.Valid() || a.Place == "" || a.Line == "" {
		return ButtonAction{}, errors.New("make button: an action needs a platform, a place and a line")
	}
	now := s.clock.Now()
	a.ID, a.CreatedAt, a.ExpiresAt = rand.Text(), now, nil
	if ttl > 0 {
		at := now.Add(ttl)
		a.ExpiresAt = &at
	}
	saved, err := s.store.SaveButtonAction(ctx, a)
	if err != nil {
		return ButtonAction{}, wrap("make button", err)
	}
	return saved, nil
}

// Open returns the action of the button id for the presser p: made on p's
// platform, in p's place, for p or for anyone there, and not expired.
// Errors: ErrButtonUnknown for an id the bot never made (or made for
// another place or platform: a forgery either way), ErrButtonNotYours,
// ErrButtonExpired, or the store's error.
func (s *ButtonService) Open(ctx context.Context, id string, p Presser) (ButtonAction, error) {
	a, err := s.Peek(ctx, id)
	switch {
	case err != nil:
		return ButtonAction{}, err
	case a.Platform != p.Platform || a.Place != p.Place:
		s.log.WarnContext(ctx, "a button was pressed outside the place it was made for", "platform", p.Platform, "place", p.Place)
		return ButtonAction{}, ErrButtonUnknown
	case a.Member != "" && a.Member != p.Member:
		return ButtonAction{}, ErrButtonNotYours
	}
	return a, nil
}

// Peek returns the action of the button id whatever the presser, for an
// adapter that must learn the place of a deep link before it can check that
// the member belongs there; Open still checks the press. Errors:
// ErrButtonUnknown, ErrButtonExpired, or the store's error.
func (s *ButtonService) Peek(ctx context.Context, id string) (ButtonAction, error) {
	if !validButtonID(id) {
		return ButtonAction{}, ErrButtonUnknown
	}
	a, err := s.store.ButtonAction(ctx, id)
	switch {
	case errors.Is(err, ErrNotFound):
		return ButtonAction{}, ErrButtonUnknown
	case err != nil:
		return ButtonAction{}, wrap("open button", err)
	case a.ExpiresAt != nil && !s.clock.Now().Before(*a.ExpiresAt):
		return ButtonAction{}, ErrButtonExpired
	}
	return a, nil
}

// validButtonID reports whether id has the shape of a ButtonAction's ID, so
// that junk never reaches the store.
func validButtonID(id string) bool {
	if len(id) != ButtonIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < 'A' || c > 'Z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}
