package core

import (
	"context"
	"strconv"
)

// requesterKey is the context key of the requester.
type requesterKey struct{}

// WithRequester returns ctx carrying who the work done under it is for: a
// member (MemberRequester), so that the issuing service's request budget is
// shared out fairly between members (the poap client serves the requesters
// who wait in turn), one member's burst waiting behind the others' requests
// rather than ahead of them.
func WithRequester(ctx context.Context, requester string) context.Context {
	return context.WithValue(ctx, requesterKey{}, requester)
}

// Requester returns the requester ctx carries, or "" for work done for no
// member (sweeps, imports, reconciliations): that work is one requester of
// its own.
func Requester(ctx context.Context) string {
	r, _ := ctx.Value(requesterKey{}).(string)
	return r
}

// MemberRequester names a member as a requester: their platform and their
// platform id.
func MemberRequester(p Platform, externalID string) string {
	return string(p) + ":" + externalID
}

// userRequester names a user as a requester: as MemberRequester when their
// platform id is known, else by their stored id (a member known only by id,
// such as the former holder of a moved wallet).
func userRequester(u User) string {
	if u.ExternalID != "" {
		return MemberRequester(u.Platform, u.ExternalID)
	}
	return string(u.Platform) + "#" + strconv.FormatInt(u.ID, 10)
}
