package web

import (
	"slices"

	"github.com/poapbot/poapbot/core"
	"github.com/prometheus/client_golang/prometheus"
)

// actMetrics names each act's counter and says what it counts.
var actMetrics = map[core.Act]struct{ name, help string }{
	core.ActClaim: {"poapbot_claims_total",
		"Members' claims of drops, by platform, claim method (auto, link, mint, website, delivery) and outcome."},
	core.ActMint: {"poapbot_mints_total",
		"Ends of direct mints as recorded, by platform (none: by the reconciler) and outcome."},
	core.ActVerification: {"poapbot_verifications_total",
		"Signatures offered for wallet challenges, by platform and outcome."},
	core.ActWalletLink: {"poapbot_wallet_links_total",
		"Wallets linked and unlinked, by platform and outcome."},
	core.ActRoleGrant: {"poapbot_role_grants_total",
		"Gated roles (Discord) and group access (Telegram) given, by platform and outcome."},
	core.ActRoleRemoval: {"poapbot_role_removals_total",
		"Gated roles and group access the bot gave taken back, by platform and outcome."},
	core.ActJoinRequest: {"poapbot_join_requests_total",
		"Requests to join gated groups decided, by platform and outcome."},
	core.ActMoment: {"poapbot_moments_total",
		"Moments posted from the chat, by platform and outcome."},
}

// domainMetrics are the counters of what the bot did for members
// (core.Tally), one per act.
type domainMetrics struct {
	acts map[core.Act]*prometheus.CounterVec
}

// newDomainMetrics makes the act counters, each with every label value it
// can take already at zero, so that a rate is defined from the start and a
// dashboard shows a quiet series rather than none.
func newDomainMetrics() domainMetrics {
	d := domainMetrics{acts: map[core.Act]*prometheus.CounterVec{}}
	for _, act := range core.Acts() {
		meta := actMetrics[act]
		labels := []string{"platform", "outcome"}
		if act == core.ActClaim {
			labels = []string{"platform", "method", "outcome"}
		}
		vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: meta.name, Help: meta.help}, labels)
		platforms := core.Platforms()
		if act == core.ActMint {
			platforms = append(platforms, "") // the reconciler's
		}
		for _, p := range platforms {
			p := known(string(p), core.Platforms())
			for _, o := range act.Outcomes() {
				if act != core.ActClaim {
					vec.WithLabelValues(p, o)
					continue
				}
				for _, m := range core.ClaimMethods() {
					vec.WithLabelValues(p, string(m), o)
				}
			}
		}
		d.acts[act] = vec
	}
	return d
}

// collectors returns the counters, to register.
func (d domainMetrics) collectors() []prometheus.Collector {
	out := make([]prometheus.Collector, 0, len(d.acts))
	for _, act := range core.Acts() {
		out = append(out, d.acts[act])
	}
	return out
}

// Count counts one act (core.Tally). An empty platform or method (a claim
// of a drop that is not here has none) is counted as "none"; a label value
// outside the act's known set (a platform, method or outcome the core did
// not declare) as "other" rather than made a new series: label values must
// stay few. An act the core did not declare is not counted.
func (m *Metrics) Count(t core.Tallied) {
	vec, ok := m.domain.acts[t.Act]
	if !ok {
		return
	}
	platform := known(string(t.Platform), core.Platforms())
	outcome := known(t.Outcome, t.Act.Outcomes())
	if t.Act != core.ActClaim {
		vec.WithLabelValues(platform, outcome).Inc()
		return
	}
	vec.WithLabelValues(platform, known(string(t.Method), core.ClaimMethods()), outcome).Inc()
}

// known is v when it is one of set, "none" when it is empty, else "other".
func known[T ~string](v string, set []T) string {
	switch {
	case v == "":
		return "none"
	case slices.Contains(set, T(v)):
		return v
	}
	return "other"
}
