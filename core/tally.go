package core

import (
	"context"
	"errors"
)

// Act names something the bot does for members that the domain metrics
// count: one counter each, labelled by platform and outcome.
type Act string

// Acts, each with the outcomes it is counted with.
const (
	// ActClaim: a member's claim of a drop, by the drop's claim method
	// (Tallied.Method): OutcomeLink (a mint link to mint themselves),
	// OutcomeMinted, OutcomePending (sent, not confirmed yet), OutcomeQueued
	// (a website claim waiting its turn), OutcomeAgain (what they had
	// already), OutcomeRefused, OutcomeFailed.
	ActClaim Act = "claim"
	// ActMint: the recorded end of a direct mint, once per mint:
	// OutcomeMinted, OutcomeFailed (the link is back with the member),
	// OutcomeClaimedElsewhere; and OutcomePending when its sender could not
	// learn the end (it is settled, and counted, later). Counted with the
	// platform of the member whose claim recorded it, none when the
	// reconciler did.
	ActMint Act = "mint"
	// ActVerification: a signature offered for a challenge (by /verify or
	// the verification page): OutcomeVerified, OutcomeRefused,
	// OutcomeFailed.
	ActVerification Act = "verification"
	// ActWalletLink: OutcomeLinked, OutcomeAgain (linked before),
	// OutcomeRefused (bad input, a limit), OutcomeUnlinked, OutcomeFailed.
	ActWalletLink Act = "wallet_link"
	// ActRoleGrant: a gated role (Discord) or group access (Telegram)
	// given: OutcomeDone or OutcomeFailed.
	ActRoleGrant Act = "role_grant"
	// ActRoleRemoval: a gated role or group access the bot gave taken
	// back: OutcomeDone or OutcomeFailed.
	ActRoleRemoval Act = "role_removal"
	// ActJoinRequest: a request to join a gated group decided:
	// OutcomeApproved, OutcomeDeclined, OutcomeFailed.
	ActJoinRequest Act = "join_request"
	// ActMoment: a Moment posted from the chat: OutcomePosted,
	// OutcomeRefused (the post or its files were refused), OutcomePending
	// (interrupted, to be resumed: its end is counted again when the
	// resumption ends it), OutcomeFailed.
	ActMoment Act = "moment"
)

// Outcomes of acts (metric label values: stable and few).
const (
	OutcomeLink             = "link"
	OutcomeMinted           = "minted"
	OutcomePending          = "pending"
	OutcomeQueued           = "queued"
	OutcomeAgain            = "again"
	OutcomeRefused          = "refused"
	OutcomeFailed           = "failed"
	OutcomeClaimedElsewhere = "claimed_elsewhere"
	OutcomeVerified         = "verified"
	OutcomeLinked           = "linked"
	OutcomeUnlinked         = "unlinked"
	OutcomeDone             = "done"
	OutcomeApproved         = "approved"
	OutcomeDeclined         = "declined"
	OutcomePosted           = "posted"
)

// Tallied is one act counted.
type Tallied struct {
	Act      Act
	Platform Platform
	// Method is a claim's claim method (a Drop's Method); empty for
	// other acts.
	Method  ClaimMethod
	Outcome string
}

// Tally counts what the bot did, for the domain metrics. Count must be
// safe for concurrent use and must not block: it runs on the member's
// path. web.Metrics is one.
type Tally interface {
	Count(t Tallied)
}

// count tells the service's tally, if any, of one act.
func (r base) count(act Act, p Platform, outcome string) {
	if r.tally != nil {
		r.tally.Count(Tallied{Act: act, Platform: p, Outcome: outcome})
	}
}

// failedOrRefused is the outcome of an act that ended in err: failed when
// the bot or a service it needs could not do it (the issuing service or
// the storage unavailable or refusing the bot's credentials, the time
// running out), refused when the answer was about the member's request.
func failedOrRefused(err error) string {
	switch {
	case errors.Is(err, ErrIssuerUnavailable), errors.Is(err, ErrStoreUnavailable),
		errors.Is(err, ErrIssuerRejected), errors.Is(err, ErrChainUnavailable),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return OutcomeFailed
	}
	return OutcomeRefused
}

// claimOutcome is the outcome of a claim that returned res and err.
func claimOutcome(res ClaimResult, err error) string {
	switch {
	case err != nil:
		return failedOrRefused(err)
	case res.Again:
		return OutcomeAgain
	}
	switch res.Outcome {
	case ResultWebsiteQueued:
		return OutcomeQueued
	case ResultMintPending, ResultDeliveryPending:
		return OutcomePending
	case ResultMinted, ResultWebsiteMinted, ResultDeliveryClaimed:
		return OutcomeMinted
	}
	return OutcomeLink
}

// linkOutcome is the outcome of a /link that returned res and err.
func linkOutcome(res LinkResult, err error) string {
	switch {
	case err != nil:
		return failedOrRefused(err)
	case res.AlreadyLinked:
		return OutcomeAgain
	}
	return OutcomeLinked
}

// verifyOutcome is the outcome of a signature offered for a challenge.
func verifyOutcome(err error) string {
	if err == nil {
		return OutcomeVerified
	}
	return failedOrRefused(err)
}

// doneOrFailed is the outcome of a platform action (a role given or taken
// back) that returned err.
func doneOrFailed(err error) string {
	if err != nil {
		return OutcomeFailed
	}
	return OutcomeDone
}

// decidedOrFailed is the outcome of a join request's decision, decision,
// whose platform call returned err.
func decidedOrFailed(decision string, err error) string {
	if err != nil {
		return OutcomeFailed
	}
	return decision
}

// momentOutcome is the outcome of a Moment's post that returned err.
func momentOutcome(err error) string {
	var me *MediaError
	switch {
	case err == nil:
		return OutcomePosted
	case errors.Is(err, ErrMomentDelayed):
		return OutcomePending
	case errors.As(err, &me) && me.Problem == MediaUnreadable:
		// The platform did not hand the file over: not the member's post.
		return OutcomeFailed
	}
	return failedOrRefused(err)
}

// actOutcomes are the outcomes each act is counted with.
var actOutcomes = map[Act][]string{
	ActClaim:        {OutcomeLink, OutcomeMinted, OutcomePending, OutcomeQueued, OutcomeAgain, OutcomeRefused, OutcomeFailed},
	ActMint:         {OutcomeMinted, OutcomeFailed, OutcomeClaimedElsewhere, OutcomePending},
	ActVerification: {OutcomeVerified, OutcomeRefused, OutcomeFailed},
	ActWalletLink:   {OutcomeLinked, OutcomeAgain, OutcomeRefused, OutcomeUnlinked, OutcomeFailed},
	ActRoleGrant:    {OutcomeDone, OutcomeFailed},
	ActRoleRemoval:  {OutcomeDone, OutcomeFailed},
	ActJoinRequest:  {OutcomeApproved, OutcomeDeclined, OutcomeFailed},
	ActMoment:       {OutcomePosted, OutcomeRefused, OutcomePending, OutcomeFailed},
}

// Acts lists every act a Tally is told of.
func Acts() []Act {
	return []Act{ActClaim, ActMint, ActVerification, ActWalletLink, ActRoleGrant, ActRoleRemoval, ActJoinRequest, ActMoment}
}

// Outcomes lists the outcomes act is counted with: a Tally is told of no
// other.
func (a Act) Outcomes() []string { return actOutcomes[a] }

// ClaimMethods lists the claim methods a drop can have (its Method).
func ClaimMethods() []ClaimMethod {
	return []ClaimMethod{ClaimAuto, ClaimLink, ClaimMint, ClaimWebsite, ClaimDelivery}
}

// Platforms lists the platforms the bot serves.
func Platforms() []Platform { return []Platform{Discord, Telegram, Console} }

// platformKey is the context key of the platform whose member the work is
// for.
type platformKey struct{}

// withPlatform returns ctx carrying the platform of the member the work
// done under it is for, for the counts of what that work records.
func withPlatform(ctx context.Context, p Platform) context.Context {
	return context.WithValue(ctx, platformKey{}, p)
}

// platformOf is the platform ctx carries, or "" for work done for no
// member (a reconciliation).
func platformOf(ctx context.Context) Platform {
	p, _ := ctx.Value(platformKey{}).(Platform)
	return p
}
