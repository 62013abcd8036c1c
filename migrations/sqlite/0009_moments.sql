-- 0009_moments (SQLite): the Moments members post from the chat, and
-- whether a place allows them.
-- Times are TIMESTAMP text in UTC, as in 0001_init.

-- Moderators turn Moments off in their place (/moments off); a column of
-- the tenant rather than a table of its own, because it is one flag of the
-- place, read on every post, and goes with the tenant.
ALTER TABLE tenants ADD COLUMN moments_off BOOLEAN NOT NULL DEFAULT FALSE
    CHECK (moments_off IN (0, 1));

-- A member's post of photos and videos to a drop, recorded once its checks
-- passed and kept through its upload, its processing and its publication.
-- member is the member's platform id; request_key the platform's id of the
-- event that carried the request ('' when it had none), which finds a
-- redelivered request; drop_id the POAP event id (the drop need not be one
-- the bot created, hence no foreign key). files is a JSON array of the
-- files, [{"ref": ..., "name": ..., "type": ..., "size": ..., "unavailable":
-- ..., "sniffed": ..., "head_hash": ..., "hash": ..., "bytes": ...,
-- "key": ...}], in the post's order. moment_id is the published Moment's
-- id; error says why a failed post failed. Forgetting a member deletes
-- their posts.
CREATE TABLE moments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id   INTEGER NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    member      TEXT NOT NULL CHECK (member <> ''),
    request_key TEXT NOT NULL,
    drop_id     INTEGER NOT NULL,
    author      TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    channel     TEXT NOT NULL DEFAULT '',
    files       TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('uploading', 'processing', 'creating', 'posted', 'failed')),
    moment_id   TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP   NOT NULL,
    updated_at  TIMESTAMP   NOT NULL
);

-- A request is recorded once per tenant: a redelivered one (another
-- replica taking the same event) loses on this index. Requests without a
-- key are never the same.
CREATE UNIQUE INDEX moments_tenant_request ON moments (tenant_id, request_key)
    WHERE request_key <> '';

-- A member's posts of the last hour, in every place (the rate limit), and
-- forgetting them.
CREATE INDEX moments_user_created ON moments (user_id, created_at);

-- The posts a restart interrupted: few, among many finished ones.
CREATE INDEX moments_unfinished ON moments (created_at, id)
    WHERE state IN ('uploading', 'processing', 'creating');

-- Each file of a post that has not failed, by its member, its drop and
-- head_hash, the SHA-256 of its size and its first 64 KiB: the same file
-- posted again by a member to a drop, in any place, at once or later,
-- loses on the primary key, so that it makes no second Moment. A failed
-- post's files are deleted when it fails, so that it can be posted again.
CREATE TABLE moment_files (
    user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    drop_id   INTEGER NOT NULL,
    head_hash TEXT NOT NULL CHECK (head_hash <> ''),
    post_id   INTEGER NOT NULL REFERENCES moments (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, drop_id, head_hash)
);

-- A post's files, deleted when it fails.
CREATE INDEX moment_files_post ON moment_files (post_id);
