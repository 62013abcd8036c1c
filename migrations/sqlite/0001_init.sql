-- 0001_init (SQLite): tenants, users, their wallets, the audit log, and the
-- issuing service's access token with its issue times.
--
-- SQLite notes:
-- * Ids are INTEGER PRIMARY KEY (the rowid); BIGSERIAL would leave them NULL.
--   AUTOINCREMENT keeps ids of deleted rows from being reused, as Postgres
--   identities are not.
-- * Times are TIMESTAMP text in UTC, 'YYYY-MM-DD HH:MM:SS.fff+00:00', the
--   form the driver writes, so that comparing them as text is comparing times.
-- * Booleans are 0 or 1, checked, because SQLite does not enforce types.
-- * foreign_keys is switched on per connection by the application.

-- A Discord server, a Telegram chat or the console.
CREATE TABLE tenants (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    platform    TEXT NOT NULL CHECK (platform IN ('discord', 'telegram', 'console')),
    external_id TEXT NOT NULL CHECK (external_id <> ''),
    name        TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    UNIQUE (platform, external_id)
);

-- A member of a platform, known by the platform's own user id.
CREATE TABLE users (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    platform    TEXT NOT NULL CHECK (platform IN ('discord', 'telegram', 'console')),
    external_id TEXT NOT NULL CHECK (external_id <> ''),
    name        TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    updated_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
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
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     INTEGER NOT NULL,
    platform    TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('address', 'ens', 'email')),
    value       TEXT NOT NULL CHECK (value <> ''),
    address     TEXT CHECK (
        length(address) = 42
        AND substr(address, 1, 2) = '0x'
        AND substr(address, 3) NOT GLOB '*[^0-9a-f]*'
    ),
    verified_at TIMESTAMP,
    is_primary  BOOLEAN NOT NULL DEFAULT FALSE CHECK (is_primary IN (0, 1)),
    created_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
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
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id  INTEGER REFERENCES tenants (id) ON DELETE SET NULL,
    user_id    INTEGER REFERENCES users (id) ON DELETE SET NULL,
    action     TEXT NOT NULL CHECK (action <> ''),
    detail     TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now'))
);

CREATE INDEX audit_log_tenant_created ON audit_log (tenant_id, created_at);

-- The issuing service's current access token per audience, encrypted by
-- the application (AES-GCM, the audience as associated data).
CREATE TABLE service_tokens (
    audience   TEXT NOT NULL PRIMARY KEY CHECK (audience <> ''),
    token      BLOB NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now'))
);

-- When tokens were issued: the service bans more than 4 requests an hour,
-- across restarts and replicas, so the rolling window is counted here.
CREATE TABLE token_issues (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    audience  TEXT NOT NULL CHECK (audience <> ''),
    issued_at TIMESTAMP NOT NULL
);

CREATE INDEX token_issues_audience_issued ON token_issues (audience, issued_at);
