-- 0011_distribution (SQLite): the issuing service's other distribution
-- methods, brought to the chat: website claims and deliveries, and the
-- network a drop mints on. See the PostgreSQL file for the meaning of each
-- column. Times are TIMESTAMP text in UTC, as in 0001_init.

ALTER TABLE drops ADD COLUMN method TEXT NOT NULL DEFAULT 'links'
    CHECK (method IN ('links', 'website', 'delivery'));
ALTER TABLE drops ADD COLUMN website TEXT NOT NULL DEFAULT ''
    CHECK (method <> 'website' OR website <> '');
ALTER TABLE drops ADD COLUMN website_requested_at TIMESTAMP;
ALTER TABLE drops ADD COLUMN chain_id INTEGER CHECK (chain_id > 0);

CREATE TABLE website_claims (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    drop_id        INTEGER NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    user_id        INTEGER REFERENCES users (id) ON DELETE SET NULL,
    wallet         TEXT NOT NULL CHECK (wallet <> ''),
    state          TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'minted', 'refused')),
    reason         TEXT NOT NULL DEFAULT '',
    sent           BOOLEAN NOT NULL DEFAULT FALSE CHECK (sent IN (0, 1)),
    tries          INTEGER NOT NULL DEFAULT 0 CHECK (tries >= 0),
    due_at         TIMESTAMP NOT NULL,
    qr_hash        TEXT NOT NULL DEFAULT '',
    transaction_id TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL,
    UNIQUE (drop_id, user_id),
    CHECK ((state = 'refused') = (reason <> ''))
);

CREATE UNIQUE INDEX website_claims_drop_wallet ON website_claims (drop_id, lower(wallet));
CREATE INDEX website_claims_due ON website_claims (due_at, id) WHERE state IN ('queued', 'sending');
CREATE INDEX website_claims_user ON website_claims (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    drop_id     INTEGER NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    source      TEXT NOT NULL DEFAULT '',
    slug        TEXT NOT NULL CHECK (slug <> ''),
    card_title  TEXT NOT NULL DEFAULT '',
    card_text   TEXT NOT NULL DEFAULT '',
    page_title  TEXT NOT NULL DEFAULT '',
    page_text   TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL CHECK (state IN ('draft', 'created')),
    service_id  INTEGER CHECK (service_id > 0),
    created_by  INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    CHECK ((state = 'created') = (service_id IS NOT NULL))
);

CREATE UNIQUE INDEX deliveries_drop_created ON deliveries (drop_id) WHERE state = 'created';
CREATE INDEX deliveries_created_by ON deliveries (created_by) WHERE created_by IS NOT NULL;

CREATE TABLE delivery_addresses (
    delivery_id INTEGER NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    address     TEXT NOT NULL CHECK (address <> ''),
    user_id     INTEGER REFERENCES users (id) ON DELETE SET NULL,
    state       TEXT NOT NULL DEFAULT 'listed' CHECK (state IN ('listed', 'claiming', 'claimed')),
    sent        BOOLEAN NOT NULL DEFAULT FALSE CHECK (sent IN (0, 1)),
    queue_uid   TEXT NOT NULL DEFAULT '',
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (delivery_id, address)
);

CREATE UNIQUE INDEX delivery_addresses_user ON delivery_addresses (delivery_id, user_id);
CREATE INDEX delivery_addresses_user_id ON delivery_addresses (user_id) WHERE user_id IS NOT NULL;
