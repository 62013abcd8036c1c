package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"time"
)

// unlockTimeout bounds the release of an exclusive lock, which goes on
// when the caller's context is done: a lock left held would stop every
// replica's scheduled work until the connection closes.
const unlockTimeout = 10 * time.Second

// Advisory locks of TryExclusive use PostgreSQL's two-key form, whose keys
// never meet the one-key migration lock: the first key is the schema's
// hash (databases sharing a server, tests in schemas of their own), the
// second the name's.
const (
	pgTryLock = `SELECT pg_try_advisory_lock(hashtext('poapbot:' || current_schema()), hashtext($1))`
	pgUnlock  = `SELECT pg_advisory_unlock(hashtext('poapbot:' || current_schema()), hashtext($1))`
)

// TryExclusive runs fn unless another caller holds the exclusive lock
// name: on PostgreSQL a session advisory lock, so that of several replicas
// sharing the database one only runs a scheduled job at a time (fn's
// context is cancelled should the lock's session die, which releases the
// lock to the others); on SQLite,
// which one process holds at a time (see ErrLocked), a lock per database
// file and name in this process. It does not wait: ran is false when the lock was held. It
// returns fn's error, or the database error of taking the lock.
func (db *DB) TryExclusive(ctx context.Context, name string, fn func(ctx context.Context) error) (ran bool, err error) {
	if db.dialect == DialectPostgres {
		return db.tryAdvisory(ctx, name, fn)
	}
	return db.tryLocal(ctx, name, fn)
}

// tryAdvisory runs fn holding the advisory lock name, taken and released
// on one connection kept aside for the purpose: the lock belongs to the
// session.
func (db *DB) tryAdvisory(ctx context.Context, name string, fn func(ctx context.Context) error) (bool, error) {
	const op = "try exclusive"
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("%s %s: %w", op, name, err)
	}
	defer conn.Close()
	var locked bool
	if err := conn.QueryRowContext(ctx, pgTryLock, name).Scan(&locked); err != nil {
		return false, fmt.Errorf("%s %s: %w", op, name, err)
	}
	if !locked {
		return false, nil
	}
	defer db.unlockAdvisory(ctx, conn, name)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		db.watchLock(fctx, conn, name, cancel, stop)
	}()
	err = fn(fctx)
	close(stop)
	<-watched
	return true, err
}

// lockCheckEvery is DB.lockCheck's default: how often the session holding
// an advisory lock is checked.
const lockCheckEvery = 5 * time.Second

// watchLock pings the connection holding the lock name every
// db.lockCheck until stop closes, and cancels fn's context (lost) when
// the session is gone (a failover, a killed backend, a cut network): the
// lock went with it, and another replica may take it, so fn must stop
// rather than run beside it.
func (db *DB) watchLock(ctx context.Context, conn *sql.Conn, name string, lost context.CancelFunc, stop <-chan struct{}) {
	t := time.NewTicker(db.lockCheck)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, db.lockCheck)
		err := conn.PingContext(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			db.log.Warn("exclusive lock lost with its database session; stopping its job", "name", name, "err", err)
			lost()
			return
		}
	}
}

// unlockAdvisory releases the lock name on conn. Should that fail, the
// connection is closed rather than returned to the pool, which releases
// the lock with the session.
func (db *DB) unlockAdvisory(ctx context.Context, conn *sql.Conn, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
	defer cancel()
	var unlocked bool
	err := conn.QueryRowContext(ctx, pgUnlock, name).Scan(&unlocked)
	if err == nil && unlocked {
		return
	}
	db.log.Warn("exclusive lock not released, closing its connection", "name", name, "err", err)
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
}

// localLocks are the SQLite exclusive locks of this process, by database
// file and name.
var localLocks sync.Map // string -> *sync.Mutex

// tryLocal runs fn holding this process's lock name of the database file.
func (db *DB) tryLocal(ctx context.Context, name string, fn func(ctx context.Context) error) (bool, error) {
	var file string
	err := db.sql.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file)
	if err != nil {
		return false, fmt.Errorf("try exclusive %s: %w", name, err)
	}
	v, _ := localLocks.LoadOrStore(file+"\x00"+name, new(sync.Mutex))
	mu := v.(*sync.Mutex)
	if !mu.TryLock() {
		return false, nil
	}
	defer mu.Unlock()
	return true, fn(ctx)
}
