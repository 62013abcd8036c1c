package storage

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/core"
)

// newMoment returns an unsaved post of u to drop 7 in the tenant, with
// key, one photo as the platform described it, created at t0.
func newMoment(tenantID int64, u core.User, key string) core.MomentRecord {
	return core.MomentRecord{
		PlaceID:     tenantID,
		UserID:      u.ID,
		Member:      u.ExternalID,
		Key:         key,
		DropID:      7,
		Description: "at the venue",
		Channel:     "channel-1",
		Files:       []core.MomentFile{{MediaRef: core.MediaRef{Ref: "ref-1", Name: "a.jpg", Type: "image/jpeg", Size: 1234}}},
		CreatedAt:   t0,
	}
}

// mustAddMoment adds r or fails the test.
func mustAddMoment(t *testing.T, db *DB, r core.MomentRecord) core.MomentRecord {
	t.Helper()
	out, err := db.AddMoment(t.Context(), r)
	if err != nil {
		t.Fatalf("AddMoment(key %q) = %v", r.Key, err)
	}
	return out
}

// momentByID reads the post, or fails the test.
func momentByID(t *testing.T, db *DB, id int64) core.MomentRecord {
	t.Helper()
	got, err := db.moments(t.Context(), "test", " WHERE m.id = ?", id)
	if err != nil || len(got) != 1 {
		t.Fatalf("moment #%d = %+v, %v, want one", id, got, err)
	}
	return got[0]
}

func TestDB_AddMoment(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "moments")
		other := mustTenant(t, db, "elsewhere")
		u := mustUpsertUser(t, db, core.Discord, "poster", "Poster")
		t.Run("OK", func(t *testing.T) {
			in := newMoment(tn.ID, u, "event-1")
			got := mustAddMoment(t, db, in)
			want := in
			want.ID, want.Platform, want.Place = got.ID, core.Discord, "moments"
			want.State, want.UpdatedAt = core.MomentUploading, t0
			if got.ID == 0 || !cmp.Equal(got, want) {
				t.Errorf("AddMoment() = %+v, want %+v", got, want)
			}
			if read := momentByID(t, db, got.ID); !cmp.Equal(read, want) {
				t.Errorf("stored moment = %+v, want %+v", read, want)
			}
		})
		t.Run("KeepsState", func(t *testing.T) {
			in := newMoment(tn.ID, u, "event-state")
			in.State = core.MomentProcessing
			if got := mustAddMoment(t, db, in); got.State != core.MomentProcessing {
				t.Errorf("AddMoment(processing) state = %q, want %q", got.State, core.MomentProcessing)
			}
		})
		t.Run("ErrConflict", func(t *testing.T) {
			first := mustAddMoment(t, db, newMoment(tn.ID, u, "event-2"))
			again := newMoment(tn.ID, u, "event-2")
			again.Description, again.DropID, again.CreatedAt = "redelivered", 8, t0.Add(time.Minute)
			got, err := db.AddMoment(t.Context(), again)
			if !errors.Is(err, core.ErrConflict) || !cmp.Equal(got, first) {
				t.Errorf("AddMoment(same key) = %+v, %v, want %+v and %v", got, err, first, core.ErrConflict)
			}
			if n := count(t, db, "moments", "tenant_id = ? AND request_key = ?", tn.ID, "event-2"); n != 1 {
				t.Errorf("moments with the key = %d, want 1", n)
			}
		})
		t.Run("OtherTenantSameKey", func(t *testing.T) {
			a := mustAddMoment(t, db, newMoment(tn.ID, u, "event-3"))
			b, err := db.AddMoment(t.Context(), newMoment(other.ID, u, "event-3"))
			if err != nil || b.ID == a.ID || b.Place != "elsewhere" {
				t.Errorf("AddMoment(same key, other tenant) = %+v, %v, want a new post in elsewhere", b, err)
			}
		})
		t.Run("EmptyKeys", func(t *testing.T) {
			a := mustAddMoment(t, db, newMoment(tn.ID, u, ""))
			b := mustAddMoment(t, db, newMoment(tn.ID, u, ""))
			if a.ID == b.ID || a.Key != "" || b.Key != "" {
				t.Errorf("AddMoment(no key) twice = #%d %q, #%d %q, want two posts without keys", a.ID, a.Key, b.ID, b.Key)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			if _, err := db.AddMoment(t.Context(), newMoment(tn.ID+1000, u, "x")); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("AddMoment(unknown tenant) = %v, want %v", err, core.ErrNotFound)
			}
			ghost := u
			ghost.ID += 1000
			if _, err := db.AddMoment(t.Context(), newMoment(tn.ID, ghost, "y")); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("AddMoment(unknown user) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("Refused", func(t *testing.T) {
			bad := newMoment(tn.ID, u, "bad-state")
			bad.State = "lost"
			if _, err := db.AddMoment(t.Context(), bad); err == nil {
				t.Errorf("AddMoment(state lost) = nil error, want one")
			}
			bad = newMoment(tn.ID, u, "no-member")
			bad.Member = ""
			if _, err := db.AddMoment(t.Context(), bad); err == nil {
				t.Errorf("AddMoment(no member) = nil error, want one")
			}
			// The database refuses an unknown state on its own.
			err := db.gorm.Exec(`INSERT INTO moments (tenant_id, user_id, member, request_key, drop_id, files, state, created_at, updated_at)
				VALUES (?, ?, 'm', '', 7, '[]', 'lost', ?, ?)`, tn.ID, u.ID, t0, t0).Error
			if err == nil {
				t.Errorf("insert of a moment in state lost = nil error, want a constraint violation")
			}
		})
	})
}

// TestDB_AddMoment_Concurrent: replicas recording the same redelivered
// request record it once, and all learn which post has it.
func TestDB_AddMoment_Concurrent(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		const n = 8
		dbs := replicas(t, newURL(), n)
		tn := mustTenant(t, dbs[0], "race")
		u := mustUpsertUser(t, dbs[0], core.Discord, "racer", "")
		got := make([]core.MomentRecord, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				in := newMoment(tn.ID, u, "same-event")
				in.Description = fmt.Sprintf("replica %d", i)
				got[i], errs[i] = dbs[i].AddMoment(t.Context(), in)
			})
		}
		wg.Wait()
		var winner int64
		for i, err := range errs {
			if err == nil {
				if winner != 0 {
					t.Errorf("AddMoment #%d recorded #%d, and #%d was recorded already", i, got[i].ID, winner)
				}
				winner = got[i].ID
			} else if !errors.Is(err, core.ErrConflict) {
				t.Errorf("AddMoment #%d = %v, want nil or %v", i, err, core.ErrConflict)
			}
		}
		if winner == 0 {
			t.Fatal("no AddMoment recorded the post")
		}
		for i := range n {
			if got[i].ID != winner {
				t.Errorf("AddMoment #%d = post #%d, want #%d", i, got[i].ID, winner)
			}
		}
		if c := count(t, dbs[0], "moments", "tenant_id = ?", tn.ID); c != 1 {
			t.Errorf("moments of the tenant = %d, want 1", c)
		}
	})
}

func TestDB_UpdateMoment(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "update")
		u := mustUpsertUser(t, db, core.Telegram, "42", "")
		t.Run("OK", func(t *testing.T) {
			m := mustAddMoment(t, db, newMoment(tn.ID, u, "event-1"))
			m.Author, m.State, m.MomentID, m.Error = "0x"+fmt.Sprintf("%040x", 1), core.MomentPosted, "moment-uuid", "half-way"
			m.Files = []core.MomentFile{
				{
					MediaRef: core.MediaRef{Ref: "ref-1", Name: `a "b".jpg`, Type: "image/jpeg", Size: 1234, Unavailable: "too big"},
					Sniffed:  "image/png", HeadHash: "head", Hash: "whole", Bytes: 1 << 40, Key: "media-key",
				},
				{MediaRef: core.MediaRef{Ref: "ref-2"}},
			}
			// What UpdateMoment does not write stays as it was.
			changed := m
			changed.Description, changed.Channel, changed.DropID, changed.Key = "edited", "other", 99, "other-key"
			before := now()
			if err := db.UpdateMoment(t.Context(), changed); err != nil {
				t.Fatalf("UpdateMoment() = %v", err)
			}
			after := now()
			got := momentByID(t, db, m.ID)
			if got.UpdatedAt.Before(before) || got.UpdatedAt.After(after) {
				t.Errorf("UpdatedAt = %v, want between %v and %v", got.UpdatedAt, before, after)
			}
			m.UpdatedAt = got.UpdatedAt
			if diff := cmp.Diff(m, got); diff != "" {
				t.Errorf("moment after UpdateMoment() differs (-want +got):\n%s", diff)
			}
		})
		t.Run("NoFiles", func(t *testing.T) {
			m := mustAddMoment(t, db, newMoment(tn.ID, u, "event-2"))
			m.Files, m.State, m.Error = nil, core.MomentFailed, "gone"
			if err := db.UpdateMoment(t.Context(), m); err != nil {
				t.Fatalf("UpdateMoment() = %v", err)
			}
			if got := momentByID(t, db, m.ID); got.Files != nil || got.State != core.MomentFailed {
				t.Errorf("moment = files %+v, state %q; want none, failed", got.Files, got.State)
			}
		})
		t.Run("ErrNotFound", func(t *testing.T) {
			m := newMoment(tn.ID, u, "")
			m.ID, m.State = 999999, core.MomentPosted
			if err := db.UpdateMoment(t.Context(), m); !errors.Is(err, core.ErrNotFound) {
				t.Errorf("UpdateMoment(unknown) = %v, want %v", err, core.ErrNotFound)
			}
		})
		t.Run("UnknownState", func(t *testing.T) {
			m := mustAddMoment(t, db, newMoment(tn.ID, u, "event-3"))
			m.State = ""
			if err := db.UpdateMoment(t.Context(), m); err == nil {
				t.Errorf("UpdateMoment(no state) = nil error, want one")
			}
		})
	})
}

// withHash gives m's file the head hash h.
func withHash(m core.MomentRecord, h string) core.MomentRecord {
	m.Files = []core.MomentFile{{MediaRef: m.Files[0].MediaRef, HeadHash: h}}
	return m
}

func TestDB_AddMoment_RepeatedFile(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn, other := mustTenant(t, db, "mine"), mustTenant(t, db, "other")
		users := mustUsers(t, db, "member", 2)
		first := mustAddMoment(t, db, withHash(newMoment(tn.ID, users[0], "k1"), "h1"))
		for name, in := range map[string]core.MomentRecord{
			"same place":    withHash(newMoment(tn.ID, users[0], "k2"), "h1"),
			"another place": withHash(newMoment(other.ID, users[0], "k3"), "h1"),
		} {
			_, err := db.AddMoment(t.Context(), in)
			var rep *core.MomentRepeatError
			if !errors.As(err, &rep) || rep.First.ID != first.ID || rep.File != 0 {
				t.Errorf("AddMoment(the same file, %s) = %v, want a repeat of #%d", name, err, first.ID)
			}
		}
		if c := count(t, db, "moments", "user_id = ?", users[0].ID); c != 1 {
			t.Errorf("the repeats recorded posts: %d, want 1", c)
		}
		otherDrop := withHash(newMoment(tn.ID, users[0], "k4"), "h1")
		otherDrop.DropID = 8
		mustAddMoment(t, db, otherDrop)
		mustAddMoment(t, db, withHash(newMoment(tn.ID, users[1], "k5"), "h1"))
		twice := withHash(newMoment(tn.ID, users[0], "k6"), "h2")
		twice.Files = append(twice.Files, twice.Files[0])
		mustAddMoment(t, db, twice)

		// A failed post gives its file up.
		first.State, first.Error = core.MomentFailed, "refused"
		if err := db.UpdateMoment(t.Context(), first); err != nil {
			t.Fatal(err)
		}
		mustAddMoment(t, db, withHash(newMoment(tn.ID, users[0], "k7"), "h1"))
	})
}

// TestDB_AddMoment_RepeatedFileConcurrent: posts of the same file with
// different keys at once, on separate handles: one is recorded.
func TestDB_AddMoment_RepeatedFileConcurrent(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		const n = 8
		dbs := replicas(t, newURL(), n)
		tn := mustTenant(t, dbs[0], "race")
		u := mustUpsertUser(t, dbs[0], core.Discord, "racer", "")
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = dbs[i].AddMoment(t.Context(), withHash(newMoment(tn.ID, u, fmt.Sprint("key-", i)), "same"))
			})
		}
		wg.Wait()
		recorded := 0
		for i, err := range errs {
			switch {
			case err == nil:
				recorded++
			case !errors.Is(err, core.ErrMomentRepeat):
				t.Errorf("AddMoment #%d = %v, want nil or a repeat", i, err)
			}
		}
		if recorded != 1 {
			t.Errorf("%d posts of the same file recorded, want 1", recorded)
		}
	})
}

// TestDB_AddMoment_FilesInOtherOrders: two posts of the same two files in
// other orders, at once, never deadlock: one is recorded, the other is a
// repeat.
func TestDB_AddMoment_FilesInOtherOrders(t *testing.T) {
	t.Parallel()
	eachMigrated(t, func(t *testing.T, newURL func() string) {
		dbs := replicas(t, newURL(), 2)
		tn := mustTenant(t, dbs[0], "orders")
		u := mustUpsertUser(t, dbs[0], core.Discord, "orderly", "")
		for round := range 20 {
			h1, h2 := fmt.Sprint("a", round), fmt.Sprint("b", round)
			posts := [2]core.MomentRecord{withHash(newMoment(tn.ID, u, ""), h1), withHash(newMoment(tn.ID, u, ""), h2)}
			posts[0].Files = append(posts[0].Files, core.MomentFile{MediaRef: posts[0].Files[0].MediaRef, HeadHash: h2})
			posts[1].Files = append(posts[1].Files, core.MomentFile{MediaRef: posts[1].Files[0].MediaRef, HeadHash: h1})
			var errs [2]error
			var wg sync.WaitGroup
			for i := range 2 {
				wg.Go(func() { _, errs[i] = dbs[i].AddMoment(t.Context(), posts[i]) })
			}
			wg.Wait()
			if (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("round %d: AddMoment = %v, %v; want one recorded and one repeat", round, errs[0], errs[1])
			}
			for _, err := range errs {
				if err != nil && !errors.Is(err, core.ErrMomentRepeat) {
					t.Fatalf("round %d: AddMoment = %v, want a repeat", round, err)
				}
			}
		}
	})
}

func TestDB_TouchMoment(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "mine")
		u := mustUpsertUser(t, db, core.Discord, "toucher", "")
		m := mustAddMoment(t, db, newMoment(tn.ID, u, "k"))
		if err := db.TouchMoment(t.Context(), m.ID); err != nil {
			t.Fatal(err)
		}
		if got := momentByID(t, db, m.ID); !got.UpdatedAt.After(m.UpdatedAt) {
			t.Errorf("UpdatedAt after TouchMoment = %v, want after %v", got.UpdatedAt, m.UpdatedAt)
		}
		if err := db.TouchMoment(t.Context(), m.ID+100); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("TouchMoment(unknown) = %v, want ErrNotFound", err)
		}
	})
}

func TestDB_CountMoments(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		a, b := mustTenant(t, db, "a"), mustTenant(t, db, "b")
		users := mustUsers(t, db, "counted", 2)
		add := func(tenantID int64, u core.User, at time.Time, state core.MomentState) {
			m := newMoment(tenantID, u, "")
			m.CreatedAt, m.State = at, state
			mustAddMoment(t, db, m)
		}
		since := t0.Add(-time.Hour)
		add(a.ID, users[0], since, core.MomentPosted)                        // at since: counted
		add(b.ID, users[0], t0, core.MomentUploading)                        // another tenant: counted
		add(a.ID, users[0], t0, core.MomentProcessing)                       // counted
		add(a.ID, users[0], t0, core.MomentFailed)                           // failed
		add(a.ID, users[0], since.Add(-time.Microsecond), core.MomentPosted) // older
		add(a.ID, users[1], t0, core.MomentPosted)                           // another member

		if got, err := db.CountMoments(t.Context(), users[0].ID, since); err != nil || got != 3 {
			t.Errorf("CountMoments() = %d, %v, want 3", got, err)
		}
		// A time in another zone is the same instant.
		cet := since.In(time.FixedZone("CET", 3600))
		if got, err := db.CountMoments(t.Context(), users[0].ID, cet); err != nil || got != 3 {
			t.Errorf("CountMoments(since in CET) = %d, %v, want 3", got, err)
		}
		if got, err := db.CountMoments(t.Context(), users[1].ID+1000, since); err != nil || got != 0 {
			t.Errorf("CountMoments(unknown user) = %d, %v, want 0", got, err)
		}
	})
}

func TestDB_UnfinishedMoments(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		server := mustTenant(t, db, "server")
		chat, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Telegram, ExternalID: "-100"})
		if err != nil {
			t.Fatal(err)
		}
		u := mustUpsertUser(t, db, core.Discord, "unfinished", "")
		add := func(tenantID int64, at time.Time, state core.MomentState) core.MomentRecord {
			m := newMoment(tenantID, u, "")
			m.CreatedAt, m.State = at, state
			return mustAddMoment(t, db, m)
		}
		late := add(server.ID, t0.Add(time.Hour), core.MomentUploading)
		early := add(chat.ID, t0, core.MomentProcessing)
		add(server.ID, t0, core.MomentPosted)
		add(server.ID, t0, core.MomentFailed)
		finishing := add(server.ID, t0.Add(30*time.Minute), core.MomentProcessing)

		got, err := db.UnfinishedMoments(t.Context())
		if diff := cmp.Diff([]core.MomentRecord{early, finishing, late}, got); err != nil || diff != "" {
			t.Errorf("UnfinishedMoments() = %v, diff (-want +got):\n%s", err, diff)
		}
		if early.Platform != core.Telegram || early.Place != "-100" {
			t.Errorf("AddMoment(telegram) = platform %q, place %q; want telegram, -100", early.Platform, early.Place)
		}
		finishing.State = core.MomentPosted
		if err := db.UpdateMoment(t.Context(), finishing); err != nil {
			t.Fatal(err)
		}
		got, err = db.UnfinishedMoments(t.Context())
		if diff := cmp.Diff([]core.MomentRecord{early, late}, got); err != nil || diff != "" {
			t.Errorf("UnfinishedMoments(after one posted) = %v, diff (-want +got):\n%s", err, diff)
		}
	})
}

func TestDB_MomentsOff(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn, other := mustTenant(t, db, "switch"), mustTenant(t, db, "untouched")
		if off, err := db.MomentsOff(t.Context(), tn.ID); err != nil || off {
			t.Errorf("MomentsOff(never set) = %v, %v, want false", off, err)
		}
		for _, want := range []bool{true, true, false} {
			if err := db.SetMomentsOff(t.Context(), tn.ID, want); err != nil {
				t.Fatalf("SetMomentsOff(%v) = %v", want, err)
			}
			if off, err := db.MomentsOff(t.Context(), tn.ID); err != nil || off != want {
				t.Errorf("MomentsOff() after SetMomentsOff(%v) = %v, %v, want %v", want, off, err, want)
			}
		}
		if err := db.SetMomentsOff(t.Context(), tn.ID, true); err != nil {
			t.Fatal(err)
		}
		if off, err := db.MomentsOff(t.Context(), other.ID); err != nil || off {
			t.Errorf("MomentsOff(another tenant) = %v, %v, want false", off, err)
		}
		// Refreshing the tenant keeps the setting.
		if _, err := db.UpsertPlace(t.Context(), core.Place{Platform: core.Discord, ExternalID: "switch", Name: "renamed"}); err != nil {
			t.Fatal(err)
		}
		if off, err := db.MomentsOff(t.Context(), tn.ID); err != nil || !off {
			t.Errorf("MomentsOff(after UpsertTenant) = %v, %v, want true", off, err)
		}
		if err := db.SetMomentsOff(t.Context(), 999999, true); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("SetMomentsOff(unknown tenant) = %v, want %v", err, core.ErrNotFound)
		}
		if _, err := db.MomentsOff(t.Context(), 999999); !errors.Is(err, core.ErrNotFound) {
			t.Errorf("MomentsOff(unknown tenant) = %v, want %v", err, core.ErrNotFound)
		}
	})
}

// TestDB_ForgetUser_Moments: forgetting a member deletes their posts, and
// only theirs.
func TestDB_ForgetUser_Moments(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *DB) {
		tn := mustTenant(t, db, "forget")
		users := mustUsers(t, db, "forget", 2)
		mustAddMoment(t, db, newMoment(tn.ID, users[0], "a"))
		mustAddMoment(t, db, newMoment(tn.ID, users[0], "b"))
		kept := mustAddMoment(t, db, newMoment(tn.ID, users[1], "c"))
		if _, err := db.ForgetUser(t.Context(), core.Discord, users[0].ExternalID); err != nil {
			t.Fatalf("ForgetUser() = %v", err)
		}
		if n := count(t, db, "moments", "user_id = ?", users[0].ID); n != 0 {
			t.Errorf("moments of the forgotten member = %d, want 0", n)
		}
		got, err := db.UnfinishedMoments(t.Context())
		if diff := cmp.Diff([]core.MomentRecord{kept}, got); err != nil || diff != "" {
			t.Errorf("UnfinishedMoments(after ForgetUser) = %v, diff (-want +got):\n%s", err, diff)
		}
		// The key of a forgotten post is free again.
		if _, err := db.AddMoment(t.Context(), newMoment(tn.ID, users[1], "a")); err != nil {
			t.Errorf("AddMoment(key of a forgotten post) = %v, want nil", err)
		}
	})
}
