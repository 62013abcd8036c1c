package turns

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// drain pops every item.
func drain(q *Queue[string]) []string {
	var out []string
	for {
		v, ok := q.Pop()
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

func TestQueue_Turns(t *testing.T) {
	var q Queue[string]
	for _, v := range []string{"a1", "a2", "a3"} {
		q.Push("a", v)
	}
	q.Push("b", "b1")
	q.Push("c", "c1")
	q.Push("b", "b2")
	if q.Len() != 6 {
		t.Errorf("Len() = %d, want 6", q.Len())
	}
	want := []string{"a1", "b1", "c1", "a2", "b2", "a3"}
	if got := drain(&q); !cmp.Equal(got, want) {
		t.Errorf("Pop order = %v, want %v: one owner's burst behind the others' next", got, want)
	}
	if _, ok := q.Pop(); ok || q.Len() != 0 {
		t.Errorf("Pop() on an empty queue = ok, Len %d; want nothing", q.Len())
	}
}

func TestQueue_Remove(t *testing.T) {
	var q Queue[string]
	q.Push("a", "a1")
	q.Push("a", "a2")
	q.Push("b", "b1")
	is := func(s string) func(string) bool { return func(v string) bool { return v == s } }
	if q.Remove("a", is("zz")) || q.Remove("c", is("a1")) {
		t.Error("Remove of an item not waiting = true, want false")
	}
	if !q.Remove("a", is("a1")) || !q.Remove("b", is("b1")) {
		t.Fatal("Remove of a waiting item = false, want true")
	}
	q.Push("c", "c1")
	if got, want := drain(&q), []string{"a2", "c1"}; !cmp.Equal(got, want) || q.Len() != 0 {
		t.Errorf("after removals Pop order = %v (Len %d), want %v", got, q.Len(), want)
	}
}
