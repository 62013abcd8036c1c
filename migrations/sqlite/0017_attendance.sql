-- 0017_attendance (SQLite): attendance in Discord voice and stage channels
-- (rehearsed on the console). A session counts who is in one channel for
-- one drop; the intervals each member spent there (not deafened) are
-- stored as they happen, so a restart loses nothing; at the stop each
-- member's merged time is compared with the minimum and the results are
-- kept, for the claim check, /attendance list and export.

-- A session. channel_id is the platform's id of the voice or stage
-- channel, summary_channel_id the channel /attendance start ran in (where
-- the summary goes); scheduled_event_id the Discord scheduled event the
-- session waits on, if any. min_kind and min_value are the minimum (N
-- minutes, or N percent of the time counted); max_seconds the most the
-- session lasts. state: waiting (for its scheduled event to start), open,
-- closed. last_seen_at is the bot's heartbeat while open: the time after
-- it up to a restart is downtime, never credited, summed in
-- downtime_seconds. required_seconds is the minimum in seconds, set at
-- the stop. stop_reason says who or what stopped it.
CREATE TABLE attendance_sessions (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id          INTEGER NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    drop_id            INTEGER NOT NULL REFERENCES drops (id) ON DELETE CASCADE,
    event_id           INTEGER NOT NULL CHECK (event_id > 0),
    channel_id         TEXT NOT NULL CHECK (channel_id <> '' AND length(channel_id) <= 64),
    channel_name       TEXT NOT NULL DEFAULT '' CHECK (length(channel_name) <= 256),
    summary_channel_id TEXT NOT NULL DEFAULT '' CHECK (length(summary_channel_id) <= 64),
    scheduled_event_id TEXT CHECK (scheduled_event_id <> '' AND length(scheduled_event_id) <= 64),
    min_kind           TEXT NOT NULL CHECK (min_kind IN ('minutes', 'percent')),
    min_value          INTEGER NOT NULL CHECK (min_value > 0),
    max_seconds        INTEGER NOT NULL CHECK (max_seconds > 0),
    state              TEXT NOT NULL CHECK (state IN ('waiting', 'open', 'closed')),
    started_at         TIMESTAMP,
    stopped_at         TIMESTAMP,
    last_seen_at       TIMESTAMP,
    downtime_seconds   INTEGER NOT NULL DEFAULT 0 CHECK (downtime_seconds >= 0),
    required_seconds   INTEGER CHECK (required_seconds >= 0),
    stop_reason        TEXT NOT NULL DEFAULT ''
                       CHECK (stop_reason IN ('', 'moderator', 'max_length', 'event_completed', 'event_canceled')),
    started_by         INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at         TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f+00:00', 'now')),
    CHECK (min_kind <> 'percent' OR min_value <= 100),
    CHECK (state <> 'waiting' OR (scheduled_event_id IS NOT NULL AND started_at IS NULL AND stopped_at IS NULL)),
    CHECK (state <> 'open' OR (started_at IS NOT NULL AND stopped_at IS NULL AND last_seen_at IS NOT NULL)),
    CHECK (state <> 'closed' OR stopped_at IS NOT NULL),
    CHECK (started_at IS NULL OR stopped_at IS NULL OR started_at <= stopped_at)
);

-- One open session per channel.
CREATE UNIQUE INDEX attendance_sessions_open_channel ON attendance_sessions (tenant_id, channel_id) WHERE state = 'open';

-- One session waiting on or counting a scheduled event.
CREATE UNIQUE INDEX attendance_sessions_live_event ON attendance_sessions (tenant_id, scheduled_event_id)
    WHERE state <> 'closed' AND scheduled_event_id IS NOT NULL;

-- The open sessions (voice states, heartbeats, the maximum length).
CREATE INDEX attendance_sessions_state ON attendance_sessions (state, tenant_id) WHERE state <> 'closed';

-- A drop's sessions (the claim check).
CREATE INDEX attendance_sessions_drop ON attendance_sessions (drop_id);

-- Forgetting a member clears started_by.
CREATE INDEX attendance_sessions_started_by ON attendance_sessions (started_by) WHERE started_by IS NOT NULL;

-- A stretch a member spent in the session's channel, not deafened;
-- left_at is NULL while it lasts.
CREATE TABLE attendance_intervals (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES attendance_sessions (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    joined_at  TIMESTAMP NOT NULL,
    left_at    TIMESTAMP,
    CHECK (left_at IS NULL OR left_at >= joined_at)
);

-- One open stretch per member and session.
CREATE UNIQUE INDEX attendance_intervals_open ON attendance_intervals (session_id, user_id) WHERE left_at IS NULL;

-- A session's stretches, by member.
CREATE INDEX attendance_intervals_session ON attendance_intervals (session_id, user_id, joined_at);

-- Forgetting a member deletes theirs.
CREATE INDEX attendance_intervals_user ON attendance_intervals (user_id);

-- A member who left the server while a session they attended was open:
-- not eligible at its stop.
CREATE TABLE attendance_departures (
    session_id INTEGER NOT NULL REFERENCES attendance_sessions (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    left_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (session_id, user_id)
);

CREATE INDEX attendance_departures_user ON attendance_departures (user_id);

-- A member's result at the stop: the seconds credited (merged, clipped to
-- the session, capped at its length), whether they met the minimum and
-- are eligible for the drop, and whether they had left the server.
CREATE TABLE attendance_results (
    session_id  INTEGER NOT NULL REFERENCES attendance_sessions (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seconds     INTEGER NOT NULL CHECK (seconds >= 0),
    eligible    BOOLEAN NOT NULL CHECK (eligible IN (0, 1)),
    left_server BOOLEAN NOT NULL DEFAULT FALSE CHECK (left_server IN (0, 1)),
    PRIMARY KEY (session_id, user_id),
    CHECK (NOT (eligible AND left_server))
);

-- A member's results (the claim check, forgetting them).
CREATE INDEX attendance_results_user ON attendance_results (user_id);
