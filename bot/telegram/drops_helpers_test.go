package telegram

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

// testEditCode is the edit code of every drop of stubDrops.
const testEditCode = "739201"

// stubDrops is a core.DropIssuer that knows every drop: each has five
// mint links, and testEditCode as its edit code.
type stubDrops struct{}

func (stubDrops) ValidateEditCode(_ context.Context, _ int64, code core.Secret) (bool, error) {
	return code.Reveal() == testEditCode, nil
}

func (stubDrops) DropDetails(_ context.Context, eventID int64) (core.DropDetails, error) {
	return core.DropDetails{Name: fmt.Sprintf("Drop %d", eventID)}, nil
}

func (stubDrops) MintLinks(_ context.Context, eventID int64, _ core.Secret) ([]core.ImportedMintLink, error) {
	links := make([]core.ImportedMintLink, 5)
	for i := range links {
		links[i].QRHash = fmt.Sprintf("q%d%d", eventID, i)
	}
	return links, nil
}

func (stubDrops) ClaimStatus(context.Context, string) (core.MintLinkStatus, error) {
	return core.MintLinkStatus{Active: true}, nil
}

func (stubDrops) Mint(context.Context, string, string) (string, error) { return "", nil }

func (stubDrops) RequestMintLinks(context.Context, int64, core.Secret, int) error { return nil }

func (stubDrops) PendingMintLinkRequests(context.Context, int64) (int, error) { return 0, nil }

// dropsEnv is an env whose bot has drops: an in-memory store and
// stubDrops; the bot is the adapter's DropPlacer.
type dropsEnv struct {
	*env
	svc *core.DropService
}

func newDropsEnv(t *testing.T) *dropsEnv {
	t.Helper()
	e := newEnvWith(t, coretest.Deps{Scanner: stubIssuer{}, Issuer: stubDrops{}, MintURL: "https://mint.test"}, Options{})
	return &dropsEnv{env: e, svc: e.svc.Drops}
}

// addDrop sets the drop up in the group, with links delivered as links.
func (e *dropsEnv) addDrop(t *testing.T, groupID int64, title string, eventID int64, requiredRole string) {
	t.Helper()
	place := core.Place{Platform: core.Telegram, ExternalID: strconv.FormatInt(groupID, 10), Name: title}
	mod := core.Member{Platform: core.Telegram, ExternalID: "900", Name: "mod"}
	opts := core.AddDropOptions{EventID: eventID, EditCode: testEditCode, Method: core.ClaimLink, RequiredRole: requiredRole}
	if _, err := e.svc.AddDrop(t.Context(), mod, place, opts); err != nil {
		t.Fatalf("AddDrop(%d in %d) = %v", eventID, groupID, err)
	}
}
