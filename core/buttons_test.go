package core_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

func newButtons(t *testing.T) (*core.ButtonService, *coretest.Clock) {
	t.Helper()
	clock := coretest.NewClock(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
	s, err := core.NewButtonService(core.ButtonServiceDeps{Store: coretest.NewMemStore(), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return s, clock
}

func TestButtonService_Make(t *testing.T) {
	s, _ := newButtons(t)
	a := core.ButtonAction{Platform: core.Telegram, Place: "-100", Member: "7", Line: "/poaps page:2"}
	made, err := s.Make(t.Context(), a, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(made.ID) != core.ButtonIDLen || strings.Trim(made.ID, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		t.Errorf("Make() id = %q, want %d characters of base32", made.ID, core.ButtonIDLen)
	}
	again, err := s.Make(t.Context(), a, time.Hour)
	if err != nil || again.ID != made.ID {
		t.Errorf("Make(the same action) = %q, %v; want the same id %q", again.ID, err, made.ID)
	}
	other, err := s.Make(t.Context(), core.ButtonAction{Platform: core.Telegram, Place: "-100", Member: "8", Line: a.Line}, time.Hour)
	if err != nil || other.ID == made.ID {
		t.Errorf("Make(for another member) = %q, %v; want another id", other.ID, err)
	}
	for _, bad := range []core.ButtonAction{
		{Place: "-100", Line: "/help"},
		{Platform: core.Telegram, Line: "/help"},
		{Platform: core.Telegram, Place: "-100"},
	} {
		if _, err := s.Make(t.Context(), bad, 0); err == nil {
			t.Errorf("Make(%+v) = nil, want an error", bad)
		}
	}
}

func TestButtonService_Open(t *testing.T) {
	s, clock := newButtons(t)
	ctx := t.Context()
	mine, err := s.Make(ctx, core.ButtonAction{Platform: core.Telegram, Place: "-100", Member: "7", Line: "/poaps page:2"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	anyone, err := s.Make(ctx, core.ButtonAction{Platform: core.Telegram, Place: "-100", Line: "/claim 5"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := func(place, member string) core.Presser {
		return core.Presser{Platform: core.Telegram, Place: place, Member: member}
	}
	t.Run("OK", func(t *testing.T) {
		if a, err := s.Open(ctx, mine.ID, at("-100", "7")); err != nil || a.Line != "/poaps page:2" {
			t.Errorf("Open(own button) = %+v, %v; want its line", a, err)
		}
		if a, err := s.Open(ctx, anyone.ID, at("-100", "9")); err != nil || a.Line != "/claim 5" {
			t.Errorf("Open(anyone's button) = %+v, %v; want its line", a, err)
		}
	})
	t.Run("ErrButtonNotYours", func(t *testing.T) {
		if _, err := s.Open(ctx, mine.ID, at("-100", "8")); !errors.Is(err, core.ErrButtonNotYours) {
			t.Errorf("Open(another's button) = %v, want ErrButtonNotYours", err)
		}
	})
	t.Run("ErrButtonUnknown", func(t *testing.T) {
		for name, tt := range map[string]struct {
			id string
			p  core.Presser
		}{
			"other place":    {mine.ID, at("-101", "7")},
			"other platform": {anyone.ID, core.Presser{Platform: core.Discord, Place: "-100", Member: "7"}},
			"never made":     {strings.Repeat("A", core.ButtonIDLen), at("-100", "7")},
			"a command line": {"forget", at("-100", "7")},
			"not base32":     {strings.Repeat("a", core.ButtonIDLen), at("-100", "7")},
			"empty":          {"", at("-100", "7")},
		} {
			if _, err := s.Open(ctx, tt.id, tt.p); !errors.Is(err, core.ErrButtonUnknown) {
				t.Errorf("%s: Open(%q) = %v, want ErrButtonUnknown", name, tt.id, err)
			}
		}
	})
	t.Run("ErrButtonExpired", func(t *testing.T) {
		clock.Add(time.Hour)
		if _, err := s.Open(ctx, mine.ID, at("-100", "7")); !errors.Is(err, core.ErrButtonExpired) {
			t.Errorf("Open(after its hour) = %v, want ErrButtonExpired", err)
		}
		if _, err := s.Peek(ctx, mine.ID); !errors.Is(err, core.ErrButtonExpired) {
			t.Errorf("Peek(after its hour) = %v, want ErrButtonExpired", err)
		}
		if _, err := s.Open(ctx, anyone.ID, at("-100", "7")); err != nil {
			t.Errorf("Open(a button without expiry) = %v, want it to work", err)
		}
	})
}
