package coretest

import (
	"context"
	"slices"

	"github.com/poapbot/poapbot/core"
)

// DropTenants lists the tenants of the platform with a drop of eventID
// that is not removed, oldest tenant first.
func (s *MemStore) DropTenants(_ context.Context, platform core.Platform, eventID int64) ([]core.Tenant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.Tenant
	for _, t := range s.tenants {
		if t.Platform != platform {
			continue
		}
		if slices.ContainsFunc(s.drops, func(d core.Drop) bool {
			return d.TenantID == t.ID && d.EventID == eventID && d.RemovedAt == nil
		}) {
			out = append(out, t)
		}
	}
	return out, nil
}
