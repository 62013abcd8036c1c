-- 0015_gate_join_declines (SQLite): the join requests the bot declined,
-- kept 30 days so that /why can explain them to the member, who asks
-- exactly then. The schedule deletes older ones; forgetting the member or
-- removing the gate deletes theirs.

-- One row per member and gate: a later decline replaces an earlier one.
-- reason is why (missing: the verified wallets lacked the drops; expired:
-- no verified wallet in time); missing is a JSON array of the drops then
-- lacking, [{"id": 1, "name": "..."}], in the gate's order.
CREATE TABLE gate_join_declines (
    gate_id      INTEGER NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    member       TEXT NOT NULL CHECK (member <> ''),
    reason       TEXT NOT NULL CHECK (reason IN ('missing', 'expired')),
    missing      TEXT NOT NULL DEFAULT '[]',
    requested_at TIMESTAMP NOT NULL,
    declined_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (gate_id, user_id)
);

-- A member's declines (/why, forgetting them).
CREATE INDEX gate_join_declines_user ON gate_join_declines (user_id);

-- The schedule's deletion of old declines.
CREATE INDEX gate_join_declines_declined_at ON gate_join_declines (declined_at);
