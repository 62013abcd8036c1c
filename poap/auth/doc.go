// Package auth is the poap client's access-token manager. Tokens gets
// access tokens from the POAP token service with the client credentials
// (the OAuth client-credentials grant), keeps them in memory and, through a
// Store (storage.DB), for restarts and other replicas, renews them ahead of
// expiry and when the service refuses one, requests them one at a time
// across every process sharing the store, and never more often than the
// service's budget of 4 an hour allows. Tokens are stored under the client
// they belong to (the token service's address and the client id) and their
// audience, and the budget, like the service's ban, is the client's across
// its audiences: a sandbox's tokens never replace production's, nor spend
// its budget. *Tokens is the poap.TokenSource a poap.Client is built with
// in production.
//
// How an access token is obtained, stored, renewed and attached to a
// request is in three files:
//
//   - poap/auth/tokens.go, the manager: memory, then the store, then the
//     token service; renewal ahead of expiry and after a refusal; the budget;
//     one request at a time (Options and New are in options.go);
//   - poap/auth/oauth.go, the token service call, POST
//     {AuthURL}/oauth/token, and how its answers and failures become
//     errors;
//   - poap/request.go, where the client puts the token in the
//     Authorization header and asks for another after a 401, or after the
//     gateway's 403 for an expired or revoked token (never after any other
//     403: a refused API key must not spend the budget).
//
// The errors are the client's, so that a caller of the client tests them
// against one package: poap.ErrTokenBudget, poap.ErrUnauthorized,
// poap.ErrRateLimited, poap.ErrUnavailable, carried by *poap.APIError when
// the token service answered.
package auth
