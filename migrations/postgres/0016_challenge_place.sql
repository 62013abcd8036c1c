-- 0016_challenge_place (PostgreSQL): the name of the community (Discord server,
-- Telegram group) a challenge was made in with /link, which the
-- verification page shows as who asks; empty for a private chat and for
-- challenges made before this column, which show none.
ALTER TABLE challenges ADD COLUMN place TEXT NOT NULL DEFAULT ''
    CHECK (char_length(place) <= 256);
