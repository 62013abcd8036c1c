-- 0012_buttons (PostgreSQL): the actions of the bot's buttons and deep
-- links (core.ButtonAction). A button carries only an action's id (in
-- Telegram's callback data or /start payload, Discord's custom_id); the
-- command line it runs, the place it was made in and the member it was
-- made for stay here, so that a forged button names at most an action the
-- bot made, and only where and for whom it was made.

-- id is random (26 characters of base32). member is '' for a button anyone
-- in the place may press (a claim message's). One row per platform,
-- place, member and line: a message edited again and again keeps one
-- button. expires_at is NULL for a button that never expires (a claim
-- message's); the others are deleted some time after it.
CREATE TABLE buttons (
    id         TEXT        PRIMARY KEY,
    platform   TEXT        NOT NULL,
    place      TEXT        NOT NULL,
    member     TEXT        NOT NULL DEFAULT '',
    line       TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ,
    UNIQUE (platform, place, member, line),
    CHECK (length(id) = 26 AND place <> '' AND line <> '')
);

-- Deleting the expired ones.
CREATE INDEX buttons_expires ON buttons (expires_at) WHERE expires_at IS NOT NULL;

-- /forget deletes a member's buttons (their lines may name a wallet).
CREATE INDEX buttons_member ON buttons (platform, member) WHERE member <> '';
