package sandbox

import (
	"fmt"
	"time"
)

// seedDemoDistribution adds DemoLinksDropID with its mint links, the
// collectors of the claimed ones and DemoWebsite. Hashes, addresses and
// times are fixed. The caller holds s.mu.
func (s *Server) seedDemoDistribution() {
	d := s.addDrop(Drop{
		ID:          DemoLinksDropID,
		FancyID:     "sandbox-demo-drop-2025",
		Name:        "Sandbox Demo Drop",
		Description: "A drop of the sandbox, to rehearse a distribution: mint links and a website claim wait to be handed out.",
		ImageURL:    "https://assets.poap.xyz/sandbox-demo-drop-2025-logo-1758326400000.png",
		EventURL:    "https://events.example.org/sandbox-demo-drop-2025",
		StartDate:   mustTime("2025-09-20 00:00:00"),
		EndDate:     mustTime("2025-09-20 00:00:00"),
		ExpiryDate:  mustTime("2035-12-31 00:00:00"),
		Timezone:    "UTC",
		EditCode:    DemoEditCode,
		Virtual:     true,
		Private:     true,
		Email:       "issuer@example.org",
		Created:     mustTime("2025-09-01 12:00:00"),
	})
	created := mustTime("2025-09-02 09:00:00")
	for i := 1; i <= DemoClaimedLinks+DemoUnclaimedLinks; i++ {
		lk := s.newLink(d.ID, fmt.Sprintf("sbx%03d", i), created)
		s.dropLinks[d.ID] = append(s.dropLinks[d.ID], lk)
		if i <= DemoClaimedLinks {
			at := mustTime("2025-09-20 18:00:00").Add(time.Duration(i) * time.Minute)
			c, err := s.mintClaim(d.ID, demoCollector(i), txMint, at)
			must(err)
			lk.claim = c
		}
	}
	s.seedDemoWebsite(d.ID, created)
}

// seedDemoWebsite adds DemoWebsite, approved, to drop eventID. The caller
// holds s.mu.
func (s *Server) seedDemoWebsite(eventID int64, created time.Time) {
	sc := &secretClaim{
		id:       s.nextSecret,
		eventID:  eventID,
		name:     DemoWebsite,
		kind:     secretWebsite,
		from:     mustTime("2025-09-20 00:00:00"),
		to:       mustTime("2035-12-31 00:00:00"),
		active:   true,
		approved: true,
		total:    100,
		created:  created,
	}
	s.nextSecret++
	s.secrets[DemoWebsite] = sc
}

// demoCollector is the address of the i-th demo collector of
// DemoLinksDropID.
func demoCollector(i int) string {
	return "0x" + digest("demo-collector", int64(i))[:40]
}
