-- 0018_attendance_summary (PostgreSQL): the summary of a session that
-- stopped by itself (its scheduled event ended, its maximum length) is
-- posted by one process, and at the next start when the process died
-- before it was out. summary_posted_at is when it was out (published, or told as a
-- notice); NULL while it is owed. summary_lease_until is how long the
-- process that took it on holds it: another takes it over only after.
-- Sessions closed before this migration had their summary told already.
ALTER TABLE attendance_sessions ADD COLUMN summary_posted_at TIMESTAMPTZ;
ALTER TABLE attendance_sessions ADD COLUMN summary_lease_until TIMESTAMPTZ;
UPDATE attendance_sessions SET summary_posted_at = stopped_at WHERE state = 'closed';

-- The summaries owed.
CREATE INDEX attendance_sessions_summary_owed ON attendance_sessions (stopped_at)
    WHERE state = 'closed' AND summary_posted_at IS NULL;
