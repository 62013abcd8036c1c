package storage

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// mustAddPost records message in channel c for the drop or fails the test.
func mustAddPost(t *testing.T, db *DB, d core.Drop, message string) core.PostRef {
	t.Helper()
	ref := core.PostRef{Platform: core.Discord, Place: "guild", Channel: "c", Message: message}
	if err := db.AddPost(t.Context(), core.Post{DropID: d.ID, Ref: ref, Subject: core.DropSubject(d.EventID), Intro: "Claim!"}); err != nil {
		t.Fatalf("AddPost(%s) = %v", message, err)
	}
	return ref
}

// changed returns the messages and counts of ChangedPosts or fails the
// test.
func changed(t *testing.T, db *DB) map[string]int {
	t.Helper()
	posts, err := db.ChangedPosts(t.Context(), time.Now())
	if err != nil {
		t.Fatalf("ChangedPosts() = %v", err)
	}
	out := map[string]int{}
	for _, p := range posts {
		out[p.Ref.Message] = p.Available
	}
	return out
}

func TestDB_ChangedPosts(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "guild")
		d := mustAddDrop(t, db, tn.ID, 1, importedLinks(1, 5))
		mustAddPost(t, db, d, "m1")
		users := mustUsers(t, db, "u", 2)

		if got, want := changed(t, db), map[string]int{"m1": 5}; !cmp.Equal(got, want) {
			t.Errorf("first ChangedPosts() = %v, want %v", got, want)
		}
		if got := changed(t, db); len(got) != 0 {
			t.Errorf("ChangedPosts() with no change = %v, want none", got)
		}
		for _, u := range users {
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, "", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := changed(t, db), map[string]int{"m1": 3}; !cmp.Equal(got, want) {
			t.Errorf("ChangedPosts() after 2 claims = %v, want %v", got, want)
		}
		if got := changed(t, db); len(got) != 0 {
			t.Errorf("ChangedPosts() again = %v, want none", got)
		}

		// Recording the message again forgets what it shows.
		mustAddPost(t, db, d, "m1")
		if got, want := changed(t, db), map[string]int{"m1": 3}; !cmp.Equal(got, want) {
			t.Errorf("ChangedPosts() after recording again = %v, want %v", got, want)
		}

		// The posts of a removed drop are left alone.
		mustAddPost(t, db, d, "m2")
		if err := db.RemoveDrop(t.Context(), d.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := changed(t, db); len(got) != 0 {
			t.Errorf("ChangedPosts() of a removed drop = %v, want none", got)
		}
	})
}

func TestDB_ChangedPosts_Concurrent(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "guild")
		d := mustAddDrop(t, db, tn.ID, 1, importedLinks(1, 5))
		mustAddPost(t, db, d, "m1")
		mustAddPost(t, db, d, "m2")
		users := mustUsers(t, db, "u", 3)
		for round, u := range append([]core.User{{}}, users...) {
			if u.ID != 0 {
				if _, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, "", time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			var (
				mu  sync.Mutex
				got = map[string][]int{}
				wg  sync.WaitGroup
			)
			for range 8 {
				wg.Go(func() {
					posts, err := db.ChangedPosts(t.Context(), time.Now())
					if err != nil {
						t.Errorf("ChangedPosts() = %v", err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					for _, p := range posts {
						got[p.Ref.Message] = append(got[p.Ref.Message], p.Available)
					}
				})
			}
			wg.Wait()
			left := 5 - round
			if want := map[string][]int{"m1": {left}, "m2": {left}}; !cmp.Equal(got, want) {
				t.Errorf("round %d: 8 racing ChangedPosts() got %v, want each change once: %v", round, got, want)
			}
		}
	})
}

func TestDB_AddPost(t *testing.T) {
	eachDB(t, func(t *testing.T, db *DB) {
		ref := core.PostRef{Platform: core.Discord, Place: "guild", Channel: "c", Message: "m"}
		err := db.AddPost(t.Context(), core.Post{DropID: 99, Ref: ref, Subject: "drop:1"})
		if !errors.Is(err, core.ErrConflict) {
			t.Errorf("AddPost(unknown drop) = %v, want core.ErrConflict", err)
		}
		tn := mustTenant(t, db, "guild")
		d := mustAddDrop(t, db, tn.ID, 1, importedLinks(1, 1))
		if err := db.AddPost(t.Context(), core.Post{DropID: d.ID, Ref: core.PostRef{Platform: core.Discord}, Subject: "drop:1"}); err == nil {
			t.Error("AddPost(incomplete ref) = nil, want an error")
		}
		got, err := db.DropByID(t.Context(), d.ID)
		if err != nil || got.EventID != 1 {
			t.Errorf("DropByID(%d) = %+v, %v, want event 1", d.ID, got, err)
		}
		if _, err := db.DropByID(t.Context(), 99); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("DropByID(99) = %v, want core.ErrNotFound", err)
		}
	})
}
