-- 0008_gates (SQLite): the gates of roles and groups, the grants the bot
-- made through them, and the join requests left pending.
-- Times are TIMESTAMP text in UTC, as in 0001_init.

-- A tenant's rule giving a role or a group to the members whose verified
-- wallets hold POAPs of its drops. drops is a JSON array of the drops,
-- [{"id": 1, "name": "..."}], in the gate's order; mode is how moderators
-- type it (any, all, atleast:N). paused, when not empty, says why the bot
-- stopped enforcing the gate; paused_at is set exactly then.
CREATE TABLE gates (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id   INTEGER NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    target_id   TEXT NOT NULL CHECK (target_id <> ''),
    target_name TEXT NOT NULL DEFAULT '',
    target_kind TEXT NOT NULL CHECK (target_kind IN ('role', 'group')),
    invite_link TEXT NOT NULL DEFAULT '',
    drops       TEXT NOT NULL,
    mode        TEXT NOT NULL CHECK (mode <> ''),
    channel     TEXT NOT NULL DEFAULT '',
    created_by  INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    paused      TEXT NOT NULL DEFAULT '',
    paused_at   TIMESTAMP,
    synced_at   TIMESTAMP,
    -- A tenant gates a role or a group once.
    UNIQUE (tenant_id, target_id),
    CHECK ((paused = '') = (paused_at IS NULL))
);

-- Forgetting a member clears created_by.
CREATE INDEX gates_created_by ON gates (created_by) WHERE created_by IS NOT NULL;

-- That the bot gave a gate's target to a member: the only thing it may
-- take back. The primary key is what makes a second claim of the same
-- grant (another replica handling the same event) lose. member is the
-- member's platform id; wallets a JSON array of the addresses that
-- qualified.
CREATE TABLE gate_grants (
    gate_id    INTEGER NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    member     TEXT NOT NULL CHECK (member <> ''),
    wallets    TEXT NOT NULL DEFAULT '[]',
    reason     TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL CHECK (state IN ('pending', 'active', 'withdrawn')),
    granted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (gate_id, user_id)
);

-- A member's grants (forgetting them).
CREATE INDEX gate_grants_user ON gate_grants (user_id);

-- A request to join a gated group, pending while the member links and
-- verifies a wallet.
CREATE TABLE gate_join_requests (
    gate_id      INTEGER NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    member       TEXT NOT NULL CHECK (member <> ''),
    requested_at TIMESTAMP NOT NULL,
    PRIMARY KEY (gate_id, user_id)
);

-- A member's pending requests (their /verify, forgetting them).
CREATE INDEX gate_join_requests_user ON gate_join_requests (user_id);

-- The members the bot has seen in a place: in the server when a gate
-- checked them, joining it, asking to join the group. The schedule sweeps
-- these (and the members it granted), not every verified member of the
-- platform: a bot in many servers does not ask each server about every
-- member of the others.
CREATE TABLE place_members (
    tenant_id INTEGER NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seen_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

-- A member's places (forgetting them).
CREATE INDEX place_members_user ON place_members (user_id);
