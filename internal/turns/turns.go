// Package turns queues waiting work by owner and hands it out in turns:
// the next owner in a round gets its oldest item, so that one owner's
// burst waits behind everyone else's next item rather than ahead of it.
// The issuing service's request budget (poap) and the Discord adapter's
// command slots (bot/discord) share it out this way.
package turns

// Queue holds items by owner, in the order owners are served next. It is
// not safe for concurrent use: its users hold their own lock. The zero
// value is an empty queue.
type Queue[T any] struct {
	items map[string][]T
	order []string
	n     int
}

// Push adds v at the end of owner's items; an owner with none waiting
// takes the last turn.
func (q *Queue[T]) Push(owner string, v T) {
	if q.items == nil {
		q.items = map[string][]T{}
	}
	if len(q.items[owner]) == 0 {
		q.order = append(q.order, owner)
	}
	q.items[owner] = append(q.items[owner], v)
	q.n++
}

// Pop takes the oldest item of the owner whose turn it is, who then waits
// for the others' turns; ok is false when nothing waits.
func (q *Queue[T]) Pop() (v T, ok bool) {
	if q.n == 0 {
		return v, false
	}
	owner := q.order[0]
	q.order = q.order[1:]
	items := q.items[owner]
	v = items[0]
	if len(items) > 1 {
		q.items[owner] = items[1:]
		q.order = append(q.order, owner)
	} else {
		delete(q.items, owner)
	}
	q.n--
	return v, true
}

// Remove takes out the first of owner's items that match accepts, and
// reports whether there was one.
func (q *Queue[T]) Remove(owner string, match func(T) bool) bool {
	items := q.items[owner]
	for i, v := range items {
		if !match(v) {
			continue
		}
		q.n--
		if len(items) == 1 {
			delete(q.items, owner)
			for j, o := range q.order {
				if o == owner {
					q.order = append(q.order[:j], q.order[j+1:]...)
					break
				}
			}
			return true
		}
		q.items[owner] = append(items[:i:i], items[i+1:]...)
		return true
	}
	return false
}

// Len is how many items wait.
func (q *Queue[T]) Len() int { return q.n }
