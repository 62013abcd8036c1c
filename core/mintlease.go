package core

import "time"

// mintTimeout bounds the issuer's Mint call, so that no mint request can
// outlast the lease below, however the issuing client is configured. At
// its defaults the poap client takes at most, for one mint: the status
// read that comes first, 4 attempts (poap.DefaultMaxAttempts) of 10 s each
// (poap.DefaultTimeout) with backoff waits of at most 0.2 + 0.4 + 0.8 s
// between them, then the mint itself, one attempt of 10 s (a mint is never
// retried), so 51.4 s of requests; an access token costs one more request
// of 10 s (poap/auth's timeout) when none is cached. The fair limiter's
// wait before each attempt (the poap client's limiter) and a Retry-After of up to 30 s
// have no bound of their own but the caller's deadline: the client gives
// up a retry whose wait would outlast it. A minute covers the requests
// themselves with queueing to spare; past it the mint is in doubt and its
// status is read, as after any timeout. A member's command is bounded
// sooner anyway (30 s by default).
const mintTimeout = time.Minute

// leaseMargin is added to the lease for what the bounds above do not
// cover: clocks of replicas that disagree (the lease is written with the
// sender's clock and read with the reconciler's) and a process stalled by
// its host for a while.
const leaseMargin = time.Minute

// MintLease is how long the process that begins a mint holds it
// (BeginMint records the lease with the attempt): the mint request
// (mintTimeout) and the bookkeeping after it, a status read and the
// outcome's record (settleTimeout), plus leaseMargin. While it lasts,
// neither the reconciler nor the member's next claim settles the mint, and
// nothing is sent again; the sender ends it early once it has recorded the
// outcome, or could not tell it.
//
// The lease is not renewed while the request runs: both parts are bounded
// by deadlines taken from the same clock as the lease, so the sender is
// done with it before it runs out, and a renewal would need a second
// writer per mint and a timer, for nothing. Should a sender outlive its
// lease all the same (a process frozen past the margin), its outcome still
// wins: FinishMint accepts minted for its attempt after a reconciler
// recorded the link handed out, unless a later attempt began.
const MintLease = mintTimeout + settleTimeout + leaseMargin
