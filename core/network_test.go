package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/storage"
)

func TestParseChain(t *testing.T) {
	t.Parallel()
	ok := []struct {
		in   string
		want int64
	}{
		{"base", 8453}, {"Base", 8453}, {" BASE ", 8453}, {"8453", 8453},
		{"gnosis", 100}, {"xdai", 100}, {"100", 100},
		{"polygon", 137}, {"matic", 137}, {"arbitrum", 42161}, {"arbitrum-one", 42161},
		{"unichain", 130}, {"mantle", 5000}, {"apechain", 33139}, {"celo", 42220},
		{"linea", 59144}, {"chiliz", 88888}, {"88888", 88888},
	}
	for _, tt := range ok {
		if got, err := core.ParseChain(tt.in); got != tt.want || err != nil {
			t.Errorf("ParseChain(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "1", "mainnet", "ethereum", "10", "0x2105", "base2", "08453", "-100"} {
		got, err := core.ParseChain(in)
		if !errors.Is(err, core.ErrUnknownChain) || got != 0 {
			t.Errorf("ParseChain(%q) = %d, %v, want ErrUnknownChain", in, got, err)
			continue
		}
		// The refusal lists what is accepted: its words are the point.
		for _, name := range core.NetworkNames() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("ParseChain(%q) error %q does not name %s", in, err, name)
			}
		}
	}
}

func TestNetworks(t *testing.T) {
	t.Parallel()
	nets := core.Networks()
	names := core.NetworkNames()
	if len(nets) != 10 || len(names) != len(nets) {
		t.Fatalf("Networks() = %d, NetworkNames() = %d, want the 10 networks", len(nets), len(names))
	}
	seen := map[string]bool{}
	for i, n := range nets {
		for _, word := range []string{names[i], n.Slug, n.Name} {
			if got, err := core.ParseChain(word); got != n.Chain || err != nil {
				t.Errorf("ParseChain(%q) = %d, %v, want %d", word, got, err, n.Chain)
			}
		}
		if name, ok := core.ChainName(n.Chain); name != n.Name || !ok {
			t.Errorf("ChainName(%d) = %q, %v, want %q", n.Chain, name, ok, n.Name)
		}
		if seen[n.Slug] || seen[names[i]] && names[i] != n.Slug {
			t.Errorf("the word of %s is taken by another network", n.Name)
		}
		seen[n.Slug], seen[names[i]] = true, true
	}
	if name, ok := core.ChainName(core.DefaultChain); name != "Gnosis" || !ok {
		t.Errorf("ChainName(DefaultChain) = %q, %v, want Gnosis", name, ok)
	}
	if name, ok := core.ChainName(1); ok {
		t.Errorf("ChainName(1) = %q, true, want mainnet unknown", name)
	}
	nets[0].Name = "changed"
	if core.Networks()[0].Name == "changed" {
		t.Errorf("Networks() shares its table with the caller")
	}
}

func TestNetworkService_Network(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		t.Run("AddDropReads", func(t *testing.T) {
			nt := newNetworkTest(t, db, "add-drop", withNetworks(db))
			nt.chains.set(func(f *chainIssuer) { f.chain = 137 })
			if d := nt.add(t); d.Chain != 137 {
				t.Errorf("AddDrop().Chain = %d, want 137 read from the service", d.Chain)
			}
			if got := nt.stored(t); got != 137 {
				t.Errorf("stored chain = %d, want 137", got)
			}
			if _, err := nt.svc.RemoveDrop(t.Context(), nt.mod, nt.place, eventID); err != nil {
				t.Fatal(err)
			}
			// A read that fails fails nothing; the drop, added again, keeps
			// the network last read.
			nt.chains.set(func(f *chainIssuer) { f.down = true })
			if d := nt.add(t); d.Chain != 137 {
				t.Errorf("AddDrop(again).Chain with the service down = %d, want 137 as last read", d.Chain)
			}
		})
		nt := newNetworkTest(t, db, "guild", withNetworks(db))
		nt.add(t)
		t.Run("Read", func(t *testing.T) {
			res, err := nt.network(t, " ")
			if err != nil || res.Drop.Chain != core.DefaultChain || res.Requested != 0 {
				t.Fatalf("Network(read) = %+v, %v, want the default chain, nothing requested", res, err)
			}
			if got := nt.stored(t); got != core.DefaultChain {
				t.Errorf("stored chain = %d, want %d", got, core.DefaultChain)
			}
			if n := len(nt.audited(core.AuditNetworkSet)); n != 0 {
				t.Errorf("a read made %d audit entries, want none", n)
			}
		})
		t.Run("Set", func(t *testing.T) {
			res, err := nt.network(t, "Base")
			if err != nil || res.Drop.Chain != 8453 || res.Requested != 8453 || res.Drop.EventID != eventID {
				t.Fatalf("Network(Base) = %+v, %v, want chain 8453 set", res, err)
			}
			if got := nt.stored(t); got != 8453 {
				t.Errorf("stored chain = %d, want 8453", got)
			}
			log := nt.audited(core.AuditNetworkSet)
			if len(log) != 1 || !strings.Contains(log[0].Detail, "8453") || strings.Contains(log[0].Detail, editCode.Reveal()) {
				t.Errorf("audit = %+v, want one network set naming 8453 and no edit code", log)
			}
			if res, err := nt.network(t, ""); err != nil || res.Drop.Chain != 8453 {
				t.Errorf("Network(read) after the set = %+v, %v, want 8453", res, err)
			}
		})
		t.Run("ServiceNamesAnother", func(t *testing.T) {
			nt.chains.set(func(f *chainIssuer) { f.answer = 100 })
			defer nt.chains.set(func(f *chainIssuer) { f.answer = 0 })
			res, err := nt.network(t, "celo")
			if err != nil || res.Drop.Chain != 100 || res.Requested != 42220 {
				t.Errorf("Network(celo) answered Gnosis = %+v, %v, want chain 100, requested 42220", res, err)
			}
			if got := nt.stored(t); got != 100 {
				t.Errorf("stored chain = %d, want 100, what the service named", got)
			}
		})
		t.Run("ErrUnknownChain", func(t *testing.T) {
			before, sets := nt.stored(t), nt.chains.setCalls()
			for _, chain := range []string{"ethereum", "1"} {
				_, err := nt.network(t, chain)
				wantDropError(t, err, core.ErrUnknownChain)
			}
			if got, n := nt.stored(t), nt.chains.setCalls(); got != before || n != sets {
				t.Errorf("after unknown chains: stored %d (want %d), %d sets sent (want %d)", got, before, n, sets)
			}
		})
		t.Run("ErrWrongEditCode", func(t *testing.T) {
			before, audits := nt.stored(t), len(nt.audited(core.AuditNetworkSet))
			nt.chains.set(func(f *chainIssuer) { f.code = "999999" })
			defer nt.chains.set(func(f *chainIssuer) { f.code = editCode })
			for _, chain := range []string{"", "linea"} {
				_, err := nt.network(t, chain)
				wantDropError(t, err, core.ErrWrongEditCode)
			}
			if got := nt.stored(t); got != before || len(nt.audited(core.AuditNetworkSet)) != audits {
				t.Errorf("after a wrong edit code: stored %d, want %d, and no audit entry", got, before)
			}
		})
		t.Run("ErrIssuerUnavailable", func(t *testing.T) {
			nt.chains.set(func(f *chainIssuer) { f.down = true })
			defer nt.chains.set(func(f *chainIssuer) { f.down = false })
			_, err := nt.network(t, "mantle")
			wantDropError(t, err, core.ErrIssuerUnavailable)
		})
		t.Run("ErrNoSuchDrop", func(t *testing.T) {
			_, err := nt.networks.Network(t.Context(), nt.mod, core.Place{Platform: core.Console, ExternalID: "elsewhere"}, eventID, "base")
			wantDropError(t, err, core.ErrNoSuchDrop)
			if _, err := nt.svc.RemoveDrop(t.Context(), nt.mod, nt.place, eventID); err != nil {
				t.Fatal(err)
			}
			_, err = nt.network(t, "")
			wantDropError(t, err, core.ErrNoSuchDrop)
		})
	})
}

func TestNetworkService_Network_Wiring(t *testing.T) {
	t.Parallel()
	eachNetworkDB(t, func(t *testing.T, db *storage.DB) {
		t.Run("NotWired", func(t *testing.T) {
			// Without a network service, a drop added is not asked its
			// network, and /drop network is not offered.
			nt := newNetworkTest(t, db, "none", nil)
			nt.add(t)
			if nt.networks != nil || nt.stored(t) != 0 || nt.chains.setCalls() != 0 {
				t.Errorf("without networks: service %v, chain stored %d, %d sets sent; want none", nt.networks, nt.stored(t), nt.chains.setCalls())
			}
		})
		t.Run("MissingDependency", func(t *testing.T) {
			for name, d := range map[string]core.NetworkServiceDeps{
				"NoIssuer": {Members: db, Drops: db, Audit: db, Store: db},
				"NoStore":  {Members: db, Drops: db, Audit: db, Issuer: &chainIssuer{}},
				"NoAudit":  {Members: db, Drops: db, Issuer: &chainIssuer{}, Store: db},
			} {
				if _, err := core.NewNetworkService(d); !errors.Is(err, core.ErrMissingDependency) {
					t.Errorf("NewNetworkService(%s) = %v, want ErrMissingDependency", name, err)
				}
			}
		})
		t.Run("RecordFails", func(t *testing.T) {
			nt := newNetworkTest(t, db, "record-fails", func(w *wiring, c *chainIssuer) {
				w.networks, w.networkStore = c, failingChains{}
			})
			nt.add(t)
			res, err := nt.network(t, "apechain")
			if err != nil || res.Drop.Chain != 33139 {
				t.Errorf("Network(apechain) with the store failing = %+v, %v, want the set reported", res, err)
			}
			if got := nt.stored(t); got != 0 {
				t.Errorf("stored chain = %d, want 0 (not recorded)", got)
			}
		})
	})
}
