package storage

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// takeLow returns the messages of TakeLowStockPosts or fails the test.
func takeLow(t *testing.T, db *DB) []string {
	t.Helper()
	posts, err := db.TakeLowStockPosts(t.Context())
	if err != nil {
		t.Fatalf("TakeLowStockPosts() = %v", err)
	}
	var out []string
	for _, p := range posts {
		out = append(out, p.Ref.Message)
	}
	return out
}

func TestDB_TakeLowStockPosts(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "low-notice")
		users := mustUsers(t, db, "low-notice", 3)
		in := newDrop(tn.ID, 711)
		in.LowStock = 2
		d, _, err := db.AddDrop(t.Context(), in, importedLinks(711, 3))
		if err != nil {
			t.Fatal(err)
		}
		mustAddPost(t, db, d, "m1")
		mustAddPost(t, db, d, "m2")
		runLow := func(u core.User) {
			t.Helper()
			if _, _, err := db.ClaimMintLink(t.Context(), d.ID, u.ID, "", time.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := db.NoteLowStock(t.Context(), d.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}

		if got := takeLow(t, db); len(got) != 0 {
			t.Errorf("TakeLowStockPosts(stock above the threshold) = %v, want none", got)
		}
		runLow(users[0])
		runLow(users[1])
		if got, want := takeLow(t, db), []string{"m1", "m2"}; !cmp.Equal(got, want) {
			t.Errorf("TakeLowStockPosts(ran low) = %v, want %v", got, want)
		}
		if got := takeLow(t, db); len(got) != 0 {
			t.Errorf("TakeLowStockPosts(taken already) = %v, want none", got)
		}

		// A refresh with new links re-arms the notice.
		if _, _, err := db.ImportMintLinks(t.Context(), d.ID, []core.ImportedMintLink{{QRHash: "low-notice-more"}}); err != nil {
			t.Fatal(err)
		}
		if got := takeLow(t, db); len(got) != 0 {
			t.Errorf("TakeLowStockPosts(after a refresh) = %v, want none", got)
		}
		runLow(users[2])
		if got, want := takeLow(t, db), []string{"m1", "m2"}; !cmp.Equal(got, want) {
			t.Errorf("TakeLowStockPosts(ran low again) = %v, want %v", got, want)
		}

		// A removed drop gets no notice.
		in2 := newDrop(tn.ID, 712)
		in2.LowStock = 5
		d2, _, err := db.AddDrop(t.Context(), in2, importedLinks(712, 1))
		if err != nil {
			t.Fatal(err)
		}
		mustAddPost(t, db, d2, "m3")
		if _, err := db.NoteLowStock(t.Context(), d2.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := db.RemoveDrop(t.Context(), d2.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := takeLow(t, db); len(got) != 0 {
			t.Errorf("TakeLowStockPosts(removed drop) = %v, want none", got)
		}
	})
}

// A drop that ran low before it was distributed is announced once it is.
func TestDB_TakeLowStockPosts_PostedLater(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "low-later")
		in := newDrop(tn.ID, 721)
		in.LowStock = 5
		d, _, err := db.AddDrop(t.Context(), in, importedLinks(721, 2))
		if err != nil {
			t.Fatal(err)
		}
		if first, err := db.NoteLowStock(t.Context(), d.ID, time.Now()); err != nil || !first {
			t.Fatalf("NoteLowStock() = %v, %v; want true", first, err)
		}
		if got := takeLow(t, db); len(got) != 0 {
			t.Errorf("TakeLowStockPosts(no post) = %v, want none", got)
		}
		mustAddPost(t, db, d, "m1")
		if got, want := takeLow(t, db), []string{"m1"}; !cmp.Equal(got, want) {
			t.Errorf("TakeLowStockPosts(posted since) = %v, want %v", got, want)
		}
	})
}

// Of callers racing, one only gets a shortage's posts.
func TestDB_TakeLowStockPosts_Concurrent(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "low-race")
		in := newDrop(tn.ID, 731)
		in.LowStock = 5
		d, _, err := db.AddDrop(t.Context(), in, importedLinks(731, 2))
		if err != nil {
			t.Fatal(err)
		}
		mustAddPost(t, db, d, "m1")
		if _, err := db.NoteLowStock(t.Context(), d.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		const callers = 8
		var (
			mu    sync.Mutex
			total int
			wg    sync.WaitGroup
		)
		for range callers {
			wg.Go(func() {
				posts, err := db.TakeLowStockPosts(t.Context())
				if err != nil {
					t.Errorf("TakeLowStockPosts() = %v", err)
				}
				mu.Lock()
				total += len(posts)
				mu.Unlock()
			})
		}
		wg.Wait()
		if total != 1 {
			t.Errorf("%d callers racing got %d posts in all, want 1", callers, total)
		}
	})
}
