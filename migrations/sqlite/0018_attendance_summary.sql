-- 0018_attendance_summary (SQLite): the summary of a session that
-- stopped by itself (its scheduled event ended, its maximum length) is
-- told by one process at a time, and later when the process died before
-- it was out or could not tell it. summary_posted_at is when it was out
-- (published, or told as a notice); NULL while it is owed.
-- summary_lease_until is how long it is held: by the process that took it
-- on (summary_lease_token names that claim), or, after a failed try, as a
-- back-off before the next; another process takes it only after.
-- summary_attempts counts the tries: past a bound it is given up.
-- Sessions closed before this migration had their summary told already.
ALTER TABLE attendance_sessions ADD COLUMN summary_posted_at TIMESTAMP;
ALTER TABLE attendance_sessions ADD COLUMN summary_lease_until TIMESTAMP;
ALTER TABLE attendance_sessions ADD COLUMN summary_lease_token TEXT;
ALTER TABLE attendance_sessions ADD COLUMN summary_attempts INTEGER NOT NULL DEFAULT 0 CHECK (summary_attempts >= 0);
UPDATE attendance_sessions SET summary_posted_at = stopped_at WHERE state = 'closed';

-- The summaries owed.
CREATE INDEX attendance_sessions_summary_owed ON attendance_sessions (stopped_at)
    WHERE state = 'closed' AND summary_posted_at IS NULL;
