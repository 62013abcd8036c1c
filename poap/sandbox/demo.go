package sandbox

import (
	"fmt"
	"time"
)

// Demo identities SeedDemo creates; the README names them. The three
// wallets are the addresses of DemoKeys, published test keys.
const (
	// DemoWallet holds 14 POAPs on several chains, minted on distinct
	// days, enough to show paging after 10.
	DemoWallet = "0xD3EeEe483984730e415b604b6a526c504A7B1EcA"
	// DemoENS resolves to DemoWallet.
	DemoENS = "poapdemo.eth"
	// DemoWallet2 holds 2 POAPs, one of them of DemoDropID.
	DemoWallet2 = "0x1D45038dA701f5DaFd38505d8147Ca57362aD5E5"
	// DemoEmail holds 1 POAP reserved by e-mail (tokenId "" in scans).
	DemoEmail = "demo@example.org"
	// EmptyWallet holds none.
	EmptyWallet = "0x0b84F93f4f15BC024dC2aE1f750D545c3948AC93"
	// DemoDropID is a drop both DemoWallet and DemoWallet2 hold.
	DemoDropID int64 = 14187
)

// Demo distribution SeedDemo creates, to rehearse handing out POAPs.
const (
	// DemoLinksDropID is "Sandbox Demo Drop", a drop with mint links and a
	// website claim, mintable until the end of 2035.
	DemoLinksDropID int64 = 197001
	// DemoEditCode is the edit code (secret_code) of DemoLinksDropID.
	DemoEditCode = "123456"
	// DemoClaimedLinks and DemoUnclaimedLinks count the drop's mint links:
	// sbx001 to sbx005 are claimed, by five demo collectors, and sbx006 to
	// sbx055 are free.
	DemoClaimedLinks   = 5
	DemoUnclaimedLinks = 50
	// DemoWebsite is the drop's website claim, open until the end of 2035
	// for 100 mints.
	DemoWebsite = "sandbox-demo-website"
)

// demoEvent is the compact form of a demo drop.
type demoEvent struct {
	id                  int64
	fancy, name, desc   string
	city, country, zone string
	start               string // YYYY-MM-DD
	days                int    // length, 1 for a one-day drop
}

// demoEvents are the demo drops, oldest first.
var demoEvents = []demoEvent{
	{14187, "berlin-builders-meetup-12-2021", "Berlin Builders Meetup #12", "Thanks for joining the twelfth Berlin Builders Meetup.", "Berlin", "Germany", "Europe/Berlin", "2021-12-07", 1},
	{27730, "poap-community-call-42-2022", "POAP Community Call #42", "You were on the monthly community call.", "", "", "UTC", "2022-03-17", 1},
	{31044, "amsterdam-builders-workshop-2022", "Amsterdam Builders Workshop", "A day of hands-on smart contract workshops.", "Amsterdam", "Netherlands", "Europe/Amsterdam", "2022-04-19", 1},
	{45120, "hack-the-harbour-2022", "Hack the Harbour 2022", "48 hours of hacking by the water.", "Hamburg", "Germany", "Europe/Berlin", "2022-06-10", 3},
	{60412, "lisbon-blockchain-week-2022", "Lisbon Blockchain Week 2022", "Attended Lisbon Blockchain Week. See you next year!", "Lisbon", "Portugal", "Europe/Lisbon", "2022-11-01", 4},
	{98001, "open-source-saturday-march-2023", "Open Source Saturday: March", "Fixed a bug, made a friend.", "Buenos Aires", "Argentina", "America/Argentina/Buenos_Aires", "2023-03-04", 1},
	{120333, "solarpunk-fair-2023", "Solarpunk Fair 2023", "Two days of regenerative tech and good food.", "Barcelona", "Spain", "Europe/Madrid", "2023-05-13", 2},
	{131800, "zero-knowledge-summit-2023", "Zero Knowledge Summit 2023", "Talks and proofs, in that order.", "Paris", "France", "Europe/Paris", "2023-07-20", 2},
	{150002, "layer-2-day-2023", "Layer 2 Day", "An online day about rollups.", "", "", "UTC", "2023-10-05", 1},
	{163450, "tokyo-ethereum-meetup-7-2024", "Tokyo Ethereum Meetup #7", "Thanks for coming to meetup number seven.", "Tokyo", "Japan", "Asia/Tokyo", "2024-01-27", 1},
	{171208, "onchain-summer-builders-call-2024", "Onchain Summer Builders Call", "Online call for builders.", "", "", "UTC", "2024-06-14", 1},
	{178044, "nairobi-web3-week-2024", "Nairobi Web3 Week 2024", "A week of builders from across East Africa.", "Nairobi", "Kenya", "Africa/Nairobi", "2024-08-22", 3},
	{184920, "base-camp-graduation-cohort-3-2024", "Base Camp Graduation, Cohort 3", "Graduated from the third cohort.", "", "", "UTC", "2024-11-08", 1},
	{190115, "new-year-2025-collectors-toast-2025", "New Year 2025 Collectors' Toast", "Raised a glass with fellow collectors.", "", "", "UTC", "2025-01-01", 1},
	{193377, "mexico-city-hackathon-2025", "Mexico City Hackathon 2025", "Shipped something in CDMX.", "Mexico City", "Mexico", "America/Mexico_City", "2025-03-21", 3},
	{196002, "demo-day-2025", "Demo Day 2025", "Reserved for you by e-mail: mint it to a wallet whenever you like.", "Buenos Aires", "Argentina", "America/Argentina/Buenos_Aires", "2025-05-09", 1},
}

// demoMint is one demo POAP; at and migrated are "YYYY-MM-DD HH:MM:SS" UTC.
type demoMint struct {
	owner    string
	drop     int64
	chain    string
	at       string
	migrated string
}

// demoMints gives DemoWallet 14 POAPs on six chains, DemoWallet2 two and
// DemoEmail one.
var demoMints = []demoMint{
	{DemoWallet, 14187, "xdai", "2021-12-07 19:42:10", ""},
	{DemoWallet2, 14187, "xdai", "2021-12-07 20:03:55", ""},
	{DemoWallet, 27730, "xdai", "2022-03-17 17:31:08", ""},
	{DemoWallet, 31044, "matic", "2022-04-19 13:22:19", ""},
	{DemoWallet, 45120, "xdai", "2022-06-12 15:00:42", ""},
	{DemoWallet, 60412, "homestead", "2022-11-02 09:15:00", "2022-12-01 12:00:00"},
	{DemoWallet, 98001, "xdai", "2023-03-04 21:14:02", ""},
	{DemoWallet, 120333, "celo", "2023-05-14 11:48:51", ""},
	{DemoWallet, 131800, "homestead", "2023-07-21 10:05:33", ""},
	{DemoWallet, 150002, "arbitrum-one", "2023-10-05 16:00:00", ""},
	{DemoWallet, 163450, "matic", "2024-01-27 11:30:17", ""},
	{DemoWallet, 171208, "base", "2024-06-14 16:03:27", ""},
	{DemoWallet, 178044, "xdai", "2024-08-23 09:41:00", ""},
	{DemoWallet, 184920, "base", "2024-11-08 18:20:45", ""},
	{DemoWallet, 190115, "xdai", "2025-01-01 00:10:00", ""},
	{DemoWallet2, 193377, "xdai", "2025-03-23 20:45:12", ""},
	{DemoEmail, 196002, "xdai", "2025-05-09 19:00:00", ""},
}

// SeedDemo adds the demo drops, DemoENS, the demo POAPs and the demo
// distribution (DemoLinksDropID, its links and website). The data is
// fixed, with no randomness and no dependence on the clock. Calling it again
// does nothing.
func (s *Server) SeedDemo() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seeded := s.drops[DemoDropID]; seeded {
		return
	}
	for _, e := range demoEvents {
		s.addDrop(e.drop())
	}
	must(s.setENS(DemoENS, DemoWallet))
	for _, m := range demoMints {
		t := Token{EventID: m.drop, Owner: m.owner, Chain: m.chain, Created: mustTime(m.at)}
		if m.migrated != "" {
			migrated := mustTime(m.migrated)
			t.Migrated = &migrated
		}
		_, err := s.mint(t)
		must(err)
	}
	s.seedDemoDistribution()
}

// drop expands a demo event into a Drop with its image, site and dates; the
// drop can be minted for 30 days after it ends.
func (e demoEvent) drop() Drop {
	start := mustTime(e.start + " 00:00:00")
	end := start.AddDate(0, 0, e.days-1)
	return Drop{
		ID:          e.id,
		FancyID:     e.fancy,
		Name:        e.name,
		Description: e.desc,
		City:        e.city,
		Country:     e.country,
		EventURL:    "https://events.example.org/" + e.fancy,
		ImageURL:    fmt.Sprintf("https://assets.poap.xyz/%s-logo-%d.png", e.fancy, start.UnixMilli()),
		StartDate:   start,
		EndDate:     end,
		ExpiryDate:  end.AddDate(0, 0, 30),
		Timezone:    e.zone,
	}
}

// mustTime reads a constant "YYYY-MM-DD HH:MM:SS" of the demo data as UTC.
func mustTime(s string) time.Time {
	t, err := time.Parse(timeLayout, s)
	must(err)
	return t
}

// must panics on an error in the constant demo data: it is a bug in this
// file, caught by the package tests.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
