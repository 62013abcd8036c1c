package console

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// Roles are the console's roles: it keeps them itself and prints every
// change, so that a whole gate can be rehearsed with -sandbox -console. It
// is the console's core.GateActions.
type Roles struct {
	c       *Console
	mu      sync.Mutex
	members map[string]map[string]bool
}

var _ core.GateActions = (*Roles)(nil)

// GateActions returns the console's roles, the actions of its gates.
func (c *Console) GateActions() core.GateActions { return c.roles }

// Members returns the members who have role, sorted.
func (r *Roles) Members(role string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for m := range r.members[roleKey(role)] {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Set gives role to member or takes it, as a moderator would by hand.
func (r *Roles) Set(role, member string, has bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setLocked(roleKey(role), member, has)
}

func (r *Roles) setLocked(key, member string, has bool) {
	if r.members[key] == nil {
		r.members[key] = map[string]bool{}
	}
	if has {
		r.members[key][member] = true
	} else {
		delete(r.members[key], member)
	}
}

// roleKey is a role's id: its name without a leading @, in lower case.
func roleKey(name string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "@"))
}

// Prepare creates the role if the console does not have it yet. The
// console refuses only @everyone, which every member has.
func (r *Roles) Prepare(_ context.Context, _ string, target string) (core.GateTarget, error) {
	key := roleKey(target)
	if key == "" || key == "everyone" {
		return core.GateTarget{}, &core.GateProblem{Reason: "every member has @everyone, so it cannot be gated",
			Fix: "name a role of its own, like role:holders"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.members[key] == nil {
		r.members[key] = map[string]bool{}
	}
	return core.GateTarget{ID: key, Name: strings.TrimPrefix(strings.TrimSpace(target), "@"), Kind: core.GateRole}, nil
}

// Check always passes: the console manages its own roles.
func (r *Roles) Check(context.Context, string, core.GateTarget) error { return nil }

// Standing says whether member has the role (by its id or its name, as a
// delivery names it); every console member is in the console and has
// @everyone.
func (r *Roles) Standing(_ context.Context, _ string, t core.GateTarget, member string) (core.Standing, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := roleKey(t.ID)
	return core.Standing{InPlace: true, Has: key == "everyone" || r.members[key][member]}, nil
}

// Grant gives the role and prints it.
func (r *Roles) Grant(_ context.Context, _ string, t core.GateTarget, member string) error {
	r.mu.Lock()
	r.setLocked(t.ID, member, true)
	r.mu.Unlock()
	r.c.printf("[roles] %s gained the role %s\n", member, t.Name)
	return nil
}

// Revoke takes the role back and prints it.
func (r *Roles) Revoke(_ context.Context, _ string, t core.GateTarget, member string) error {
	r.mu.Lock()
	r.setLocked(t.ID, member, false)
	r.mu.Unlock()
	r.c.printf("[roles] %s lost the role %s\n", member, t.Name)
	return nil
}

// Decline has nothing to decline: the console has no groups.
func (r *Roles) Decline(context.Context, string, core.GateTarget, string) error { return nil }

// Tell prints a notice to a member.
func (r *Roles) Tell(_ context.Context, member string, n core.GateNotice) error {
	r.c.printf("[to %s] %s\n", member, bot.PlainText(bot.GateNoticeText(n, capabilities)))
	return nil
}

// Announce prints a notice to the moderators.
func (r *Roles) Announce(_ context.Context, _, _ string, n core.GateNotice) error {
	r.c.printf("[to the moderators] %s\n", bot.PlainText(bot.GateNoticeText(n, capabilities)))
	return nil
}

// Setup has one line: the console keeps its roles itself.
func (r *Roles) Setup(context.Context, string) []core.SetupLine {
	return []core.SetupLine{{Check: "the console keeps its own roles (they last as long as the process)", OK: true}}
}
