package core_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/core"
)

func TestDropService_DropPlaces(t *testing.T) {
	t.Parallel()
	dt := newDropTest(t)
	dt.issuer.addEvent(eventID, editCode, 5, 0)
	groupA := core.Place{Platform: core.Telegram, ExternalID: "-1001", Name: "A"}
	groupB := core.Place{Platform: core.Telegram, ExternalID: "-1002", Name: "B"}
	groupC := core.Place{Platform: core.Telegram, ExternalID: "-1003", Name: "C"}
	guild := core.Place{Platform: core.Discord, ExternalID: "guild", Name: "Guild"}
	mod := core.Member{Platform: core.Telegram, ExternalID: "900", Name: "Mod"}
	for _, p := range []core.Place{groupA, groupB, groupC, guild} {
		m := mod
		m.Platform = p.Platform
		if _, err := dt.svc.AddDrop(t.Context(), m, p, core.AddDropOptions{EventID: eventID, EditCode: editCode}); err != nil {
			t.Fatalf("AddDrop(%s) = %v", p.ExternalID, err)
		}
	}
	if _, err := dt.svc.RemoveDrop(t.Context(), mod, groupB, eventID); err != nil {
		t.Fatalf("RemoveDrop() = %v", err)
	}

	t.Run("OK", func(t *testing.T) {
		got, err := dt.svc.DropPlaces(t.Context(), core.Telegram, eventID)
		if err != nil {
			t.Fatalf("DropPlaces() = %v", err)
		}
		if want := []core.Place{groupA, groupC}; !cmp.Equal(got, want) {
			t.Errorf("DropPlaces(telegram, %d) = %+v, want %+v", eventID, got, want)
		}
	})
	t.Run("None", func(t *testing.T) {
		for _, id := range []int64{0, -1, eventID + 1} {
			got, err := dt.svc.DropPlaces(t.Context(), core.Telegram, id)
			if err != nil || len(got) != 0 {
				t.Errorf("DropPlaces(telegram, %d) = %+v, %v; want none", id, got, err)
			}
		}
	})
	t.Run("UnknownPlatform", func(t *testing.T) {
		if _, err := dt.svc.DropPlaces(t.Context(), "irc", eventID); err == nil {
			t.Error("DropPlaces(irc) = nil error, want one")
		}
	})
}
