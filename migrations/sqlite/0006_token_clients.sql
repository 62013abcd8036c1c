-- 0006_token_clients (SQLite): access tokens keyed by whom they belong to,
-- and the budget counted per client.

-- Tokens were keyed by audience alone, so a token of another token service
-- or client (a -sandbox run) replaced the real one. A token is now the
-- client's (the token service's address and the client id) for an
-- audience. The stored tokens cannot be told apart, so they go: each
-- client requests a new one when it next needs it, within the budget.
DROP TABLE service_tokens;

CREATE TABLE service_tokens (
    service    TEXT NOT NULL CHECK (service <> ''),
    client_id  TEXT NOT NULL CHECK (client_id <> ''),
    audience   TEXT NOT NULL CHECK (audience <> ''),
    token      BLOB NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    PRIMARY KEY (service, client_id, audience)
);

-- The token service bans a client, not an audience: issues are counted per
-- client across audiences. Issues recorded before this migration have ''
-- for both (whose they were is unknown) and count against every client
-- until they leave the hour. SQLite adds no CHECK to a table: it is
-- rebuilt.
CREATE TABLE token_issues_new (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    service   TEXT NOT NULL,
    client_id TEXT NOT NULL,
    audience  TEXT NOT NULL CHECK (audience <> ''),
    issued_at TIMESTAMP NOT NULL,
    CHECK ((service = '') = (client_id = ''))
);

INSERT INTO token_issues_new (id, service, client_id, audience, issued_at)
    SELECT id, '', '', audience, issued_at FROM token_issues;

DROP TABLE token_issues;
ALTER TABLE token_issues_new RENAME TO token_issues;

CREATE INDEX token_issues_client_issued ON token_issues (service, client_id, issued_at);
