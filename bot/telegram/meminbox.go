package telegram

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// memInbox is the inbox in memory, when Options.Inbox is nil: nothing
// survives the process, and replicas do not share it. It keeps the
// updates handled, as storage does, until they are past
// core.InboxRetention.
type memInbox struct {
	mu      sync.Mutex
	updates map[[2]int64]*memUpdate
}

type memUpdate struct {
	u      core.InboxUpdate
	doneAt time.Time // zero while pending
}

// visible says whether u counts at at: pending, or handled within
// core.InboxRetention before it.
func (u *memUpdate) visible(at time.Time) bool {
	return !u.u.Handled || !u.doneAt.Before(at.Add(-core.InboxRetention))
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
			u.Handled = false
			m.updates[k] = &memUpdate{u: u}
			added++
		}
	}
	return added, nil
}

// list returns the bot's updates that keep, lowest id first.
func (m *memInbox) list(botID int64, keep func(*memUpdate) bool) []core.InboxUpdate {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []core.InboxUpdate
	for k, u := range m.updates {
		if k[0] == botID && keep(u) {
			out = append(out, u.u)
		}
	}
	slices.SortFunc(out, func(a, b core.InboxUpdate) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func (m *memInbox) PendingUpdates(_ context.Context, botID, after int64, limit int) ([]core.InboxUpdate, error) {
	out := m.list(botID, func(u *memUpdate) bool { return !u.u.Handled && u.u.ID > after })
	return out[:max(0, min(limit, len(out)))], nil
}

func (m *memInbox) StoredUpdates(_ context.Context, botID, after int64, at time.Time, limit int) ([]core.InboxUpdate, error) {
	out := m.list(botID, func(u *memUpdate) bool { return u.u.ID > after && u.visible(at) })
	return out[:max(0, min(limit, len(out)))], nil
}

func (m *memInbox) HandledThrough(_ context.Context, botID int64, at time.Time) (int64, error) {
	var through int64
	for _, u := range m.list(botID, func(u *memUpdate) bool { return u.visible(at) }) {
		if !u.Handled {
			break
		}
		through = u.ID
	}
	return through, nil
}

func (m *memInbox) FinishUpdates(_ context.Context, botID int64, ids []int64, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if u := m.updates[[2]int64{botID, id}]; u != nil && !u.u.Handled {
			u.u.Handled, u.u.Body, u.doneAt = true, nil, at
		}
	}
	return nil
}

func (m *memInbox) InboxBacklog(_ context.Context, botID int64) (int, error) {
	return len(m.list(botID, func(u *memUpdate) bool { return !u.u.Handled })), nil
}
