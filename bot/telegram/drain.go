package telegram

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// The inbox's reader. Telegram numbers a bot's updates one after the
// other, but a webhook's deliveries run side by side and each replica
// stores what it receives, so that an update may be stored after the next
// one. The reader keeps a watermark: every id up to it is known (handed
// out, handled already, or given up). It reads the updates stored above
// it, handled ones too (so that an id handled already is not taken for a
// missing one), and hands them out in id order; at an id not stored it
// stops until that id is stored, or gives it up gapWait after it first
// saw a later one (Telegram skipped it, or a delivery failed and comes
// back late). An update stored after its id was given up is found by the
// rescan and handled then, behind whatever its member has in hand.
//
// A reader starts from the highest update handled (Inbox.HandledThrough),
// so that a restart or another replica taking over keeps the order; it
// does not wait again for ids missing below an update handled, which a
// reader before went past. When
// nothing handled is known (a new bot, two days without updates), it
// starts below the lowest pending update once it saw one gapWait ago.
// After two days without updates it starts so again: Telegram may number
// the updates after a silence of a week anew, from a random id.

// drainer hands the stored updates out to workers, in id order, one
// member's one after the other. Only drain's goroutine reads and writes
// the fields above mu.
type drainer struct {
	a       *Adapter
	clock   inboxClock
	gapWait time.Duration
	every   time.Duration // the longest wait between two reads
	// watermark is the id up to which every update is known, when known.
	watermark int64
	known     bool
	asked     bool      // Inbox.HandledThrough was asked in this run
	since     time.Time // when a pending update was first seen, not known
	moved     time.Time // when the watermark last moved
	// seen records when ids above the watermark were first read: the
	// highest id of a read, when higher than those before, and when.
	seen      []sighting
	rescanned time.Time
	counted   time.Time

	mu sync.Mutex
	// gen counts the rescans; done holds the updates handled since, with
	// the rescan under way when they were marked: a rescan that began
	// before an update was marked may still return it as pending.
	gen  int
	busy map[int64]bool              // updates with a worker
	done map[int64]int               // handled updates, by gen
	wait map[line][]core.InboxUpdate // by member: updates behind one being handled
	held []int64                     // handled, not yet marked so (the store failed)
	wg   sync.WaitGroup
}

// sighting is the highest id a read returned and when.
type sighting struct {
	id int64
	at time.Time
}

// newDrainer returns the reader of one run of drain.
func (a *Adapter) newDrainer() *drainer {
	d := &drainer{a: a, clock: a.clock, gapWait: a.opts.GapWait, every: rescanEvery,
		busy: map[int64]bool{}, done: map[int64]int{}, wait: map[line][]core.InboxUpdate{}}
	if d.clock == nil {
		d.clock = wallClock{}
	}
	if a.opts.WebhookURL == "" {
		// A poller stores each batch of getUpdates, in order, before the
		// next, and says so (nudge): an id missing then never comes.
		d.gapWait = 0
		return d
	}
	// Other replicas store updates too: look for theirs often.
	d.every = inboxPoll
	if d.gapWait <= 0 {
		d.gapWait = DefaultGapWait
	}
	return d
}

// drain reads and hands out stored updates until ctx is done, then waits
// for the updates being handled: another replica must not take the
// inbox while they run.
func (a *Adapter) drain(ctx context.Context) error {
	d := a.newDrainer()
	defer d.wg.Wait()
	for ctx.Err() == nil {
		now := d.clock.Now()
		d.retryHeld(ctx)
		due, err := d.read(ctx, now)
		if err == nil {
			err = d.rescan(ctx, now)
		}
		if err != nil && ctx.Err() == nil {
			a.log.Warn("telegram inbox not read; trying again", "err", err)
		}
		d.count(ctx, now)
		wait := d.every
		if !due.IsZero() {
			wait = min(wait, due.Sub(now))
		}
		select {
		case <-ctx.Done():
		case <-a.nudge:
		case <-d.clock.After(wait):
		}
	}
	return nil
}

// count tells the observer the backlog, every backlogEvery.
func (d *drainer) count(ctx context.Context, now time.Time) {
	if d.a.opts.Observer == nil || now.Sub(d.counted) < backlogEvery {
		return
	}
	d.counted = now
	if n, err := d.a.inbox.InboxBacklog(ctx, d.a.api.Self.ID); err == nil {
		d.a.opts.Observer.SetTelegramBacklog(n)
	}
}

// read hands out, in id order, the updates stored above the watermark, up
// to an id missing that may still come. It returns when to read again for
// that id at the latest, zero when no id is awaited.
func (d *drainer) read(ctx context.Context, now time.Time) (time.Time, error) {
	if d.known && d.idle(now) {
		d.known, d.since = false, time.Time{}
		d.a.log.Debug("telegram inbox without updates for two days; the next one starts it again")
	}
	if !d.known {
		due, err := d.begin(ctx, now)
		if err != nil || !d.known {
			return due, err
		}
	}
	for {
		us, err := d.a.inbox.StoredUpdates(ctx, d.a.api.Self.ID, d.watermark, now, inboxBatch)
		if err != nil {
			return time.Time{}, err
		}
		d.sight(us, now)
		if due := d.handOut(ctx, us, now); !due.IsZero() || len(us) < inboxBatch {
			return due, nil
		}
	}
}

// idle says nothing was handed out nor is being handled for
// core.InboxRetention: the ids handled before are as good as pruned.
func (d *drainer) idle(now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.busy) == 0 && now.Sub(d.moved) >= core.InboxRetention
}

// begin sets the watermark: to the highest update handled, asked once a
// run; otherwise just below the lowest pending update once the reader saw
// one gapWait ago (an update stored out of order is lower). It returns
// when to read again for that, zero when it is not waiting.
func (d *drainer) begin(ctx context.Context, now time.Time) (time.Time, error) {
	if !d.asked {
		id, err := d.a.inbox.HandledThrough(ctx, d.a.api.Self.ID, now)
		if err != nil {
			return time.Time{}, err
		}
		d.asked = true
		if id != 0 {
			d.start(id, now)
			return time.Time{}, nil
		}
	}
	us, err := d.a.inbox.PendingUpdates(ctx, d.a.api.Self.ID, 0, 1)
	if err != nil || len(us) == 0 {
		return time.Time{}, err
	}
	if d.since.IsZero() {
		d.since = now
	}
	if due := d.since.Add(d.gapWait); now.Before(due) {
		return due, nil
	}
	d.start(us[0].ID-1, now)
	return time.Time{}, nil
}

// start puts the watermark at id.
func (d *drainer) start(id int64, now time.Time) {
	d.watermark, d.known, d.moved, d.since, d.seen = id, true, now, time.Time{}, nil
}

// sight records the highest id of us when it is higher than any before.
func (d *drainer) sight(us []core.InboxUpdate, now time.Time) {
	if len(us) == 0 {
		return
	}
	if top := us[len(us)-1].ID; len(d.seen) == 0 || top > d.seen[len(d.seen)-1].id {
		d.seen = append(d.seen, sighting{id: top, at: now})
	}
}

// handOut hands out the pending updates of us (stored above the
// watermark, in id order) and moves the watermark past each, up to an id
// missing that the reader has not waited gapWait for yet; it returns when
// that wait ends, zero when it went through us.
func (d *drainer) handOut(ctx context.Context, us []core.InboxUpdate, now time.Time) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, u := range us {
		// Missing ids below an update handled already were passed by an
		// earlier reader (before a restart): they are not waited for again.
		if u.ID > d.watermark+1 && !u.Handled {
			// seen[0] is the first read of an id above the watermark:
			// since then the next id is missing.
			opened := d.seen[0].at
			if due := opened.Add(d.gapWait); now.Before(due) {
				return due
			}
			d.skipped(u.ID, now.Sub(opened))
		}
		d.watermark, d.moved = u.ID, now
		d.seen = slices.DeleteFunc(d.seen, func(s sighting) bool { return s.id <= u.ID })
		if !u.Handled && !d.busy[u.ID] {
			d.enqueue(ctx, u)
		}
	}
	return time.Time{}
}

// skipped logs the ids from the watermark to next given up.
func (d *drainer) skipped(next int64, waited time.Duration) {
	log := d.a.log.Info
	if d.gapWait == 0 {
		log = d.a.log.Debug // polling: the ids were skipped by Telegram
	}
	log("telegram update ids missing; going on without them", "from", d.watermark+1, "to", next-1, "waited", waited)
}

// rescan hands out, every rescanEvery, the pending updates below the
// watermark that no worker has: those stored after the reader gave their
// id up. They run behind whatever their member has in hand.
func (d *drainer) rescan(ctx context.Context, now time.Time) error {
	if !d.known || now.Sub(d.rescanned) < rescanEvery {
		return nil
	}
	d.rescanned = now
	d.mu.Lock()
	d.gen++
	gen := d.gen
	d.mu.Unlock()
	us, err := d.a.inbox.PendingUpdates(ctx, d.a.api.Self.ID, 0, inboxBatch)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, u := range us {
		if u.ID > d.watermark {
			break // the next read's
		}
		if g, ok := d.done[u.ID]; d.busy[u.ID] || ok && gen <= g {
			continue // in hand, or marked handled while this rescan ran
		}
		d.a.log.Warn("telegram update stored after later ones were handed out; handling it now", "update_id", u.ID)
		d.enqueue(ctx, u)
	}
	// Rescans from now on begin after these were marked.
	for id, g := range d.done {
		if g < gen {
			delete(d.done, id)
		}
	}
	return nil
}

// line names the updates that run one after the other: a member's (or a
// chat's posting as itself), or an update of no member's alone. Chats'
// ids are negative and so may be a member key; alone keeps the two apart.
type line struct{ member, alone int64 }

// enqueue gives u to a worker, or puts it in its member's line, in id
// order, behind the update being handled. d.mu must be held.
func (d *drainer) enqueue(ctx context.Context, u core.InboxUpdate) {
	d.busy[u.ID] = true
	key := line{member: u.Member}
	if key.member == 0 {
		key.alone = u.ID // alone in its line
	}
	if q, running := d.wait[key]; running {
		i, _ := slices.BinarySearchFunc(q, u.ID, func(w core.InboxUpdate, id int64) int { return cmp.Compare(w.ID, id) })
		d.wait[key] = slices.Insert(q, i, u)
		return
	}
	d.wait[key] = nil
	d.wg.Add(1)
	go d.work(ctx, key, u)
}
