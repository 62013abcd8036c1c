package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

// memStore is an in-memory core.MemberStore for the collection tests,
// where the wallet marked primary need not be the first.
type memStore struct {
	users   []core.User
	wallets []core.Wallet
}

func (s *memStore) UpsertPlace(_ context.Context, t core.Place) (core.Place, error) { return t, nil }
func (s *memStore) UpsertUser(_ context.Context, u core.User) (core.User, error) {
	u.ID = int64(len(s.users) + 1)
	s.users = append(s.users, u)
	return u, nil
}
func (s *memStore) FindUser(_ context.Context, p core.Platform, id string) (core.User, error) {
	for _, u := range s.users {
		if u.Platform == p && u.ExternalID == id {
			return u, nil
		}
	}
	return core.User{}, core.ErrNotFound
}
func (s *memStore) UserByID(_ context.Context, id int64) (core.User, error) {
	for _, u := range s.users {
		if u.ID == id {
			return u, nil
		}
	}
	return core.User{}, core.ErrNotFound
}
func (s *memStore) FindUserByName(_ context.Context, p core.Platform, name string) (core.User, error) {
	for _, u := range s.users {
		if u.Platform == p && strings.EqualFold(u.Name, name) {
			return u, nil
		}
	}
	return core.User{}, core.ErrNotFound
}
func (s *memStore) AddWallet(_ context.Context, w core.Wallet) (core.Wallet, error) {
	s.wallets = append(s.wallets, w)
	return w, nil
}
func (s *memStore) Wallets(_ context.Context, userID int64) ([]core.Wallet, error) {
	var out []core.Wallet
	for _, w := range s.wallets {
		if w.UserID == userID {
			out = append(out, w)
		}
	}
	return out, nil
}

// fakeIssuer answers Holdings from a map, and records what it was asked.
type fakeIssuer struct {
	holdings map[string][]core.Holding
	err      error
	asked    []string
}

func (f *fakeIssuer) Holdings(_ context.Context, wallet string) ([]core.Holding, error) {
	f.asked = append(f.asked, wallet)
	return f.holdings[wallet], f.err
}

func day(d int) time.Time { return time.Date(2025, 1, d, 12, 0, 0, 0, time.UTC) }

func TestCollectionService_Collection(t *testing.T) {
	const addr = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
	ctx := context.Background()
	newService := func() (*core.CollectionService, *memStore, *fakeIssuer) {
		store := &memStore{}
		alice, _ := store.UpsertUser(ctx, core.User{Platform: core.Console, ExternalID: "alice", Name: "Alice"})
		store.AddWallet(ctx, core.Wallet{UserID: alice.ID, Kind: core.KindEmail, Value: "alice@example.org"})
		store.AddWallet(ctx, core.Wallet{UserID: alice.ID, Kind: core.KindAddress, Value: addr, Primary: true})
		store.UpsertUser(ctx, core.User{Platform: core.Console, ExternalID: "bob", Name: "Bob"})
		issuer := &fakeIssuer{holdings: map[string][]core.Holding{addr: {
			{DropID: 1, MintedAt: day(1)}, {DropID: 3, MintedAt: day(3)}, {DropID: 2, MintedAt: day(3)},
		}}}
		svc, err := core.NewCollectionService(core.CollectionServiceDeps{Members: store, Scanner: issuer})
		if err != nil {
			t.Fatal(err)
		}
		return svc, store, issuer
	}

	t.Run("OK", func(t *testing.T) {
		svc, _, _ := newService()
		got, err := svc.Collection(ctx, core.Console, "bob", core.CollectionQuery{Wallet: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, h := range got.Holdings {
			ids = append(ids, h.DropID)
		}
		if got.Wallet != addr || !cmp.Equal(ids, []int64{3, 2, 1}) {
			t.Errorf("Collection() = %s %v, want %s [3 2 1] (newest first)", got.Wallet, ids, addr)
		}
	})
	t.Run("CallerPrimaryWallet", func(t *testing.T) {
		svc, _, issuer := newService()
		if _, err := svc.Collection(ctx, core.Console, "alice", core.CollectionQuery{}); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(issuer.asked, []string{addr}) {
			t.Errorf("issuer asked %v, want the primary wallet %s", issuer.asked, addr)
		}
	})
	t.Run("MemberByName", func(t *testing.T) {
		svc, _, issuer := newService()
		if _, err := svc.Collection(ctx, core.Console, "bob", core.CollectionQuery{MemberName: "alice"}); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(issuer.asked, []string{addr}) {
			t.Errorf("issuer asked %v, want %s", issuer.asked, addr)
		}
	})
	t.Run("ErrInvalidWallet", func(t *testing.T) {
		svc, _, issuer := newService()
		_, err := svc.Collection(ctx, core.Console, "bob", core.CollectionQuery{Wallet: "0x12"})
		if !errors.Is(err, core.ErrInvalidWallet) || len(issuer.asked) != 0 {
			t.Errorf("Collection(0x12) = %v (issuer asked %v), want ErrInvalidWallet without a request", err, issuer.asked)
		}
	})
	t.Run("ErrNotLinked", func(t *testing.T) {
		svc, _, _ := newService()
		for _, caller := range []string{"bob", "nobody"} {
			if _, err := svc.Collection(ctx, core.Console, caller, core.CollectionQuery{}); !errors.Is(err, core.ErrNotLinked) {
				t.Errorf("Collection(caller %s) = %v, want ErrNotLinked", caller, err)
			}
		}
	})
	t.Run("ErrUnknownMember", func(t *testing.T) {
		svc, _, _ := newService()
		_, err := svc.Collection(ctx, core.Console, "alice", core.CollectionQuery{MemberName: "carol"})
		if !errors.Is(err, core.ErrUnknownMember) {
			t.Errorf("Collection(member carol) = %v, want ErrUnknownMember", err)
		}
	})
	t.Run("ErrIssuerUnavailable", func(t *testing.T) {
		svc, _, issuer := newService()
		issuer.err = core.ErrIssuerUnavailable
		_, err := svc.Collection(ctx, core.Console, "alice", core.CollectionQuery{})
		if !errors.Is(err, core.ErrIssuerUnavailable) {
			t.Errorf("Collection() = %v, want ErrIssuerUnavailable", err)
		}
	})
}
