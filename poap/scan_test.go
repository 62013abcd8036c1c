package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/wire"
)

const holder = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

// berlin is the event of the first token in testdata/scan.json.
var berlin = poap.Event{
	ID:          14187,
	FancyID:     "berlin-builders-meetup-12-2021",
	Name:        "Berlin Builders Meetup #12",
	Description: "Thanks for joining the twelfth Berlin Builders Meetup.",
	City:        "Berlin",
	Country:     "Germany",
	EventURL:    "https://builders.example.org/berlin/12",
	ImageURL:    "https://assets.poap.xyz/berlin-builders-meetup-12-2021-logo-1638876543210.png",
	Year:        2021,
	StartDate:   poap.Date{Year: 2021, Month: time.December, Day: 7},
	EndDate:     poap.Date{Year: 2021, Month: time.December, Day: 7},
	ExpiryDate:  poap.Date{Year: 2022, Month: time.January, Day: 6},
	Supply:      212,
	Timezone:    "Europe/Berlin",
}

func utc(year int, month time.Month, day, hour, min, sec int) time.Time {
	return time.Date(year, month, day, hour, min, sec, 0, time.UTC)
}

func ptr[T any](v T) *T { return &v }

func wantScan() []poap.Token {
	return []poap.Token{
		{Event: berlin, TokenID: "3010642", Owner: holder, Chain: "xdai", Created: utc(2021, 12, 7, 18, 42, 10)},
		{
			Event: poap.Event{
				ID: 60412, FancyID: "lisbon-blockchain-week-2022", Name: "Lisbon Blockchain Week 2022",
				Description: "Attended Lisbon Blockchain Week.\nSee you next year!", City: "Lisbon", Country: "Portugal",
				EventURL: "https://lisbon.example.org", Year: 2022, Supply: 1874, Timezone: "Europe/Lisbon",
				ImageURL:   "https://assets.poap.xyz/lisbon-blockchain-week-2022-2022-logo-1667300000000.png",
				StartDate:  poap.Date{Year: 2022, Month: time.November, Day: 1},
				EndDate:    poap.Date{Year: 2022, Month: time.November, Day: 4},
				ExpiryDate: poap.Date{Year: 2022, Month: time.December, Day: 4},
			},
			TokenID: "5562019", Owner: holder, Chain: "homestead",
			Created: utc(2022, 11, 2, 9, 15, 0), Migrated: ptr(utc(2022, 12, 1, 12, 0, 0)),
		},
		{
			Event: poap.Event{
				ID: 171208, FancyID: "base-onchain-summer-2024", Name: "Onchain Summer Builders Call",
				Description: "Online call for builders.", Year: 2024, Supply: 57, Timezone: "UTC",
				ImageURL:   "https://assets.poap.xyz/c4e1a1f7-2f5a-4b6e-9d7b-0a3c1f2e9b11.png",
				StartDate:  poap.Date{Year: 2024, Month: time.June, Day: 14},
				EndDate:    poap.Date{Year: 2024, Month: time.June, Day: 14},
				ExpiryDate: poap.Date{Year: 2024, Month: time.July, Day: 14},
			},
			TokenID: "7003125", Owner: holder, Chain: "base", Created: utc(2024, 6, 14, 16, 3, 27),
		},
		{
			Event: poap.Event{
				ID: 98001, FancyID: "polygon-community-call-2023", Name: "Community Call #42",
				Description: "Monthly community call.", EventURL: "https://calls.example.org/42",
				Year: 2023, Supply: 310, Timezone: "America/New_York",
				ImageURL:   "https://assets.poap.xyz/community-call-42-2023-logo-1680000000000.png",
				StartDate:  poap.Date{Year: 2023, Month: time.March, Day: 28},
				EndDate:    poap.Date{Year: 2023, Month: time.March, Day: 28},
				ExpiryDate: poap.Date{Year: 2023, Month: time.April, Day: 27},
			},
			TokenID: "6120033", Owner: holder, Chain: "matic", Created: utc(2023, 3, 28, 17, 30, 0),
		},
	}
}

func TestClient_Scan(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		var gotPath string
		h := serveFixture(t, http.StatusOK, "scan.json")
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath = r.Method + " " + r.URL.Path
			h(w, r)
		}), poap.Options{})
		got, err := c.Scan(context.Background(), holder)
		if err != nil {
			t.Fatalf("Scan() error = %v", err)
		}
		if diff := cmp.Diff(wantScan(), got); diff != "" {
			t.Errorf("Scan() mismatch (-want +got):\n%s", diff)
		}
		if want := "GET /actions/scan/" + holder; gotPath != want {
			t.Errorf("request = %q, want %q", gotPath, want)
		}
	})
	t.Run("Empty", func(t *testing.T) {
		c := newClient(t, serveFixture(t, http.StatusOK, "scan_empty.json"), poap.Options{})
		got, err := c.Scan(context.Background(), holder)
		if err != nil || len(got) != 0 {
			t.Errorf("Scan() = %v, %v, want no tokens and no error", got, err)
		}
	})
}

func TestClient_Scan_Address(t *testing.T) {
	t.Run("EmailEscaped", func(t *testing.T) {
		var gotPath, gotRaw string
		h := serveFixture(t, http.StatusOK, "scan_email.json")
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath, gotRaw = r.URL.Path, r.URL.EscapedPath()
			h(w, r)
		}), poap.Options{})
		got, err := c.Scan(context.Background(), "a+b@example.org")
		if err != nil {
			t.Fatalf("Scan() error = %v", err)
		}
		if gotPath != "/actions/scan/a+b@example.org" || gotRaw != "/actions/scan/a%2Bb%40example.org" {
			t.Errorf("path = %q (raw %q), want the e-mail as one escaped segment", gotPath, gotRaw)
		}
		if len(got) != 1 || got[0].TokenID != "" || got[0].Migrated != nil || got[0].Event.ID != 175300 {
			t.Errorf("Scan() = %+v, want one e-mail-held token with no id", got)
		}
	})
	t.Run("PathInjection", func(t *testing.T) {
		var gotRaw string
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotRaw = r.URL.EscapedPath()
			w.Write([]byte("[]"))
		}), poap.Options{})
		if _, err := c.Scan(context.Background(), "../events/1?x=y"); err != nil {
			t.Fatalf("Scan() error = %v", err)
		}
		if want := "/actions/scan/..%2Fevents%2F1%3Fx%3Dy"; gotRaw != want {
			t.Errorf("path = %q, want %q", gotRaw, want)
		}
	})
	t.Run("ErrInvalidAddress", func(t *testing.T) {
		for _, tc := range []struct{ name, fixture string }{
			{"MessageSaysSo", "error_400.json"},
			{"Any400OnScan", "error_400_validation.json"},
		} {
			c := newClient(t, serveFixture(t, http.StatusBadRequest, tc.fixture), poap.Options{})
			_, err := c.Scan(context.Background(), "0x123")
			if !errors.Is(err, poap.ErrInvalidAddress) {
				t.Errorf("%s: Scan() error = %v, want ErrInvalidAddress", tc.name, err)
			}
		}
	})
	t.Run("EmptyAddress", func(t *testing.T) {
		var hits int
		c := newClient(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }), poap.Options{})
		if _, err := c.Scan(context.Background(), " "); !errors.Is(err, poap.ErrInvalidAddress) || hits != 0 {
			t.Errorf("Scan(\" \") error = %v after %d requests, want ErrInvalidAddress and none", err, hits)
		}
	})
}

func TestClient_ScanEvent(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		var gotPath string
		h := serveFixture(t, http.StatusOK, "scan_event.json")
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gotPath = r.URL.Path
			h(w, r)
		}), poap.Options{})
		got, err := c.ScanEvent(context.Background(), holder, 14187)
		if err != nil {
			t.Fatalf("ScanEvent() error = %v", err)
		}
		want := berlin
		want.Supply = 0
		if diff := cmp.Diff(poap.Token{Event: want, TokenID: "3010642", Owner: holder}, got); diff != "" {
			t.Errorf("ScanEvent() mismatch (-want +got):\n%s", diff)
		}
		if wantPath := "/actions/scan/" + holder + "/14187"; gotPath != wantPath {
			t.Errorf("path = %q, want %q", gotPath, wantPath)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		c := newClient(t, serveFixture(t, http.StatusNotFound, "error_404.json"), poap.Options{})
		_, err := c.ScanEvent(context.Background(), holder, 1)
		if !errors.Is(err, poap.ErrNotFound) {
			t.Fatalf("ScanEvent() error = %v, want ErrNotFound", err)
		}
		var apiErr *poap.APIError
		if !errors.As(err, &apiErr) || apiErr.Operation != wire.OpScanEvent {
			t.Errorf("ScanEvent() error = %#v, want an *APIError of %q", err, wire.OpScanEvent)
		}
	})
}
