package telegram

import (
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
// work, through its own scheduler). The handling replica hands the
// updates out in update_id order, whatever order they were stored in
// (drain.go), runs at most maxConcurrent at once, one member's updates one
// after the other, and marks each handled when its replies went out. An
// update whose handling a dying process cut is handled again by the next:
// a command's core call is idempotent (the same mint link, the same
// verdict), so the member gets the answer the first run could not send.
const (
	// inboxBatch is how many stored updates are read at once.
	inboxBatch = 1000
	// inboxPoll is how often the handling replica looks for updates other
	// replicas stored (webhook mode); its own are handled at once.
	inboxPoll = 250 * time.Millisecond
	// inboxLockRetry is how often a replica that does not handle the
	// inbox tries to take it over.
	inboxLockRetry = 2 * time.Second
	// backlogEvery spaces the counts of the backlog for the metric.
	backlogEvery = 5 * time.Second
	// rescanEvery spaces the reads of the inbox from its start, which find
	// the updates stored after the reader went past their id.
	rescanEvery = 5 * time.Second
	// storeTimeout bounds one write to the inbox.
	storeTimeout = 10 * time.Second
)

// DefaultGapWait is Options.GapWait's default. Telegram delivers a webhook's
// updates over several connections at once, and each replica stores what it
// receives: an update is stored a few milliseconds after the next one, or
// a poll of the other replicas' updates (inboxPoll) later. An update
// Telegram retries after a failed delivery comes much later, if at all.
const DefaultGapWait = time.Second

// inboxClock is the time of the inbox's reader: when it first saw an id
// missing, when it gives that id up. Tests move it by hand.
type inboxClock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// inboxLock names the lock of the bot's inbox among the replicas.
func inboxLock(botID int64) string { return "telegram inbox " + strconv.FormatInt(botID, 10) }

// memberOf is whose update u is: the key that keeps one member's updates
// in order; 0 when it has none. A message posted on behalf of a chat (an
// anonymous administrator's, a channel's) is that chat's: its from is a
// stand-in account that every such chat shares (see sender), and one
// group's must not wait behind another's.
func memberOf(u *tgbotapi.Update) int64 {
	if u.ChatJoinRequest != nil {
		return u.ChatJoinRequest.From.ID
	}
	if m := u.Message; m != nil && m.Chat != nil && senderOf(m) != senderPerson {
		if m.SenderChat != nil {
			return m.SenderChat.ID
		}
		return m.Chat.ID
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

// work handles u, then the updates of the same member that queued behind
// it, each holding one of the adapter's slots, until none is left or ctx
// is done (those left stay pending for the next run).
func (d *drainer) work(ctx context.Context, key line, u core.InboxUpdate) {
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

// abandon leaves u and those behind it pending.
func (d *drainer) abandon(key line, u core.InboxUpdate) {
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
	err := d.a.inbox.FinishUpdates(ctx, d.a.api.Self.ID, []int64{id}, d.clock.Now())
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
	if err := d.a.inbox.FinishUpdates(sctx, d.a.api.Self.ID, held, d.clock.Now()); err != nil {
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
