package main

import (
	"context"
	"time"
)

// refreshInterval is how often every drop's mint links are re-imported (a
// top-up approved at the issuing service, links used elsewhere) and mints
// in doubt are settled.
const refreshInterval = 15 * time.Minute

// background settles the mints a crash or a lost answer left in doubt, at
// once, then re-imports links and settles mints every refreshInterval until
// ctx is done. Failures are logged and retried at the next turn.
//
// With several replicas every one of them does this; the steps are
// idempotent (imports skip known links, a settled mint is not settled
// again), so the cost is repeated reads, not wrong state.
func (m *Main) background(ctx context.Context) {
	m.reconcile(ctx)
	t := time.NewTicker(refreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := m.svc.RefreshAll(ctx); err != nil && ctx.Err() == nil {
				m.Logger.Warn("scheduled import of mint links failed", "err", err)
			}
			m.reconcile(ctx)
		}
	}
}

// reconcile settles the mints left in doubt and logs how many.
func (m *Main) reconcile(ctx context.Context) {
	n, err := m.svc.ReconcileMints(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		m.Logger.Warn("settling mints in doubt failed", "err", err)
	case n > 0:
		m.Logger.Info("settled mints left in doubt", "count", n)
	}
}
