-- 0002_challenges (SQLite): ownership challenges of linked wallets.
-- Times are TIMESTAMP text in UTC, as in 0001_init.

-- Target of the challenges foreign key that binds a challenge's wallet to
-- the challenge's user.
CREATE UNIQUE INDEX wallets_id_user ON wallets (id, user_id);

-- A pending or finished proof of wallet ownership. The member signs message
-- (EIP-191 personal_sign); nonce is random, single-use (used_at), and bound
-- to the member, the platform and the wallet by the foreign keys. address
-- is the 0x address the signature must recover to; NULL for an ENS name,
-- whose address is the one that signs.
CREATE TABLE challenges (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL,
    platform   TEXT NOT NULL,
    wallet_id  INTEGER NOT NULL,
    nonce      TEXT NOT NULL UNIQUE CHECK (
        length(nonce) BETWEEN 32 AND 128 AND nonce NOT GLOB '*[^0-9a-f]*'
    ),
    message    TEXT NOT NULL CHECK (message <> ''),
    address    TEXT CHECK (
        length(address) = 42
        AND substr(address, 1, 2) = '0x'
        AND substr(address, 3) NOT GLOB '*[^0-9a-f]*'
    ),
    issued_at  TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at    TIMESTAMP,
    FOREIGN KEY (user_id, platform) REFERENCES users (id, platform) ON DELETE CASCADE,
    FOREIGN KEY (wallet_id, user_id) REFERENCES wallets (id, user_id) ON DELETE CASCADE,
    CHECK (expires_at > issued_at),
    CHECK (used_at IS NULL OR used_at >= issued_at)
);

-- A member's challenges, newest first (/verify reads the latest).
CREATE INDEX challenges_user_issued ON challenges (user_id, issued_at DESC, id DESC);

-- A member's pending challenges.
CREATE INDEX challenges_user_pending ON challenges (user_id, expires_at) WHERE used_at IS NULL;

-- Deleting a wallet deletes its challenges.
CREATE INDEX challenges_wallet ON challenges (wallet_id, user_id);

-- Audit entries of a member, for forgetting them.
CREATE INDEX audit_log_user ON audit_log (user_id);
