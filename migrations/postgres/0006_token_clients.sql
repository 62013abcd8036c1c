-- 0006_token_clients (PostgreSQL): access tokens keyed by whom they belong
-- to, and the budget counted per client.

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
    token      BYTEA NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (service, client_id, audience)
);

-- The token service bans a client, not an audience: issues are counted per
-- client across audiences. Issues recorded before this migration have ''
-- for both (whose they were is unknown) and count against every client
-- until they leave the hour.
ALTER TABLE token_issues ADD COLUMN service TEXT NOT NULL DEFAULT '';
ALTER TABLE token_issues ADD COLUMN client_id TEXT NOT NULL DEFAULT '';
ALTER TABLE token_issues ALTER COLUMN service DROP DEFAULT;
ALTER TABLE token_issues ALTER COLUMN client_id DROP DEFAULT;
ALTER TABLE token_issues ADD CONSTRAINT token_issues_client_known CHECK ((service = '') = (client_id = ''));

DROP INDEX token_issues_audience_issued;
CREATE INDEX token_issues_client_issued ON token_issues (service, client_id, issued_at);
