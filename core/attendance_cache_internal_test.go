package core

import (
	"strconv"
	"testing"
)

// TestUserCache_Bounded: the cache never holds more than its cap, keeps
// the id last put, and updates a member kept without evicting another.
func TestUserCache_Bounded(t *testing.T) {
	c := userCache{max: 3, ids: map[userKey]cachedUser{}}
	for i := range 10 {
		c.put(userKey{Discord, strconv.Itoa(i)}, cachedUser{id: int64(i)})
		if len(c.ids) > 3 {
			t.Fatalf("after %d puts the cache holds %d ids, want at most 3", i+1, len(c.ids))
		}
		if u, ok := c.get(userKey{Discord, strconv.Itoa(i)}); !ok || u.id != int64(i) {
			t.Fatalf("get(%d) = %d, %v right after put", i, u.id, ok)
		}
	}
	kept := len(c.ids)
	for k := range c.ids {
		c.put(k, cachedUser{id: 99})
	}
	if len(c.ids) != kept {
		t.Errorf("updating the kept ids changed the count to %d, want %d", len(c.ids), kept)
	}
}
