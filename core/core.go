// Package core is the domain of the POAP bot: members and the places they
// meet in, the wallets they link, the drops moderators set up and the POAPs
// wallets hold. It speaks only in domain terms; storage, the issuing
// service's client and the chat adapters satisfy or call the small
// interfaces it defines.
//
// The core is one service per concern, each built by its constructor from a
// dependencies struct that names every interface it consumes; a missing
// dependency is refused there (ErrMissingDependency), never answered to a
// member at run time, and a service is complete once built. cmd/bot wires
// them. Every service reads members, places and wallets through the
// MemberStore, writes the AuditLog, and counts what it does through a
// Tally. Concepts more than one service reads have one home each: members
// and their verified wallets (the Roster), the locks replicas share
// (Exclusive), the drop and its claim methods' contract, the holdings the
// issuing service reports, the networks a drop can mint on, the audit log,
// and the sentinel errors and error types (but for the few that only one
// concern returns, kept with it).
//
//   - WalletService owns wallet linking. /link issues an ownership
//     challenge; /verify, or a signature on the verification page
//     (EIP-191 or Sign-In with Ethereum, a smart-contract wallet checked
//     on its chain), completes it, and only then is the wallet verified;
//     /wallet lists a member's wallets, /unlink and /forget remove them.
//     It bounds the wallets and open challenges a member holds, and tells
//     its WalletEvents of every wallet verified or unlinked.
//
//   - CollectionService owns /poaps: whose POAPs to read (a wallet typed,
//     a member named, or the caller's primary wallet) and reading them
//     from the issuing service.
//
//   - HoldingsCache keeps what a wallet holds for HoldingsTTL: one read
//     of a wallet shared by /poaps, /why and gating, concurrent reads of
//     it joined into one request, forgotten when the bot mints to it.
//     WithRequester names the member a piece of work is for, so that the
//     issuing service's request budget is served to members in turn.
//
//   - ButtonService makes the actions behind the bot's buttons and deep
//     links and opens them when pressed: the only way a button starts
//     anything, refused when forged, expired or pressed by another member
//     than the one it was made for.
//
//   - DropService owns drops and their stock of mint links: moderators
//     add, edit, list, refresh, top up, export and remove them, claim
//     posts are kept current and moderators hear when a drop runs low. It
//     checks a member's claim (the drop, its window, codeword and role) and
//     hands it to the service of the drop's claim method (a ClaimMethod),
//     whose outcome is one ClaimOutcome: MintLinkService (auto, link,
//     mint: the member's one link, or a direct mint recorded before it is
//     sent and never sent twice, with ReconcileMints for mints left in
//     doubt), WebsiteService (website: a queue minted at the pace the
//     issuing service allows) or DeliveryService (a POAP Delivery: a
//     fixed list of verified addresses, each claimed once). A method
//     whose service a process was not given is not offered
//     (ErrMethodNotOffered). NetworkService reads and sets the network a
//     drop mints on.
//
//   - GateService owns role and group gating: the gates moderators add,
//     list, check and remove, and their application to members, when a
//     wallet is verified or unlinked, when the bot mints to a member, when
//     a member joins or asks to join a group, on a schedule and on /gate
//     sync. It only ever takes back what it gave: every grant is recorded,
//     and a role or a membership the bot did not give is never touched. A
//     gate the platform refuses to enforce pauses, and says how to fix it.
//     The scheduled sweep runs on one replica at a time, reads what
//     members hold once for all places, and applies each place under its
//     own lock. It explains each gate to a member (/why) and checks the
//     gates for /setup check, and it is the Roster: who has a role or is in
//     a group among the verified members. Each platform's adapter does the
//     platform's part (GateActions).
//
//   - MomentService owns Moments posted from the chat. A post is checked
//     before any byte is uploaded (its shape, the place allows Moments,
//     the member's rate, a verified wallet holding the drop, each file's
//     type read from its first bytes and its size, no file twice), then
//     recorded, each file streamed from the platform to Moments, and the
//     Moment published once Moments processed it. A post a restart or a
//     lost answer interrupted stays unfinished and is finished by Resume,
//     one replica at a time, without creating its Moment twice. /moments
//     lists Moments, of drops or of a member's verified wallets, newest
//     first; moderators turn Moments off and on per place.
//
//   - AttendanceService counts who attends a voice or stage channel for a
//     drop. A session opens in one channel, at a moderator's word or when
//     the scheduled event it waits on begins; the adapters report voice
//     states as they change and members leaving; the stop tallies each
//     member's time against the session's minimum, and those who met it
//     are the drop's eligible members. Time deafened, out of the channel
//     or as a bot never counts, a member's reconnects are merged into one
//     attendance, and every stretch is stored as it happens, so a restart
//     closes the open ones at the last heartbeat and never credits the
//     bot's own downtime.
//
// Vocabulary: a member "links" a wallet (a wallet link); a drop's "mint
// link" is a one-use claim URL of the issuing service. Names say MintLink
// wherever they mean the latter. "Delivery" is only POAP's Delivery
// product; how members claim a drop is its claim method.
package core

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Platform names the chat platform a member or place lives on.
type Platform string

// The platforms the bot speaks on.
const (
	Discord  Platform = "discord"
	Telegram Platform = "telegram"
	Console  Platform = "console"
)

// Valid reports whether p is one of the known platforms.
func (p Platform) Valid() bool {
	switch p {
	case Discord, Telegram, Console:
		return true
	}
	return false
}

// Title returns the platform's name as people write it: "Discord".
func (p Platform) Title() string {
	if p == "" {
		return ""
	}
	return strings.ToUpper(string(p[:1])) + string(p[1:])
}

// User is a member of a platform, known by the platform's own user id.
type User struct {
	ID         int64
	Platform   Platform
	ExternalID string
	Name       string
	CreatedAt  time.Time
}

// Member is the person behind a command: the platform, the platform's own
// id for them, and the display name the platform gave.
type Member struct {
	Platform   Platform
	ExternalID string
	Name       string
}

// MaxNameLen is the most characters of a display name (a member's, a
// place's) that is stored: the platforms give names of their own choosing,
// so longer ones are cut, never refused.
const MaxNameLen = 128

// user is the member as a User to upsert.
func (m Member) user() User {
	return User{Platform: m.Platform, ExternalID: m.ExternalID, Name: clip(m.Name, MaxNameLen)}
}

// clip cuts s to at most n characters, control characters (a NUL among
// them, which PostgreSQL refuses in text) made spaces.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Place is a place the bot serves, where commands run: a Discord server, a
// Telegram chat, the console. ExternalID is the platform's own id for it;
// ID and CreatedAt are set once it is stored (MemberStore.UpsertPlace), and
// the drops, gates and Moments of the place belong to it by ID.
type Place struct {
	ID         int64
	Platform   Platform
	ExternalID string
	Name       string
	CreatedAt  time.Time
}

// stored is the place as it is upserted: its name clipped to MaxNameLen.
func (p Place) stored() Place {
	return Place{Platform: p.Platform, ExternalID: p.ExternalID, Name: clip(p.Name, MaxNameLen)}
}

// Clock tells the time; tests replace it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// MemberStore is what every service needs from stored state about places
// and members: the places and users it meets, and the wallets a user
// linked. Methods return ErrNotFound when a looked-up row does not exist.
type MemberStore interface {
	// UpsertPlace creates the place or refreshes its name, and returns it.
	UpsertPlace(ctx context.Context, t Place) (Place, error)
	// UpsertUser creates the user or refreshes its name, and returns it.
	UpsertUser(ctx context.Context, u User) (User, error)
	// FindUser returns the user with that platform id, or ErrNotFound.
	FindUser(ctx context.Context, p Platform, externalID string) (User, error)
	// FindUserByName returns the user of the platform with that display
	// name, or ErrNotFound.
	FindUserByName(ctx context.Context, p Platform, name string) (User, error)
	// UserByID returns the user with that id, or ErrNotFound.
	UserByID(ctx context.Context, id int64) (User, error)
	// Wallets lists the user's wallets, primary first.
	Wallets(ctx context.Context, userID int64) ([]Wallet, error)
}

// base is what every service keeps beside its stores: the clock and the
// logger, defaulted when a dependencies struct leaves them nil.
type base struct {
	clock Clock
	log   *slog.Logger
	// tally counts the service's acts for the domain metrics; nil counts
	// nothing.
	tally Tally
}

// newBase defaults a nil clock to the system clock and a nil logger to
// one that discards; a nil tally counts nothing.
func newBase(clock Clock, log *slog.Logger, tally Tally) base {
	if clock == nil {
		clock = SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return base{clock: clock, log: log, tally: tally}
}

// missing returns the error of a constructor given a nil dependency, or
// nil when every named dependency is set. deps alternates names and values.
func missing(service string, deps ...any) error {
	for i := 0; i+1 < len(deps); i += 2 {
		if isNil(deps[i+1]) {
			return fmt.Errorf("%s: %w: %s", service, ErrMissingDependency, deps[i])
		}
	}
	return nil
}

// isNil reports whether v is nil, or an interface holding a nil pointer,
// map, slice, channel or function (a *storage.DB never opened, say).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// wrap prefixes err with the operation, keeping it matchable.
func wrap(op string, err error) error {
	return fmt.Errorf("%s: %w", op, err)
}

// utcPtr returns a copy of *t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// ptrValue returns *p, or zero for nil.
func ptrValue(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
