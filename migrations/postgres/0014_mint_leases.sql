-- 0014_mint_leases (PostgreSQL): who holds a mint in flight, and which
-- attempt an outcome is for.
--
-- mint_attempt numbers the mints begun on a link: BeginMint adds one, so
-- each attempt (handed_out -> minting) has its own number, and an outcome
-- is recorded for an attempt, never for whichever one the link is at.
--
-- mint_lease_until, set by BeginMint, is until when the process that sent
-- the attempt may still be waiting for its answer or reading its status
-- (core.MintLease after the start: the mint request is bounded by a
-- deadline and the bookkeeping after it by another, both shorter). While it
-- lasts, the reconciler and a member's next claim leave the link alone (the
-- latter may only confirm the mint). FinishMint clears it; a sender that
-- could not tell the outcome ends it at once, leaving the link to the
-- reconciler. NULL on a minting link means one begun before this column:
-- its lease is reckoned from updated_at.
--
-- The sender's outcome wins: after the reconciler read a link unclaimed
-- (the mint had not landed yet) and recorded it handed_out, the sender's
-- minted (or claimed elsewhere) for the same attempt is still accepted, as
-- long as no later attempt was begun: the transitions
--   handed_out -> minted, handed_out -> claimed_elsewhere
-- are allowed to the sender of the link's latest attempt only.
ALTER TABLE mint_links ADD COLUMN mint_attempt INTEGER NOT NULL DEFAULT 0
    CHECK (mint_attempt >= 0);
ALTER TABLE mint_links ADD COLUMN mint_lease_until TIMESTAMPTZ;

-- A link left minting by the program before this one was begun once: it
-- is that attempt, numbered 1, so that its sender (if it still runs, it
-- records nothing by attempt) or the reconciler, once its lease reckoned
-- from updated_at runs out, can settle it.
UPDATE mint_links SET mint_attempt = 1 WHERE state = 'minting';
