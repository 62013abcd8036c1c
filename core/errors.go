package core

import (
	"errors"
	"fmt"
	"time"
)

// Every sentinel error of the package, by concern. Callers test for them
// with errors.Is; the bot package turns each into the words a member reads.

var (
	// Errors of stored state and of the services' construction.

	// ErrNotFound means a looked-up record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict means a write would break a uniqueness rule.
	ErrConflict = errors.New("conflict")
	// ErrStoreUnavailable means stored state cannot be read or written
	// just now: the database is down, refuses connections, dropped the
	// connection, or its file is locked or full. Nothing was changed; the
	// same step may be tried again later.
	ErrStoreUnavailable = errors.New("storage unavailable")
	// ErrMissingDependency means a service was constructed without one of
	// the dependencies it needs: a wiring mistake, refused at once.
	ErrMissingDependency = errors.New("missing dependency")
	// ErrForbidden means the member may not run the command here.
	ErrForbidden = errors.New("forbidden")

	// Errors of buttons and deep links (ButtonService).

	// ErrButtonUnknown means a pressed button or a followed link carries
	// no action the bot made for that place: a forgery, or a button from
	// before its actions were stored. Nothing runs.
	ErrButtonUnknown = errors.New("unknown button")
	// ErrButtonNotYours means the button was made for another member (it
	// is under the reply to their command).
	ErrButtonNotYours = errors.New("button made for another member")
	// ErrButtonExpired means the button's time is over.
	ErrButtonExpired = errors.New("button expired")

	// Errors of the issuing service, as its adapters translate them.

	// ErrIssuerUnavailable means the issuing service could not be reached,
	// timed out or failed (a 5xx, or its circuit is open). A refusal (a
	// 4xx) is not this: see ErrIssuerRefused and the sentinels of each
	// refusal.
	ErrIssuerUnavailable = errors.New("issuing service unavailable")
	// ErrIssuerRejected means the issuing service refused our credentials.
	ErrIssuerRejected = errors.New("issuing service refused the credentials")
	// ErrNotSent means a request never reached the issuing service: no
	// access token could be had (the hourly budget spent, say), the
	// request could not be built, or the service refused its token before
	// acting and no other could be had. The service did nothing, so what
	// was recorded ahead of the request may be undone at once. It comes
	// with the sentinel that says why (ErrIssuerUnavailable,
	// ErrIssuerRejected...).
	ErrNotSent = errors.New("request not sent to the issuing service")

	// Errors of wallets and members (WalletService, CollectionService).

	// ErrInvalidWallet means the text is not a 0x address, an ENS name or
	// an e-mail address (see WalletError for the reason).
	ErrInvalidWallet = errors.New("invalid wallet")
	// ErrNotLinked means the member has no wallet linked yet.
	ErrNotLinked = errors.New("no wallet linked")
	// ErrWalletNotLinked means the member has not linked the wallet they
	// named.
	ErrWalletNotLinked = errors.New("wallet not linked by the member")
	// ErrUnknownMember means a member named in a command is not known.
	ErrUnknownMember = errors.New("unknown member")
	// ErrTooManyWallets means the member holds MAX_WALLETS wallets (or
	// more) and asked to link another (see WalletLimitError).
	ErrTooManyWallets = errors.New("too many linked wallets")
	// ErrTooManyChallenges means the member holds MAX_CHALLENGES open
	// challenges and asked for another (see ChallengeLimitError).
	ErrTooManyChallenges = errors.New("too many open challenges")
	// ErrCannotListMembers means the platform of the place cannot tell the
	// bot who has a role or is in a group: no adapter of it reads its
	// members' standing. Nothing was drafted.
	ErrCannotListMembers = errors.New("the platform's members cannot be listed")
	// ErrRosterIncomplete means the platform could not say, for some
	// members, whether they have the role: a fixed list must not miss
	// them, so nothing was built.
	ErrRosterIncomplete = errors.New("could not read every member's roles")

	// Errors of the ownership challenge (WalletService).

	// ErrNoChallenge means the member has no pending challenge to verify.
	ErrNoChallenge = errors.New("no pending challenge")
	// ErrChallengeExpired means the challenge's lifetime (ChallengeTTL) is
	// over.
	ErrChallengeExpired = errors.New("challenge expired")
	// ErrChallengeUsed means the challenge was verified already (a replay).
	ErrChallengeUsed = errors.New("challenge already used")
	// ErrChallengeLocked means the challenge took MaxWrongSignatures wrong
	// signatures and takes none any more, not even the right one: the
	// member asks for a fresh one with /link.
	ErrChallengeLocked = errors.New("challenge locked after too many wrong signatures")
	// ErrBadSignature means the text is not a 65-byte hex signature.
	ErrBadSignature = errors.New("malformed signature")
	// ErrSignatureOldMessage means the signature is of an earlier
	// challenge's message, not the current one.
	ErrSignatureOldMessage = errors.New("signature of another challenge message")
	// ErrSignatureAltered means the linked wallet signed an altered copy
	// of the challenge message (other line endings, added or trimmed
	// spaces), not the exact text.
	ErrSignatureAltered = errors.New("signature of an altered copy of the message")
	// ErrSignatureMismatch means the signature recovers to an address other
	// than the linked one: another wallet signed, or another message was
	// signed.
	ErrSignatureMismatch = errors.New("signature does not match the wallet")
	// ErrEmailNotVerifiable means an e-mail cannot sign a challenge.
	ErrEmailNotVerifiable = errors.New("an e-mail cannot be verified by signature")

	// Errors of drops, moderators' commands on them, and claims
	// (DropService). Claims and moderator commands return them inside a
	// *DropError that names the drop.

	// ErrUnknownEvent means the issuing service knows no drop with that id.
	ErrUnknownEvent = errors.New("unknown drop at the issuing service")
	// ErrWrongEditCode means the issuing service refused the edit code.
	ErrWrongEditCode = errors.New("wrong edit code")
	// ErrNoSuchDrop means the place has no drop with that id.
	ErrNoSuchDrop = errors.New("no such drop here")
	// ErrDropExists means the place has the drop already.
	ErrDropExists = errors.New("drop registered already")
	// ErrDropRemoved means moderators stopped the drop.
	ErrDropRemoved = errors.New("drop removed")
	// ErrInvalidWindow means a claim window that ends before it starts,
	// or ends in the past.
	ErrInvalidWindow = errors.New("invalid claim window")
	// ErrInvalidClaimMethod means a claim method other than auto, link,
	// mint or website.
	ErrInvalidClaimMethod = errors.New("invalid claim method")
	// ErrNoWebsite means the issuing service has no website claim of that
	// name, or one of another drop.
	ErrNoWebsite = errors.New("no such website claim")
	// ErrInvalidWebsiteName means a website claim name cannot be one: it
	// is not 1 to MaxWebsiteName letters, digits, hyphens or underscores.
	// Nothing was asked of the issuing service.
	ErrInvalidWebsiteName = errors.New("not a website claim name")
	// ErrDeliveryExists means the drop has a delivery already; its list is
	// fixed.
	ErrDeliveryExists = errors.New("the drop has a delivery already")
	// ErrInvalidTopUp means a top-up count outside 1 to MaxTopUp.
	ErrInvalidTopUp = errors.New("invalid top-up count")
	// ErrTopUpPending means a request for more mint links is pending
	// review.
	ErrTopUpPending = errors.New("a top-up request is pending")
	// ErrNoActiveDrop means /claim named no drop and this place has not
	// exactly one active drop (see ChoiceError).
	ErrNoActiveDrop = errors.New("no single active drop")
	// ErrClaimNotStarted and ErrClaimEnded mean the claim window is not
	// open (the reply says when it opens or that it closed).
	ErrClaimNotStarted = errors.New("claim window not open yet")
	ErrClaimEnded      = errors.New("claim window closed")
	// ErrDropExpired means the drop expired at the issuing service: no
	// more of its POAPs can be minted. It matches ErrClaimEnded too.
	ErrDropExpired = fmt.Errorf("drop expired: %w", ErrClaimEnded)
	// ErrWrongCodeword means the codeword is missing or wrong.
	ErrWrongCodeword = errors.New("wrong codeword")
	// ErrMissingRole means the member lacks the drop's required role or
	// group membership.
	ErrMissingRole = errors.New("required role missing")
	// ErrNoMintLinksLeft means every mint link of the drop is taken.
	ErrNoMintLinksLeft = errors.New("no mint links left")
	// ErrWalletClaimed means the wallet already received this drop
	// through another member.
	ErrWalletClaimed = errors.New("wallet already claimed this drop")
	// ErrWalletHoldsDrop means the wallet holds a POAP of the drop
	// already, so the issuing service refuses another.
	ErrWalletHoldsDrop = errors.New("wallet holds the drop already")
	// ErrMintLinkClaimed means the issuing service says the mint link was
	// used already.
	ErrMintLinkClaimed = errors.New("mint link already claimed")
	// ErrMintLinkExpired means the issuing service says the mint link
	// expired.
	ErrMintLinkExpired = errors.New("mint link expired")
	// ErrMintLinkUsed means the mint link set aside for the member's mint
	// turned out used outside the bot, and the store keeps it as theirs.
	ErrMintLinkUsed = errors.New("the member's mint link was used elsewhere")

	// Errors of gating (GateService).

	// ErrGateExists means the place already gates that role or group.
	ErrGateExists = errors.New("gate exists already")
	// ErrNoGate means the place has no gate on that role or group.
	ErrNoGate = errors.New("no gate on that role or group")
	// ErrCannotEnforce means /gate add was refused because the bot could
	// not enforce the gate (see GateProblem for what to fix).
	ErrCannotEnforce = errors.New("the bot cannot enforce this gate")
	// ErrGateForbidden means the platform refused a role change or an
	// admission for lack of a permission: the gate pauses.
	ErrGateForbidden = errors.New("missing permission for the gate")
	// ErrBadGateDrops means the drops of /gate add are not a list of drop
	// ids, or name a drop the issuing service does not know (see
	// GateDropsError).
	ErrBadGateDrops = errors.New("bad gate drops")
	// ErrBadGateMode means the mode of /gate add is not any, all or
	// atleast:N within the number of drops.
	ErrBadGateMode = errors.New("bad gate mode")
	// ErrSyncRunning means a sweep of the place is running already (on
	// this replica or another).
	ErrSyncRunning = errors.New("a sync of this place is running")
	// ErrNotGroup means a group gate was asked for outside a group.
	ErrNotGroup = errors.New("not a group")
	// ErrJoinRequestGone means a join request could not be approved
	// because it is no longer pending: an administrator answered it, the
	// member withdrew it, or they are in the group already. The bot did
	// not admit them, so it records no grant.
	ErrJoinRequestGone = errors.New("join request no longer pending")

	// Moments.

	// ErrMediaGone means the platform no longer has a file a member
	// attached (a deleted message, an expired attachment address).
	ErrMediaGone = errors.New("attached file no longer available")
	// ErrMediaTooLargeToFetch means the platform will not hand a file this
	// large to the bot (Telegram's cloud Bot API: over 20 MB).
	ErrMediaTooLargeToFetch = errors.New("the platform will not hand over a file this large")
	// ErrMediaInvalid means Moments refused a file: its content is not
	// what its type says (INVALID), it could not be processed (FAILED), or
	// it cannot be attached (the service's 409).
	ErrMediaInvalid = errors.New("media refused by Moments")
	// ErrMediaTimeout means Moments was still processing a file at the
	// deadline.
	ErrMediaTimeout = errors.New("media still processing at the deadline")
	// ErrMomentDelayed means Moments did not answer the creation of a
	// Moment: it may or may not exist; the post is finished later
	// (MomentService.Resume), and its place told.
	ErrMomentDelayed = errors.New("moment creation unanswered, to be resumed")
	// ErrMomentsOff means moderators turned Moments off in the place.
	ErrMomentsOff = errors.New("moments are off here")
	// ErrNotVerified means the member has linked wallets but proved none.
	ErrNotVerified = errors.New("no verified wallet")
	// ErrNotHolder means none of the member's verified wallets holds the
	// drop (a *HolderError says which were checked).
	ErrNotHolder = errors.New("no verified wallet holds the drop")
	// ErrMomentRate means the member posted MOMENT_RATE Moments in the
	// last hour (a *MomentRateError says when the next may go).
	ErrMomentRate = errors.New("too many moments this hour")
	// ErrMomentRepeat means the post repeats an earlier one: the same
	// request delivered again, or the same file posted again by the same
	// member to the same drop (a *MomentRepeatError names the first).
	ErrMomentRepeat = errors.New("moment posted already")
	// ErrBadMoment means the post itself breaks a rule: no media, too
	// many, a description too long (a *MomentError says which).
	ErrBadMoment = errors.New("bad moment")
	// ErrBadMedia means a file is refused before anything is uploaded:
	// not an accepted type, not the type declared, too large, or not
	// handed over by the platform (a *MediaError says which and why).
	ErrBadMedia = errors.New("bad media file")
)

// GateProblem says why the bot cannot enforce a gate, and how to fix it.
// It matches ErrCannotEnforce, or ErrGateForbidden when Forbidden is set
// (the platform refused an action the gate took).
type GateProblem struct {
	// Reason says what is wrong, Fix what a moderator does about it.
	Reason    string
	Fix       string
	Forbidden bool
}

func (e *GateProblem) Error() string { return e.Reason }

// Is makes errors.Is(err, ErrCannotEnforce) or ErrGateForbidden true.
func (e *GateProblem) Is(target error) bool {
	if e.Forbidden {
		return target == ErrGateForbidden
	}
	return target == ErrCannotEnforce
}

// GateDropsError says what is wrong with the drops of /gate add: Input is
// the word that is not a drop id, or Unknown the id the issuing service
// does not know. It matches ErrBadGateDrops.
type GateDropsError struct {
	Input   string
	Unknown int64
	Reason  string
}

func (e *GateDropsError) Error() string { return "gate drops: " + e.Reason }

// Is makes errors.Is(err, ErrBadGateDrops) true.
func (e *GateDropsError) Is(target error) bool { return target == ErrBadGateDrops }

// WalletError says why a wallet identifier was refused. It matches
// ErrInvalidWallet with errors.Is.
type WalletError struct {
	Input  string
	Reason string
}

func (e *WalletError) Error() string {
	return "invalid wallet " + quote(e.Input) + ": " + e.Reason
}

// Is makes errors.Is(err, ErrInvalidWallet) true.
func (e *WalletError) Is(target error) bool { return target == ErrInvalidWallet }

// SignatureError says which address a signature recovered to, and which
// address the challenge wanted. It matches ErrSignatureMismatch with
// errors.Is.
type SignatureError struct {
	Recovered string
	Want      string
}

func (e *SignatureError) Error() string {
	return "signature recovers to " + e.Recovered + ", want " + e.Want
}

// Is makes errors.Is(err, ErrSignatureMismatch) true.
func (e *SignatureError) Is(target error) bool { return target == ErrSignatureMismatch }

// DropError is a refusal about one drop: Err is the sentinel (ErrClaimEnded,
// ErrWrongEditCode...), Drop what is known of the drop (at least its
// EventID), Wallet the wallet concerned, if any.
type DropError struct {
	Drop   Drop
	Wallet string
	Err    error
}

func (e *DropError) Error() string { return fmt.Sprintf("drop %d: %v", e.Drop.EventID, e.Err) }

// Unwrap returns the sentinel.
func (e *DropError) Unwrap() error { return e.Err }

// dropError wraps err with the drop it is about.
func dropError(d Drop, err error) error { return &DropError{Drop: d, Err: err} }

// ChoiceError says /claim named no drop and the place has not exactly one
// open for claims: Open lists those that are (none, or several). It matches
// ErrNoActiveDrop.
type ChoiceError struct {
	Open []Drop
}

func (e *ChoiceError) Error() string { return fmt.Sprintf("%d drops open for claims", len(e.Open)) }

// Is makes errors.Is(err, ErrNoActiveDrop) true.
func (e *ChoiceError) Is(target error) bool { return target == ErrNoActiveDrop }

func quote(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "…"
	}
	return "\"" + s + "\""
}

// MomentError says which rule a post broke: Problem is one of the
// MomentProblem values, Got and Limit the figures. It matches ErrBadMoment.
type MomentError struct {
	Problem MomentProblem
	Got     int
	Limit   int
}

// MomentProblem names a rule of a post.
type MomentProblem int

// The rules a post can break.
const (
	MomentNoMedia MomentProblem = iota
	MomentTooManyMedia
	MomentDescriptionTooLong
	MomentNoDrop
)

func (e *MomentError) Error() string {
	return fmt.Sprintf("bad moment: problem %d (%d, limit %d)", e.Problem, e.Got, e.Limit)
}

// Is makes errors.Is(err, ErrBadMoment) true.
func (e *MomentError) Is(target error) bool { return target == ErrBadMoment }

// MediaError says why a file of a post is refused. Index is its 0-based
// position, Name the platform's name for it; Problem says what is wrong,
// with Sniffed and Declared the types read and declared, Size and Limit the
// sizes, Reason the platform's own words (MediaUnavailable). It matches
// ErrBadMedia, and Err when set (ErrMediaGone).
type MediaError struct {
	Index    int
	Name     string
	Problem  MediaProblem
	Sniffed  string
	Declared string
	Size     int64
	Limit    int64
	Reason   string
	// Other is the 0-based index of the same file earlier in the post
	// (MediaTwice).
	Other int
	Err   error
}

// MediaProblem names what is wrong with a file.
type MediaProblem int

// What can be wrong with a file before it is uploaded.
const (
	// MediaUnsupported: the first bytes are none of the accepted types.
	MediaUnsupported MediaProblem = iota
	// MediaMismatch: the declared type is not what the bytes say.
	MediaMismatch
	// MediaTooLarge: over MOMENT_MAX_BYTES.
	MediaTooLarge
	// MediaUnavailable: the platform will not hand the file over.
	MediaUnavailable
	// MediaUnreadable: the platform failed to hand it over, or no longer
	// has it (Err says which).
	MediaUnreadable
	// MediaEmpty: the file has no bytes.
	MediaEmpty
	// MediaChanged: the file read for the upload is not the one checked.
	MediaChanged
	// MediaTwice: the file is in the post twice (Other is the first).
	MediaTwice
)

func (e *MediaError) Error() string {
	msg := fmt.Sprintf("bad media file %d (%s): problem %d", e.Index+1, quote(e.Name), e.Problem)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is makes errors.Is(err, ErrBadMedia) true.
func (e *MediaError) Is(target error) bool { return target == ErrBadMedia }

// Unwrap returns the cause, if any.
func (e *MediaError) Unwrap() error { return e.Err }

// HolderError says that none of Checked, the member's verified addresses,
// holds drop DropID; Unverified counts the linked wallets not counted. It
// matches ErrNotHolder.
type HolderError struct {
	DropID     int64
	Checked    []string
	Unverified int
}

func (e *HolderError) Error() string {
	return fmt.Sprintf("none of %d verified wallets holds drop %d", len(e.Checked), e.DropID)
}

// Is makes errors.Is(err, ErrNotHolder) true.
func (e *HolderError) Is(target error) bool { return target == ErrNotHolder }

// MomentRateError says the member reached Limit posts in the last hour;
// the next may go at Next. It matches ErrMomentRate.
type MomentRateError struct {
	Limit int
	Next  time.Time
}

func (e *MomentRateError) Error() string {
	return fmt.Sprintf("%d moments in the last hour", e.Limit)
}

// Is makes errors.Is(err, ErrMomentRate) true.
func (e *MomentRateError) Is(target error) bool { return target == ErrMomentRate }

// MomentRepeatError names the earlier post a post repeats: First, and
// File, the 0-based index of the repeated file in the new post (-1 when the
// whole request was delivered again). It matches ErrMomentRepeat.
type MomentRepeatError struct {
	First MomentRecord
	File  int
}

func (e *MomentRepeatError) Error() string {
	return fmt.Sprintf("repeats post #%d (%s)", e.First.ID, e.First.State)
}

// Is makes errors.Is(err, ErrMomentRepeat) true.
func (e *MomentRepeatError) Is(target error) bool { return target == ErrMomentRepeat }

// Errors of the issuing service beside DropIssuer's.
var (
	// ErrMintRefused means the issuing service refused a mint for a reason
	// the bot has no word for; nothing was minted.
	ErrMintRefused = errors.New("mint refused by the issuing service")
	// ErrIssuerBusy means the issuing service asked the bot to slow down:
	// the request was not processed and may be sent again later.
	ErrIssuerBusy = errors.New("issuing service rate limit")
)

// BusyError is ErrIssuerBusy with how long the service asked to wait
// (zero when it did not say).
type BusyError struct {
	RetryAfter time.Duration
}

func (e *BusyError) Error() string { return ErrIssuerBusy.Error() }

// Is makes a *BusyError match ErrIssuerBusy.
func (e *BusyError) Is(target error) bool { return target == ErrIssuerBusy }
