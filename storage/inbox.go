package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/poapbot/poapbot/core"
)

var _ core.Inbox = (*DB)(nil)

// prunePeriod spaces the deletions of the updates handled before
// core.InboxRetention.
const prunePeriod = time.Hour

// inboxStatements are the inbox's statements in one dialect. The inbox is
// on the path of every Telegram update, so they go through database/sql,
// with no gorm in between. On PostgreSQL each call is one statement
// whatever the number of updates or ids, and pgx prepares each statement
// once per connection.
type inboxStatements struct {
	// add inserts updates; a stored one is left as it is. On PostgreSQL
	// it takes every update at once, as arrays: $1 bot, $2 ids, $3
	// members, $4 bodies, $5 arrival times. On SQLite it takes one:
	// bot, id, member, body, arrival time.
	add string
	// pending reads the bot's pending updates above an id, lowest id
	// first: bot, id, limit.
	pending string
	// stored reads the bot's updates above an id, pending and handled,
	// lowest id first, leaving out those handled before a time: bot, id,
	// time, limit. It goes along the primary key.
	stored string
	// through reads the highest id stored below the bot's lowest pending
	// update (of all, when none is pending), leaving out the updates
	// handled before a time; 0 when there is none: bot, time.
	through string
	// finish marks the bot's listed updates handled and drops their
	// bodies, leaving the handled ones as they are: time, bot, ids (a
	// bigint[] on PostgreSQL, a JSON array on SQLite, so that no list is
	// too long for SQLite's limit on parameters).
	finish string
	// backlog counts the bot's pending updates: bot.
	backlog string
	// prune deletes the rows handled before a time.
	prune string
}

// The predicate "done_at IS NULL" is the partial index
// telegram_inbox_pending's, spelled the same, so that both dialects use it.
var (
	inboxPostgres = inboxStatements{
		add: `
			INSERT INTO telegram_inbox (bot_id, update_id, member, body, received_at)
			SELECT $1, u.id, u.member, u.body, u.received
			FROM unnest($2::bigint[], $3::bigint[], $4::bytea[], $5::timestamptz[]) AS u (id, member, body, received)
			ON CONFLICT (bot_id, update_id) DO NOTHING`,
		pending: `
			SELECT update_id, member, body, received_at FROM telegram_inbox
			WHERE bot_id = $1 AND done_at IS NULL AND update_id > $2 ORDER BY update_id LIMIT $3`,
		stored: `
			SELECT update_id, member, body, received_at, done_at IS NOT NULL FROM telegram_inbox
			WHERE bot_id = $1 AND update_id > $2 AND (done_at IS NULL OR done_at >= $3) ORDER BY update_id LIMIT $4`,
		through: `
			SELECT COALESCE(max(update_id), 0) FROM telegram_inbox
			WHERE bot_id = $1 AND done_at >= $2 AND update_id < COALESCE(
				(SELECT min(update_id) FROM telegram_inbox WHERE bot_id = $1 AND done_at IS NULL), 9223372036854775807)`,
		finish: `
			UPDATE telegram_inbox SET done_at = $1, body = NULL
			WHERE bot_id = $2 AND update_id = ANY($3) AND done_at IS NULL`,
		backlog: `SELECT count(*) FROM telegram_inbox WHERE bot_id = $1 AND done_at IS NULL`,
		prune:   `DELETE FROM telegram_inbox WHERE done_at < $1`,
	}
	inboxSQLite = inboxStatements{
		add: `
			INSERT INTO telegram_inbox (bot_id, update_id, member, body, received_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (bot_id, update_id) DO NOTHING`,
		pending: `
			SELECT update_id, member, body, received_at FROM telegram_inbox
			WHERE bot_id = ? AND done_at IS NULL AND update_id > ? ORDER BY update_id LIMIT ?`,
		stored: `
			SELECT update_id, member, body, received_at, done_at IS NOT NULL FROM telegram_inbox
			WHERE bot_id = ? AND update_id > ? AND (done_at IS NULL OR done_at >= ?) ORDER BY update_id LIMIT ?`,
		through: `
			SELECT COALESCE(max(update_id), 0) FROM telegram_inbox
			WHERE bot_id = ?1 AND done_at >= ?2 AND update_id < COALESCE(
				(SELECT min(update_id) FROM telegram_inbox WHERE bot_id = ?1 AND done_at IS NULL), 9223372036854775807)`,
		finish: `
			UPDATE telegram_inbox SET done_at = ?, body = NULL
			WHERE bot_id = ? AND update_id IN (SELECT value FROM json_each(?)) AND done_at IS NULL`,
		backlog: `SELECT count(*) FROM telegram_inbox WHERE bot_id = ? AND done_at IS NULL`,
		prune:   `DELETE FROM telegram_inbox WHERE done_at < ?`,
	}
)

// inbox returns the inbox's statements in the database's dialect.
func (db *DB) inbox() *inboxStatements {
	if db.dialect == DialectPostgres {
		return &inboxPostgres
	}
	return &inboxSQLite
}

// AddUpdates stores the updates us of the bot botID, atomically, and
// returns how many were new: an update the inbox has already (a
// redelivery), pending or handled within core.InboxRetention, is left as
// it is, and so is the second of two with the same ID in us. An update's
// Received is stored as given, now when it is zero. An empty us stores
// nothing. Of callers racing with the same update, in one process or in
// replicas, one stores it.
//
// Updates are stored in the order of their IDs, whatever their order in
// us, so that two calls storing some of the same updates lock them in one
// order and cannot deadlock. It returns an error for an update without a
// body (nothing is stored then), or the database error, translated.
func (db *DB) AddUpdates(ctx context.Context, botID int64, us []core.InboxUpdate) (int, error) {
	const op = "add updates"
	if len(us) == 0 {
		return 0, nil
	}
	rows := slices.Clone(us)
	for i := range rows {
		if len(rows[i].Body) == 0 {
			return 0, fmt.Errorf("%s: update %d of bot %d has no body", op, rows[i].ID, botID)
		}
		rows[i].Received = createdAt(rows[i].Received)
	}
	slices.SortStableFunc(rows, func(a, b core.InboxUpdate) int { return cmp.Compare(a.ID, b.ID) })
	var added int64
	var err error
	if db.dialect == DialectPostgres {
		added, err = db.addUpdatesPostgres(ctx, botID, rows)
	} else {
		added, err = db.addUpdatesSQLite(ctx, botID, rows)
	}
	if err != nil {
		return 0, db.failed(op, err)
	}
	return int(added), nil
}

// addUpdatesPostgres inserts rows in one statement, its own transaction,
// and returns how many were new. It returns the raw database error.
func (db *DB) addUpdatesPostgres(ctx context.Context, botID int64, rows []core.InboxUpdate) (int64, error) {
	ids := make([]int64, len(rows))
	members := make([]int64, len(rows))
	bodies := make([][]byte, len(rows))
	received := make([]time.Time, len(rows))
	for i, u := range rows {
		ids[i], members[i], bodies[i], received[i] = u.ID, u.Member, u.Body, u.Received
	}
	res, err := db.sql.ExecContext(ctx, inboxPostgres.add, botID, ids, members, bodies, received)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// addUpdatesSQLite inserts rows one statement each, in one transaction:
// SQLite runs in the process, so a statement per row costs no round trip.
// It returns how many were new, or the raw database error.
func (db *DB) addUpdatesSQLite(ctx context.Context, botID int64, rows []core.InboxUpdate) (int64, error) {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, inboxSQLite.add)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	var added int64
	for _, u := range rows {
		res, err := stmt.ExecContext(ctx, botID, u.ID, u.Member, u.Body, u.Received)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		added += n
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return added, nil
}

// PendingUpdates returns at most limit updates of the bot botID not yet
// handled whose ID is above after, lowest ID first; none when limit is not
// positive. It returns the database error, translated.
func (db *DB) PendingUpdates(ctx context.Context, botID, after int64, limit int) ([]core.InboxUpdate, error) {
	const op = "pending updates"
	if limit <= 0 {
		return nil, nil
	}
	return db.queryUpdates(ctx, op, false, db.inbox().pending, botID, after, limit)
}

// queryUpdates runs a query of updates (id, member, body, arrival, and
// the handled flag when handled is true) and returns them, or the
// database error, translated.
func (db *DB) queryUpdates(ctx context.Context, op string, handled bool, query string, args ...any) ([]core.InboxUpdate, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, db.failed(op, err)
	}
	defer rows.Close()
	var out []core.InboxUpdate
	for rows.Next() {
		var u core.InboxUpdate
		dest := []any{&u.ID, &u.Member, &u.Body, &u.Received}
		if handled {
			dest = append(dest, &u.Handled)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, db.failed(op, err)
		}
		u.Received = u.Received.UTC()
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, db.failed(op, err)
	}
	return out, nil
}

// StoredUpdates returns at most limit updates of the bot botID whose ID
// is above after, lowest ID first, pending and handled alike: a handled
// one has Handled set and no Body. An update handled more than
// core.InboxRetention before at is left out, as if pruned already. None
// when limit is not positive. It returns the database error, translated.
func (db *DB) StoredUpdates(ctx context.Context, botID, after int64, at time.Time, limit int) ([]core.InboxUpdate, error) {
	const op = "stored updates"
	if limit <= 0 {
		return nil, nil
	}
	return db.queryUpdates(ctx, op, true, db.inbox().stored, botID, after, dbTime(at.Add(-core.InboxRetention)), limit)
}

// HandledThrough returns the highest update id of the bot botID up to
// which every stored update is handled: the highest id stored below the
// lowest pending one, or the highest stored when none is pending. The
// updates handled more than core.InboxRetention before at count as
// pruned. It returns 0 when there is no such update, or the database
// error, translated.
func (db *DB) HandledThrough(ctx context.Context, botID int64, at time.Time) (int64, error) {
	var id int64
	err := db.sql.QueryRowContext(ctx, db.inbox().through, botID, dbTime(at.Add(-core.InboxRetention))).Scan(&id)
	if err != nil {
		return 0, db.failed("handled through", err)
	}
	return id, nil
}

// FinishUpdates marks the updates ids of the bot botID handled at at and
// drops their bodies, in one statement however many ids there are. An id
// already handled keeps the time it was handled at; an id the inbox does
// not have is passed over. Then, at most once a prunePeriod per process,
// it deletes the rows handled more than core.InboxRetention before at. It
// returns the database error, translated; a failed pruning is only logged.
func (db *DB) FinishUpdates(ctx context.Context, botID int64, ids []int64, at time.Time) error {
	const op = "finish updates"
	if len(ids) == 0 {
		return nil
	}
	var list any = ids
	if db.dialect != DialectPostgres {
		list = jsonInts(ids)
	}
	if _, err := db.sql.ExecContext(ctx, db.inbox().finish, dbTime(at), botID, list); err != nil {
		return db.failed(op, err)
	}
	db.pruneInbox(ctx, at)
	return nil
}

// jsonInts returns ids as a JSON array, for SQLite's json_each.
func jsonInts(ids []int64) string {
	b := make([]byte, 0, 2+len(ids)*11)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// InboxBacklog counts the updates of the bot botID not yet handled. It
// returns the database error, translated.
func (db *DB) InboxBacklog(ctx context.Context, botID int64) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, db.inbox().backlog, botID).Scan(&n); err != nil {
		return 0, db.failed("inbox backlog", err)
	}
	return n, nil
}

// pruneInbox deletes the updates handled more than core.InboxRetention
// before at, at most once a prunePeriod per process (the first call
// prunes): their ids are no longer needed to recognise a redelivery.
// Pending updates are never deleted, however old. A failure is logged: it
// only delays the next.
func (db *DB) pruneInbox(ctx context.Context, at time.Time) {
	db.pruned.mu.Lock()
	due := at.Sub(db.pruned.at) >= prunePeriod
	if due {
		db.pruned.at = at
	}
	db.pruned.mu.Unlock()
	if !due {
		return
	}
	if _, err := db.sql.ExecContext(ctx, db.inbox().prune, dbTime(at.Add(-core.InboxRetention))); err != nil {
		db.log.Warn("forgetting old telegram updates failed", "err", db.failed("prune inbox", err))
	}
}

// failed translates err, the error of a statement sent through db.sql
// rather than gorm, and drops the pool's idle connections when the
// database is unavailable, as watchOutages does for gorm's statements.
func (db *DB) failed(op string, err error) error {
	if unavailable(err) {
		db.dropIdle()
	}
	return translate(op, err)
}
