package core

import (
	"context"
	"slices"
	"time"
)

// GateKind says how a gated place gives access: a role the bot adds and
// removes (Discord, the console), or a group entered by join requests the
// bot approves (Telegram).
type GateKind string

// The kinds of gate targets.
const (
	// GateRole is a role given and taken directly.
	GateRole GateKind = "role"
	// GateGroup is a group: access is given by approving a member's join
	// request and taken by a ban followed at once by an unban.
	GateGroup GateKind = "group"
)

// GateTarget is what a gate gives: a role of a server, or a group.
type GateTarget struct {
	// ID is the platform's id of the role or the group (the chat id on
	// Telegram, the role's name on the console).
	ID   string
	Name string
	Kind GateKind
	// InviteLink is, for a group, the join-request invite link members
	// enter through; empty for a role.
	InviteLink string
}

// GateDrop is one of a gate's drops, with its name when the issuing
// service gave one.
type GateDrop struct {
	ID   int64
	Name string
}

// Gate is a rule of one place: its target is given to the members whose
// verified wallets hold POAPs of its drops, as Mode says.
type Gate struct {
	ID      int64
	PlaceID int64
	// Platform and Place are the place's platform and external id (the
	// Discord server, the Telegram chat, "console"); stores fill them
	// from the place.
	Platform Platform
	Place    string
	Target   GateTarget
	Drops    []GateDrop
	Mode     GateMode
	// Channel is where the gate was added: moderators are told there when
	// it pauses.
	Channel string
	// CreatedBy is the user who added the gate.
	CreatedBy int64
	CreatedAt time.Time
	// Paused, when not empty, says why the bot stopped enforcing the gate
	// (a permission it lost) and how to fix it; PausedAt says since when.
	// A paused gate changes nobody until /gate sync finds it enforceable.
	Paused   string
	PausedAt *time.Time
	// SyncedAt is when the gate was last applied to every member.
	SyncedAt *time.Time
}

// DropIDs returns the ids of the gate's drops, in order.
func (g Gate) DropIDs() []int64 {
	ids := make([]int64, len(g.Drops))
	for i, d := range g.Drops {
		ids[i] = d.ID
	}
	return ids
}

// Missing returns the gate's drops, with their names, that the verdict
// found missing.
func (g Gate) Missing(v GateVerdict) []GateDrop {
	var out []GateDrop
	for _, d := range g.Drops {
		if slices.Contains(v.Missing, d.ID) {
			out = append(out, d)
		}
	}
	return out
}

// GrantState says whether a grant the bot made still stands.
type GrantState string

// The states of a grant.
const (
	// GrantPending: the bot claimed the grant and is asking the platform;
	// should it stop there (a crash, a lost answer), the next pass reads
	// the member's standing and settles it, never taking it for a
	// moderator's removal.
	GrantPending GrantState = "pending"
	// GrantActive: the member has what the bot gave.
	GrantActive GrantState = "active"
	// GrantWithdrawn: a moderator took the role away by hand. The
	// schedule does not give it back; the member's next join or /verify
	// does.
	GrantWithdrawn GrantState = "withdrawn"
)

// Grant records that the bot gave a gate's target to a member: the only
// thing it may ever take back.
type Grant struct {
	GateID int64
	UserID int64
	// Member is the member's platform id.
	Member string
	// Wallets are the verified addresses that qualified, Reason what
	// triggered the grant ("verify", "join", "join request", "sync").
	Wallets   []string
	Reason    string
	State     GrantState
	GrantedAt time.Time
}

// JoinRequest is a request to join a gated group left pending while the
// member links and verifies a wallet.
type JoinRequest struct {
	GateID      int64
	UserID      int64
	Member      string
	RequestedAt time.Time
}

// DeclineReason says why the bot declined a join request.
type DeclineReason string

// The reasons of a declined join request.
const (
	// DeclineMissing: the member's verified wallets lacked the drops.
	DeclineMissing DeclineReason = "missing"
	// DeclineExpired: the member verified no wallet within
	// JoinRequestTTL.
	DeclineExpired DeclineReason = "expired"
)

// JoinDecline records that the bot declined a member's request to join a
// gated group, kept JoinDeclineTTL so that /why can explain it: the
// member asks when they are declined, not when they are in.
type JoinDecline struct {
	GateID int64
	UserID int64
	Member string
	Reason DeclineReason
	// Missing are the gate's drops the member lacked then.
	Missing     []GateDrop
	RequestedAt time.Time
	DeclinedAt  time.Time
}

// GateStore keeps gates, the grants the bot made, pending join requests
// and the recently declined ones. Methods return ErrNotFound for a missing row.
type GateStore interface {
	// AddGate stores g (its PlaceID set) and returns it with its ID,
	// Platform and Place. ErrGateExists when the place already gates
	// that target.
	AddGate(ctx context.Context, g Gate) (Gate, error)
	// GateByTarget returns the place's gate on the target id.
	GateByTarget(ctx context.Context, placeID int64, target string) (Gate, error)
	// PlaceGates lists the place's gates, oldest first.
	PlaceGates(ctx context.Context, placeID int64) ([]Gate, error)
	// PlatformGates lists every gate of the platform's places.
	PlatformGates(ctx context.Context, p Platform) ([]Gate, error)
	// RemoveGate deletes the gate with its grants and join requests.
	RemoveGate(ctx context.Context, id int64) error
	// SetGateInviteLink records the gate's invite link (GateInviter).
	// ErrNotFound when there is no such gate.
	SetGateInviteLink(ctx context.Context, id int64, link string) error
	// PauseGate marks the gate paused with reason unless it is paused
	// already; first is true for the call that paused it (moderators are
	// told once).
	PauseGate(ctx context.Context, id int64, reason string, at time.Time) (first bool, err error)
	// ResumeGate clears the pause.
	ResumeGate(ctx context.Context, id int64) error
	// GateSynced records when the gate was last applied to every member.
	GateSynced(ctx context.Context, id int64, at time.Time) error

	// ClaimGrant stores g unless the member has a grant of that gate
	// already: claimed is false then, and nothing changed. Of replicas
	// handling the same event, one claims.
	ClaimGrant(ctx context.Context, g Grant) (claimed bool, err error)
	// SetGrant updates the state, reason, wallets and time of an existing
	// grant. ErrNotFound when there is none.
	SetGrant(ctx context.Context, g Grant) error
	// DropGrant deletes the member's grant of the gate; dropped is false
	// when there was none (another replica dropped it).
	DropGrant(ctx context.Context, gateID, userID int64) (dropped bool, err error)
	// Grants lists the gate's grants.
	Grants(ctx context.Context, gateID int64) ([]Grant, error)
	// UserGrants lists the user's grants, of every gate.
	UserGrants(ctx context.Context, userID int64) ([]Grant, error)

	// AddJoinRequest stores a pending join request unless one of the
	// member to the gate is stored; added is false then.
	AddJoinRequest(ctx context.Context, r JoinRequest) (added bool, err error)
	// JoinRequests lists the gate's pending join requests, oldest first.
	JoinRequests(ctx context.Context, gateID int64) ([]JoinRequest, error)
	// UserJoinRequests lists the user's pending join requests.
	UserJoinRequests(ctx context.Context, userID int64) ([]JoinRequest, error)
	// DropJoinRequest deletes a pending join request; dropped is false
	// when there was none.
	DropJoinRequest(ctx context.Context, gateID, userID int64) (dropped bool, err error)

	// AddJoinDecline stores a declined join request, replacing an earlier
	// one of the member to the gate. ErrNotFound when the gate or the
	// user does not exist.
	AddJoinDecline(ctx context.Context, d JoinDecline) error
	// UserJoinDeclines lists the user's declined join requests declined
	// at or after since, oldest first.
	UserJoinDeclines(ctx context.Context, userID int64, since time.Time) ([]JoinDecline, error)
	// PruneJoinDeclines deletes the declined join requests declined
	// before before, and says how many.
	PruneJoinDeclines(ctx context.Context, before time.Time) (int, error)

	// VerifiedMembers lists the platform's users that have at least one
	// verified wallet with an address, with those addresses.
	VerifiedMembers(ctx context.Context, p Platform) ([]VerifiedMember, error)
	// PlaceVerifiedMembers is VerifiedMembers of the users seen in the
	// place (SeeMember).
	PlaceVerifiedMembers(ctx context.Context, placeID int64) ([]VerifiedMember, error)
	// SeeMember records that the user is in the place; it
	// changes nothing when it was recorded already.
	SeeMember(ctx context.Context, placeID, userID int64, at time.Time) error
	// UnseeMember records that the user is no longer in the place.
	UnseeMember(ctx context.Context, placeID, userID int64) error
}

// Standing is a member's standing in a gated place, as the platform says.
type Standing struct {
	// InPlace is true when the member is in the server or the group.
	InPlace bool
	// Has is true when the member has the target: the role, or (for a
	// group) membership.
	Has bool
}

// GateNoticeKind says what a gate notice tells.
type GateNoticeKind int

// The notices of gating.
const (
	// NoticeJoinPending tells a join requester with no verified wallet
	// how to link and verify one; the request stays pending.
	NoticeJoinPending GateNoticeKind = iota + 1
	// NoticeJoinApproved tells a requester they were let in.
	NoticeJoinApproved
	// NoticeJoinDeclined tells a verified requester which drops are
	// missing.
	NoticeJoinDeclined
	// NoticeJoinExpired tells a requester their request was declined
	// after JoinRequestTTL without a verified wallet.
	NoticeJoinExpired
	// NoticeRemoved tells a member the bot removed them from a group,
	// and why.
	NoticeRemoved
	// NoticeGatePaused tells the moderators, in the channel where the
	// gate was added, that it is paused and how to fix it.
	NoticeGatePaused
)

// GateNotice is a message of gating to a member or to moderators. The bot
// package renders it.
type GateNotice struct {
	Kind GateNoticeKind
	Gate Gate
	// Missing are the drops the member lacks (declined, removed).
	Missing []GateDrop
	// Problem says why a gate paused, and how to fix it.
	Problem *GateProblem
}

// GateActions is what a chat adapter does for gating on its platform.
// place is the place's id on its platform. Methods return an error wrapping
// ErrGateForbidden (with a *GateProblem saying how to fix it) when the
// platform refused for lack of a permission: the gate pauses.
type GateActions interface {
	// Prepare checks that the bot can enforce a gate on target (a role id
	// or name; for a group, the place itself and target "") and returns
	// it, creating nothing (a group's invite link is GateInviter's, once
	// the gate is stored). It returns a *GateProblem (errors.Is
	// ErrCannotEnforce) saying how to fix what the bot could not enforce.
	Prepare(ctx context.Context, place, target string) (GateTarget, error)
	// Check is Prepare without creating anything: nil when the bot can
	// enforce the gate now.
	Check(ctx context.Context, place string, target GateTarget) error
	// Standing says whether the member is in the place and has the
	// target.
	Standing(ctx context.Context, place string, target GateTarget, member string) (Standing, error)
	// Grant gives the member the role, or approves their join request:
	// ErrJoinRequestGone when there is no request to approve any more
	// (an administrator answered it, the member withdrew it or is in).
	Grant(ctx context.Context, place string, target GateTarget, member string) error
	// Revoke takes the role away, or removes the member from the group
	// (a ban then an unban, so they may ask again).
	Revoke(ctx context.Context, place string, target GateTarget, member string) error
	// Decline declines the member's join request to the group.
	Decline(ctx context.Context, place string, target GateTarget, member string) error
	// Tell writes to the member in private.
	Tell(ctx context.Context, member string, n GateNotice) error
	// Announce writes to the moderators in channel of place.
	Announce(ctx context.Context, place, channel string, n GateNotice) error
	// Setup checks the bot's rights in place, one line each, for /setup
	// check.
	Setup(ctx context.Context, place string) []SetupLine
}

// GateInviter is the optional part of a platform's GateActions whose gates
// are entered through an invite link (a Telegram group's join-request
// link). GateService.AddGate asks for the link only once the gate is
// stored: of two moderators adding the same gate at once, the one whose
// gate was not stored creates none.
type GateInviter interface {
	// CreateInviteLink creates the invite link of the stored gate on
	// target in place. It returns a *GateProblem (errors.Is
	// ErrCannotEnforce) when the platform refused it.
	CreateInviteLink(ctx context.Context, place string, target GateTarget) (string, error)
}

// IssuerCheck says whether the issuing service answers with the
// configured key and credentials, for /setup check.
type IssuerCheck interface {
	CheckIssuer(ctx context.Context) []SetupLine
}

// JoinRequestTTL is how long a join request waits for its member to
// verify a wallet before it is declined.
const JoinRequestTTL = 24 * time.Hour

// JoinDeclineTTL is how long a declined join request is kept for /why;
// the schedule deletes older ones.
const JoinDeclineTTL = 30 * 24 * time.Hour
