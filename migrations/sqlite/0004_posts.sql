-- 0004_posts (SQLite): the claim messages /distribute published, kept
-- current with the number of links left.
-- Times are TIMESTAMP text in UTC, as in 0001_init.

-- A message the bot published for a drop in a channel. place is the
-- tenant's platform id; channel and message the platform's ids of the
-- message. intro is the text above the count line (the moderator's words
-- or the default). last_available is the count of available links the
-- message shows; NULL until the first update, so a claim made between
-- rendering and recording the message is never missed.
CREATE TABLE posts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    drop_id        INTEGER NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    platform       TEXT NOT NULL CHECK (platform <> ''),
    place          TEXT NOT NULL CHECK (place <> ''),
    channel        TEXT NOT NULL CHECK (channel <> ''),
    message        TEXT NOT NULL CHECK (message <> ''),
    subject        TEXT NOT NULL CHECK (subject <> ''),
    intro          TEXT NOT NULL DEFAULT '',
    last_available INTEGER CHECK (last_available >= 0),
    created_at     TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    updated_at     TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    UNIQUE (platform, channel, message)
);

-- The posts of a drop (the cascade, the updates).
CREATE INDEX posts_drop ON posts (drop_id);
