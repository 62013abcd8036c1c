package telegram

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/core"
)

// The inbox. Every update, by webhook or by polling, is stored in
// Options.Inbox before Telegram is told it arrived (the webhook's 200, the
// next getUpdates offset), and handled from there: an update a process
// took is never lost with it, and one delivered twice, to one replica or
// to two, is stored and handled once. Of the replicas sharing a database
// one at a time handles the inbox (Options.Locks), so that one flood
// scheduler sends the bot's replies; the others only store (the edits of
// claim posts and notices still go out from each replica's background
// work, through its own scheduler). The handling
// replica reads the pending updates in order, runs at most maxConcurrent
// at once, one member's updates one after the other, and marks each
// handled when its replies went out. An update whose handling a dying
// process cut is handled again by the next: a command's core call is
// idempotent (the same mint link, the same verdict), so the member gets
// the answer the first run could not send.
const (
	// inboxBatch is how many pending updates are read at once.
	inboxBatch = 1000
	// inboxPoll is how often the handling replica looks for updates other
	// replicas stored (webhook mode); its own are handled at once.
	inboxPoll = 250 * time.Millisecond
	// inboxLockRetry is how often a replica that does not handle the
	// inbox tries to take it over.
	inboxLockRetry = 2 * time.Second
	// backlogEvery spaces the counts of the backlog for the metric.
	backlogEvery = 5 * time.Second
	// rescanEvery spaces the reads of the inbox from its start.
	rescanEvery = 5 * time.Second
	// storeTimeout bounds one write to the inbox.
	storeTimeout = 10 * time.Second
)

// inboxLock names the lock of the bot's inbox among the replicas.
func inboxLock(botID int64) string { return "telegram inbox " + strconv.FormatInt(botID, 10) }

// memberOf is whose update u is: the key that keeps one member's updates
// in order; 0 when it has none.
func memberOf(u *tgbotapi.Update) int64 {
	if u.ChatJoinRequest != nil {
		return u.ChatJoinRequest.From.ID
	}
	if from := u.SentFrom(); from != nil {
		return from.ID
	}
	return 0
}

// inboxUpdate is the stored form of an update whose raw body is raw. An
// update with an id that the library cannot read whole (a field of a
// shape it does not know) is stored all the same, without a member: it is
// taken, so that Telegram stops delivering it, and its handling logs it.
// Only a body without an update_id is an error.
func inboxUpdate(raw []byte, at time.Time) (core.InboxUpdate, error) {
	var u tgbotapi.Update
	if err := json.Unmarshal(raw, &u); err != nil {
		var id struct {
			UpdateID *int64 `json:"update_id"`
		}
		if json.Unmarshal(raw, &id) != nil || id.UpdateID == nil {
			return core.InboxUpdate{}, err
		}
		return core.InboxUpdate{ID: *id.UpdateID, Body: raw, Received: at}, nil
	}
	if u.UpdateID <= 0 {
		return core.InboxUpdate{}, errors.New("telegram: an update without an update_id")
	}
	return core.InboxUpdate{ID: int64(u.UpdateID), Member: memberOf(&u), Body: raw, Received: at}, nil
}

// store stores updates in the inbox and wakes the handling loop.
func (a *Adapter) store(ctx context.Context, us []core.InboxUpdate) error {
	if len(us) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if _, err := a.inbox.AddUpdates(ctx, a.api.Self.ID, us); err != nil {
		return err
	}
	select {
	case a.nudge <- struct{}{}:
	default:
	}
	return nil
}

// process handles the inbox until ctx is done, whenever this replica
// holds its lock; otherwise it tries again every inboxLockRetry.
func (a *Adapter) process(ctx context.Context) {
	for ctx.Err() == nil {
		var ran bool
		var err error
		if a.opts.Locks == nil {
			ran, err = true, a.drain(ctx)
		} else {
			ran, err = a.opts.Locks.TryExclusive(ctx, inboxLock(a.api.Self.ID), a.drain)
		}
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Warn("telegram inbox not handled; trying again", "err", err, "in", inboxLockRetry)
		case !ran:
			a.log.Debug("telegram inbox handled by another replica")
		}
		sleep(ctx, inboxLockRetry)
	}
}

// drainer hands the pending updates to workers, one member's in order.
type drainer struct {
	a *Adapter
	// gen counts the reads of the inbox; done holds the updates handled
	// since, with the read under way when they were marked: a read that
	// began before an update was marked may still return it.
	gen int
	// cursor is the highest update id handed out: reads go on from it,
	// so that updates waiting behind a busy member do not fill every
	// read; a read from the start now and then (rescanEvery) finds those
	// stored late, below it.
	cursor  int64
	scanned time.Time
	mu      sync.Mutex
	busy    map[int64]bool               // updates with a worker
	done    map[int64]int                // handled updates, by gen
	wait    map[int64][]core.InboxUpdate // by member: updates behind one being handled
	held    []int64                      // handled, not yet marked so (the store failed)
	wg      sync.WaitGroup
}

// drain reads and hands out pending updates until ctx is done, then waits
// for the updates being handled: another replica must not take the
// inbox while they run.
func (a *Adapter) drain(ctx context.Context) error {
	d := &drainer{a: a, busy: map[int64]bool{}, done: map[int64]int{}, wait: map[int64][]core.InboxUpdate{}}
	defer d.wg.Wait()
	// With a webhook, other replicas store updates too: look for theirs
	// often. A poller stores them all itself, and says so (nudge).
	every := rescanEvery
	if a.opts.WebhookURL != "" {
		every = inboxPoll
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	var counted time.Time
	for ctx.Err() == nil {
		d.retryHeld(ctx)
		if err := d.read(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("telegram inbox not read; trying again", "err", err)
		}
		if a.opts.Observer != nil && time.Since(counted) >= backlogEvery {
			counted = time.Now()
			if n, err := a.inbox.InboxBacklog(ctx, a.api.Self.ID); err == nil {
				a.opts.Observer.SetTelegramBacklog(n)
			}
		}
		select {
		case <-ctx.Done():
		case <-a.nudge:
		case <-tick.C:
		}
	}
	return nil
}

// read reads the pending updates and hands the new ones out.
func (d *drainer) read(ctx context.Context) error {
	d.mu.Lock()
	d.gen++
	gen := d.gen
	d.mu.Unlock()
	after := d.cursor
	if time.Since(d.scanned) >= rescanEvery {
		after, d.scanned = 0, time.Now()
	}
	us, err := d.a.inbox.PendingUpdates(ctx, d.a.api.Self.ID, after, inboxBatch)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, u := range us {
		d.cursor = max(d.cursor, u.ID)
		if d.busy[u.ID] {
			continue
		}
		if g, ok := d.done[u.ID]; ok && gen <= g {
			continue // marked handled while this read ran
		}
		d.busy[u.ID] = true
		key := u.Member
		if key == 0 {
			key = -u.ID // alone in its line
		}
		if q, running := d.wait[key]; running {
			d.wait[key] = append(q, u)
			continue
		}
		d.wait[key] = nil
		d.wg.Add(1)
		go d.work(ctx, key, u)
	}
	// Reads from now on begin after these were marked.
	for id, g := range d.done {
		if g < gen {
			delete(d.done, id)
		}
	}
	return nil
}

// work handles u, then the updates of the same member that queued behind
// it, each holding one of the adapter's slots, until none is left or ctx
// is done (those left stay pending for the next run).
func (d *drainer) work(ctx context.Context, key int64, u core.InboxUpdate) {
	defer d.wg.Done()
	for {
		select {
		case d.a.slots <- struct{}{}:
		case <-ctx.Done():
			d.abandon(key, u)
			return
		}
		d.a.inflight.Add(1)
		slot := &heldSlot{free: func() { <-d.a.slots }}
		d.a.handleStored(context.WithValue(ctx, heldSlotKey{}, slot), u)
		slot.release()
		d.a.inflight.Done()
		d.finish(ctx, u.ID)
		d.mu.Lock()
		q := d.wait[key]
		if len(q) == 0 || ctx.Err() != nil {
			for _, w := range q {
				delete(d.busy, w.ID)
			}
			delete(d.wait, key)
			d.mu.Unlock()
			return
		}
		u, d.wait[key] = q[0], q[1:]
		d.mu.Unlock()
	}
}

// heldSlot is the handling slot an update holds; its first message to
// wait for a turn under the flood limits gives it back (see throttled):
// the slots bound the updates being worked on, not the replies waiting to
// be sent, so that replies held by a busy group do not stall every other
// member's commands.
type heldSlot struct {
	once sync.Once
	free func()
}

type heldSlotKey struct{}

func (h *heldSlot) release() { h.once.Do(h.free) }

// releaseSlot gives back the handling slot ctx's update holds, if any.
func releaseSlot(ctx context.Context) {
	if h, ok := ctx.Value(heldSlotKey{}).(*heldSlot); ok {
		h.release()
	}
}

// abandon leaves u and those behind it pending.
func (d *drainer) abandon(key int64, u core.InboxUpdate) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.busy, u.ID)
	for _, w := range d.wait[key] {
		delete(d.busy, w.ID)
	}
	delete(d.wait, key)
}

// finish marks update id handled. Should the store fail, the update stays
// busy here (this process does not handle it again) and is marked later.
func (d *drainer) finish(ctx context.Context, id int64) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	err := d.a.inbox.FinishUpdates(ctx, d.a.api.Self.ID, []int64{id}, time.Now())
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		d.a.log.Warn("telegram update handled but not marked so; marking it later", "update_id", id, "err", err)
		d.held = append(d.held, id)
		return
	}
	delete(d.busy, id)
	d.done[id] = d.gen
}

// retryHeld marks handled the updates whose marking failed.
func (d *drainer) retryHeld(ctx context.Context) {
	d.mu.Lock()
	held := slices.Clone(d.held)
	d.mu.Unlock()
	if len(held) == 0 {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if err := d.a.inbox.FinishUpdates(sctx, d.a.api.Self.ID, held, time.Now()); err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.held = slices.DeleteFunc(d.held, func(id int64) bool { return slices.Contains(held, id) })
	for _, id := range held {
		delete(d.busy, id)
		d.done[id] = d.gen
	}
}

// handleStored handles one stored update. The handling outlives ctx: an
// update begun is finished (within its timeout) also during a shutdown.
func (a *Adapter) handleStored(ctx context.Context, s core.InboxUpdate) {
	var u tgbotapi.Update
	if err := json.Unmarshal(s.Body, &u); err != nil {
		a.log.Warn("telegram update in the inbox is not an update; dropped", "update_id", s.ID, "err", err)
		return
	}
	a.handleUpdate(withReceived(context.WithoutCancel(ctx), s.Received), u)
}

// memInbox is the inbox in memory, when Options.Inbox is nil: nothing
// survives the process, and replicas do not share it.
type memInbox struct {
	mu      sync.Mutex
	updates map[[2]int64]*memUpdate
}

type memUpdate struct {
	u    core.InboxUpdate
	done bool
}

func (m *memInbox) AddUpdates(_ context.Context, botID int64, us []core.InboxUpdate) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.updates == nil {
		m.updates = map[[2]int64]*memUpdate{}
	}
	added := 0
	for _, u := range us {
		k := [2]int64{botID, u.ID}
		if m.updates[k] == nil {
			m.updates[k] = &memUpdate{u: u}
			added++
		}
	}
	return added, nil
}

func (m *memInbox) PendingUpdates(_ context.Context, botID, after int64, limit int) ([]core.InboxUpdate, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []core.InboxUpdate
	for k, u := range m.updates {
		if k[0] == botID && !u.done && u.u.ID > after {
			out = append(out, u.u)
		}
	}
	slices.SortFunc(out, func(a, b core.InboxUpdate) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(limit, len(out))], nil
}

func (m *memInbox) FinishUpdates(_ context.Context, botID int64, ids []int64, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if u := m.updates[[2]int64{botID, id}]; u != nil {
			u.done, u.u.Body = true, nil
		}
	}
	return nil
}

func (m *memInbox) InboxBacklog(_ context.Context, botID int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k, u := range m.updates {
		if k[0] == botID && !u.done {
			n++
		}
	}
	return n, nil
}
