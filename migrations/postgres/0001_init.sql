-- 0001_init (PostgreSQL): tenants, users, their wallets, the audit log, and
-- the issuing service's access token with its issue times.
-- Times are TIMESTAMPTZ and written in UTC by the application.

-- A Discord server, a Telegram chat or the console.
CREATE TABLE tenants (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform    TEXT NOT NULL CHECK (platform IN ('discord', 'telegram', 'console')),
    external_id TEXT NOT NULL CHECK (external_id <> ''),
    name        TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (platform, external_id)
);

-- A member of a platform, known by the platform's own user id.
CREATE TABLE users (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform    TEXT NOT NULL CHECK (platform IN ('discord', 'telegram', 'console')),
    external_id TEXT NOT NULL CHECK (external_id <> ''),
    name        TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (platform, external_id),
    -- Target of the wallets foreign key, which keeps wallets.platform equal
    -- to the owner's platform.
    UNIQUE (id, platform)
);

-- Lookups by display name ("/poaps member:alice") are case-insensitive.
CREATE INDEX users_platform_lower_name ON users (platform, lower(name));

-- A wallet identifier linked to a user. value is canonical (lower case);
-- address is the 0x address proven by signature, set exactly when
-- verified_at is. platform repeats the owner's platform so that one index
-- can say a verified address belongs to one member per platform.
CREATE TABLE wallets (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     BIGINT NOT NULL,
    platform    TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('address', 'ens', 'email')),
    value       TEXT NOT NULL CHECK (value <> ''),
    address     TEXT CHECK (address ~ '^0x[0-9a-f]{40}$'),
    verified_at TIMESTAMPTZ,
    is_primary  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    FOREIGN KEY (user_id, platform) REFERENCES users (id, platform) ON DELETE CASCADE,
    UNIQUE (user_id, value),
    CHECK ((address IS NULL) = (verified_at IS NULL))
);

-- At most one primary wallet per user.
CREATE UNIQUE INDEX wallets_one_primary ON wallets (user_id) WHERE is_primary;

-- A verified address belongs to one member per platform.
CREATE UNIQUE INDEX wallets_verified_address ON wallets (platform, address)
    WHERE verified_at IS NOT NULL;

-- Who did what, where and when. Rows outlive the tenant or user they name.
CREATE TABLE audit_log (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id  BIGINT REFERENCES tenants (id) ON DELETE SET NULL,
    user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    action     TEXT NOT NULL CHECK (action <> ''),
    detail     TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX audit_log_tenant_created ON audit_log (tenant_id, created_at);

-- The issuing service's current access token per audience, encrypted by
-- the application (AES-GCM, the audience as associated data).
CREATE TABLE service_tokens (
    audience   TEXT PRIMARY KEY CHECK (audience <> ''),
    token      BYTEA NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- When tokens were issued: the service bans more than 4 requests an hour,
-- across restarts and replicas, so the rolling window is counted here.
CREATE TABLE token_issues (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    audience  TEXT NOT NULL CHECK (audience <> ''),
    issued_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX token_issues_audience_issued ON token_issues (audience, issued_at);
