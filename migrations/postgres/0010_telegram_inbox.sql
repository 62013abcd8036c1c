-- 0010_telegram_inbox (PostgreSQL): the durable inbox of Telegram updates
-- (core.Inbox). An update is stored here before Telegram is told it
-- arrived, and handled from here, so that none is lost when a process dies
-- and none is handled twice when it is delivered twice, to one replica or
-- to several. It replaces telegram_updates (0007), which only remembered
-- the updates taken.

-- One row per (bot, update), from its arrival until InboxRetention (48
-- hours) after it was handled. The primary key drops a redelivery: it is
-- inserted with ON CONFLICT DO NOTHING, handled or not. member is the
-- Telegram user whose update it is, which keeps one member's updates in
-- order, 0 when it has none. body is the update's JSON as Telegram sent
-- it, kept as bytes (BYTEA, not TEXT or JSONB): the inbox must store what
-- arrived whatever it holds, a TEXT column would refuse a body that is not
-- valid UTF-8 (losing the update), and JSONB would parse and rewrite it
-- for no use, since only the bot reads it. body is NULL once the update is
-- handled: only its id is still needed. received_at is when the bot
-- stored it; done_at when it was handled, NULL while it is pending.
CREATE TABLE telegram_inbox (
    bot_id      BIGINT      NOT NULL,
    update_id   BIGINT      NOT NULL,
    member      BIGINT      NOT NULL DEFAULT 0,
    body        BYTEA,
    received_at TIMESTAMPTZ NOT NULL,
    done_at     TIMESTAMPTZ,
    PRIMARY KEY (bot_id, update_id),
    -- A pending update has its body: without it, it could not be handled.
    CHECK (body IS NOT NULL OR done_at IS NOT NULL)
);

-- The pending updates of a bot, in order (PendingUpdates) and counted
-- (InboxBacklog): a few rows among the millions handled and not yet
-- pruned, so the index holds only them. Queries spell its predicate the
-- same, done_at IS NULL.
CREATE INDEX telegram_inbox_pending ON telegram_inbox (bot_id, update_id)
    WHERE done_at IS NULL;

-- Deleting the rows handled before the retention (the bot does now and
-- then). Pending rows are left out: pruning never deletes them, and so
-- storing an update writes one index fewer.
CREATE INDEX telegram_inbox_done ON telegram_inbox (done_at)
    WHERE done_at IS NOT NULL;

-- The updates taken before this upgrade, as handled ones, so that a
-- redelivery of one of them is still dropped; they are pruned with the
-- others, 48 hours after they were taken.
INSERT INTO telegram_inbox (bot_id, update_id, member, body, received_at, done_at)
SELECT bot_id, update_id, 0, NULL, taken_at, taken_at FROM telegram_updates;

DROP TABLE telegram_updates;
