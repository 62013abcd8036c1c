package core

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/adraffy/go-ens-normalize/ensip15"
)

// TestENSReason_EveryVector: every name ENSIP-15's vectors refuse is
// refused with a reason of its own, not ensOtherReason, so each error
// class of the pinned normaliser has words a member reads.
func TestENSReason_EveryVector(t *testing.T) {
	b, err := os.ReadFile("testdata/ensip15/tests.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct {
		Name  string `json:"name"`
		Error bool   `json:"error"`
	}
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, v := range vs[1:] {
		if !v.Error {
			continue
		}
		_, err := ensip15.Shared().Normalize(v.Name)
		if err == nil {
			t.Errorf("Normalize(%+q) = nil error, want the vector's error", v.Name)
			continue
		}
		refused++
		if got := ensReason(err); got == ensOtherReason || strings.Contains(got, "{") {
			t.Errorf("ensReason(%v) = %q, want words of its own", err, got)
		}
	}
	if refused == 0 {
		t.Error("no vector refused")
	}
}
