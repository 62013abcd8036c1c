-- 0011_distribution (PostgreSQL): the issuing service's other distribution
-- methods, brought to the chat: website claims and deliveries, and the
-- network a drop mints on.

-- method is how members of the place get the drop: 'links' (its mint
-- links, handed out or minted as delivery says), 'website' (minted through
-- the drop's website claim, named by website) or 'delivery' (minted through
-- the drop's delivery, a fixed list of addresses). delivery keeps its
-- meaning for mint links. website_requested_at is when the bot asked the
-- service for the website claim named website (NULL when the moderator
-- brought a website the drop had). chain_id is the network the drop mints
-- on, as last read or set (NULL: not read yet).
ALTER TABLE drops ADD COLUMN method TEXT NOT NULL DEFAULT 'links'
    CHECK (method IN ('links', 'website', 'delivery'));
ALTER TABLE drops ADD COLUMN website TEXT NOT NULL DEFAULT '';
ALTER TABLE drops ADD COLUMN website_requested_at TIMESTAMPTZ;
ALTER TABLE drops ADD COLUMN chain_id BIGINT CHECK (chain_id > 0);
ALTER TABLE drops ADD CONSTRAINT drops_website_named CHECK (method <> 'website' OR website <> '');

-- A member's mint through a drop's website claim, queued because the
-- service's endpoint is rate limited:
--   queued -> sending -> minted
--                        refused (reason says why; a new /claim queues it again)
--             sending -> queued (the service asked to slow down; not processed)
-- sent is true once a request for it may have reached the service: a row
-- taken again while sent is settled (does the wallet hold the drop?) before
-- anything is sent again. due_at is when a queued row is due, and when a
-- sending row's lease ends (a dispatcher that died leaves it to the next).
-- One per member per drop, one per wallet per drop. Forgetting a member
-- clears user_id; the row stays, so the wallet is never minted twice.
CREATE TABLE website_claims (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    drop_id        BIGINT NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    user_id        BIGINT REFERENCES users (id) ON DELETE SET NULL,
    wallet         TEXT NOT NULL CHECK (wallet <> ''),
    state          TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'minted', 'refused')),
    reason         TEXT NOT NULL DEFAULT '',
    sent           BOOLEAN NOT NULL DEFAULT FALSE,
    tries          INTEGER NOT NULL DEFAULT 0 CHECK (tries >= 0),
    due_at         TIMESTAMPTZ NOT NULL,
    qr_hash        TEXT NOT NULL DEFAULT '',
    transaction_id TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (drop_id, user_id),
    CHECK ((state = 'refused') = (reason <> ''))
);

CREATE UNIQUE INDEX website_claims_drop_wallet ON website_claims (drop_id, lower(wallet));

-- The dispatcher's queue: rows due to be sent, or whose lease ran out.
CREATE INDEX website_claims_due ON website_claims (due_at, id) WHERE state IN ('queued', 'sending');

-- Forgetting a member clears user_id.
CREATE INDEX website_claims_user ON website_claims (user_id) WHERE user_id IS NOT NULL;

-- A delivery of a drop built from the members of a role (or a Telegram
-- group): a draft while the moderator looks at its list and confirms,
-- created once the service has it (service_id is its id there; its page is
-- {delivery_url}/<slug>). A drop has one created delivery at most: its
-- list cannot change once created. source names where the list came from
-- (a role id, a group). Forgetting the moderator clears created_by.
CREATE TABLE deliveries (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    drop_id     BIGINT NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    source      TEXT NOT NULL DEFAULT '',
    slug        TEXT NOT NULL CHECK (slug <> ''),
    card_title  TEXT NOT NULL DEFAULT '',
    card_text   TEXT NOT NULL DEFAULT '',
    page_title  TEXT NOT NULL DEFAULT '',
    page_text   TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL CHECK (state IN ('draft', 'created')),
    service_id  BIGINT CHECK (service_id > 0),
    created_by  BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    CHECK ((state = 'created') = (service_id IS NOT NULL))
);

CREATE UNIQUE INDEX deliveries_drop_created ON deliveries (drop_id) WHERE state = 'created';
CREATE INDEX deliveries_created_by ON deliveries (created_by) WHERE created_by IS NOT NULL;

-- An address on a delivery's list, the member's it was taken from, and
-- their claim through the chat: listed -> claiming -> claimed. sent is true
-- once a claim request may have reached the service: the next attempt
-- settles it first. One address per member per delivery, each address once.
CREATE TABLE delivery_addresses (
    delivery_id BIGINT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    address     TEXT NOT NULL CHECK (address <> ''),
    user_id     BIGINT REFERENCES users (id) ON DELETE SET NULL,
    state       TEXT NOT NULL DEFAULT 'listed' CHECK (state IN ('listed', 'claiming', 'claimed')),
    sent        BOOLEAN NOT NULL DEFAULT FALSE,
    queue_uid   TEXT NOT NULL DEFAULT '',
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (delivery_id, address)
);

CREATE UNIQUE INDEX delivery_addresses_user ON delivery_addresses (delivery_id, user_id);
CREATE INDEX delivery_addresses_user_id ON delivery_addresses (user_id) WHERE user_id IS NOT NULL;
