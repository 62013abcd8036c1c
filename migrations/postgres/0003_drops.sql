-- 0003_drops (PostgreSQL): POAP drops registered in a tenant and their mint
-- links, with the rules that make a claim safe under any concurrency:
-- one link per member per drop, one POAP per wallet per drop, and a link
-- live in one drop at a time.

-- A POAP drop registered in a tenant. event_id is the issuing service's
-- drop id. edit_code is the drop's secret code, encrypted by the
-- application (AES-GCM, "drop_edit_code:<tenant>:<event>" as associated
-- data). A removed drop keeps its row, for the export and the audit;
-- the event can then be added to the tenant again.
CREATE TABLE drops (
    id                    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id             BIGINT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    event_id              BIGINT NOT NULL CHECK (event_id > 0),
    name                  TEXT NOT NULL DEFAULT '',
    image_url             TEXT NOT NULL DEFAULT '',
    edit_code             BYTEA NOT NULL,
    delivery              TEXT NOT NULL CHECK (delivery IN ('auto', 'link', 'mint')),
    starts                TIMESTAMPTZ,
    ends                  TIMESTAMPTZ,
    codeword              TEXT NOT NULL DEFAULT '',
    required_role         TEXT NOT NULL DEFAULT '',
    expires_at            TIMESTAMPTZ,
    low_stock             INTEGER NOT NULL DEFAULT 0 CHECK (low_stock >= 0),
    low_stock_notified_at TIMESTAMPTZ,
    removed_at            TIMESTAMPTZ,
    created_by            BIGINT REFERENCES users (id) ON DELETE SET NULL,
    created_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (starts IS NULL OR ends IS NULL OR starts < ends)
);

-- A tenant has an event once, until the drop is removed.
CREATE UNIQUE INDEX drops_tenant_event ON drops (tenant_id, event_id) WHERE removed_at IS NULL;

-- Forgetting a member clears created_by.
CREATE INDEX drops_created_by ON drops (created_by) WHERE created_by IS NOT NULL;

-- One mint link of a drop and where it is in its life:
--   available -> handed_out -> minting -> minted
--                              minting -> handed_out (the mint failed before
--                                         reaching the service)
--                              minting -> claimed_elsewhere
--   available -> claimed_elsewhere (the service says it was used)
-- A link that left available never returns to it. user_id is the member it
-- was handed to; when the member is forgotten it becomes NULL and the link
-- keeps its state, so it is never handed to anyone else. A mint that finds
-- the link claimed elsewhere clears user_id and wallet too: neither got
-- anything through it, and the member may be given another link. wallet is
-- where a direct mint goes; it stays NULL for a link handed out to be
-- minted on the service's page. claimed_at is when the link left the pool.
CREATE TABLE mint_links (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    drop_id        BIGINT NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    qr_hash        TEXT NOT NULL CHECK (qr_hash <> ''),
    state          TEXT NOT NULL DEFAULT 'available'
                   CHECK (state IN ('available', 'handed_out', 'minting', 'minted', 'claimed_elsewhere')),
    user_id        BIGINT REFERENCES users (id) ON DELETE SET NULL,
    wallet         TEXT CHECK (wallet <> ''),
    transaction_id TEXT CHECK (transaction_id <> ''),
    claimed_at     TIMESTAMPTZ,
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (drop_id, qr_hash),
    -- One link per member per drop (NULLs are distinct).
    UNIQUE (drop_id, user_id),
    CHECK (state <> 'available' OR (user_id IS NULL AND wallet IS NULL AND transaction_id IS NULL)),
    CHECK ((state = 'available') = (claimed_at IS NULL)),
    CHECK (state <> 'minting' OR wallet IS NOT NULL)
);

-- One POAP per wallet per drop. The application stores wallets in canonical
-- (lower) case; lower() keeps the rule if one slips through.
CREATE UNIQUE INDEX mint_links_drop_wallet ON mint_links (drop_id, lower(wallet)) WHERE wallet IS NOT NULL;

-- A qr_hash names one mint link at the service, whatever the drop; it is
-- live (available or used through the bot) in one drop at a time, so two
-- tenants sharing an event, or a drop removed and added again, never hand
-- the same link out twice. The later import stores it as claimed elsewhere.
CREATE UNIQUE INDEX mint_links_live_hash ON mint_links (qr_hash) WHERE state <> 'claimed_elsewhere';

-- The next available link of a drop (the claim) and the available count.
CREATE INDEX mint_links_available ON mint_links (drop_id, id) WHERE state = 'available';

-- Links left minting by a crash, for reconciliation at start-up.
CREATE INDEX mint_links_minting ON mint_links (updated_at, id) WHERE state = 'minting';

-- Forgetting a member clears user_id.
CREATE INDEX mint_links_user ON mint_links (user_id) WHERE user_id IS NOT NULL;
