-- 0007_telegram_updates (SQLite): the webhook updates a bot took, so that an
-- update Telegram delivers again is handled once.

-- One row per (bot, update): the primary key is what makes a second take of
-- the same update lose. Rows older than 48 hours (Telegram redelivers for
-- 24) are deleted by the bot now and then.
CREATE TABLE telegram_updates (
    bot_id    INTEGER   NOT NULL,
    update_id INTEGER   NOT NULL,
    taken_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (bot_id, update_id)
);

CREATE INDEX telegram_updates_taken ON telegram_updates (taken_at);
