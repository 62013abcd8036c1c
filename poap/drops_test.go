package poap_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
)

// testDrop is the drop of testdata/drop.json.
func testDrop() poap.Drop {
	return poap.Drop{
		Event: poap.Event{
			ID: 175300, FancyID: "poapbot-test-drop-1-of-3-2025", Name: "poapbot test drop 1 of 3",
			Description: "Test drop for the poapbot integration (1 of 3). Not a real event; private, few mint links.",
			EventURL:    "https://poapbot.example.org/test",
			ImageURL:    "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png",
			Year:        2025, StartDate: day(2025, 3, 7), EndDate: day(2025, 3, 7), ExpiryDate: day(2025, 4, 6),
			Timezone: "Europe/Berlin",
		},
		VirtualEvent: true, EventTemplateID: ptr(int64(0)), PrivateEvent: true,
		CreatedDate: time.Date(2025, 3, 1, 10, 24, 31, 512e6, time.UTC),
		Channel:     "api", Platform: "web", LocationType: "virtual",
		Image: &poap.DropImage{
			PublicID: "1b2c3d4e-5f60-4718-9a0b-c1d2e3f40516", DropID: 175300,
			Gateways: []poap.DropImageGateway{
				{ImageID: "1b2c3d4e-5f60-4718-9a0b-c1d2e3f40516", Filename: "4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png",
					MimeType: "image/png", URL: "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.png", Type: poap.ImageOriginal},
				{ImageID: "1b2c3d4e-5f60-4718-9a0b-c1d2e3f40516", Filename: "4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13-crop.png",
					MimeType: "image/png", URL: "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13-crop.png", Type: poap.ImageCrop},
			},
		},
	}
}

// oldDrop is the drop of testdata/drop_no_image.json: no drop_image, a null
// template, dates as YYYY-MM-DD and the fields of older answers.
func oldDrop() poap.Drop {
	e := berlin
	e.StartDate, e.EndDate, e.ExpiryDate = day(2021, 12, 7), day(2021, 12, 7), day(2022, 1, 6)
	return poap.Drop{Event: e, CreatedDate: time.Date(2021, 11, 20, 9, 12, 44, 0, time.UTC)}
}

func TestClient_Drop(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, "drop.json"))
		got, err := c.Drop(context.Background(), 175300)
		if err != nil {
			t.Fatalf("Drop() error = %v", err)
		}
		if diff := cmp.Diff(testDrop(), got); diff != "" {
			t.Errorf("Drop() mismatch (-want +got):\n%s", diff)
		}
		if got, want := got.Image.URL(poap.ImageCrop), "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13-crop.png"; got != want {
			t.Errorf("Image.URL(CROP) = %q, want %q", got, want)
		}
	})
	t.Run("NoImage", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, "drop_no_image.json"))
		got, err := c.DropByFancyID(context.Background(), "berlin-builders-meetup-12-2021")
		if err != nil {
			t.Fatalf("DropByFancyID() error = %v", err)
		}
		if diff := cmp.Diff(oldDrop(), got); diff != "" {
			t.Errorf("DropByFancyID() mismatch (-want +got):\n%s", diff)
		}
		if got.Image.URL(poap.ImageOriginal) != "" {
			t.Errorf("Image.URL() of a drop without image = %q, want \"\"", got.Image.URL(poap.ImageOriginal))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		c, _ := opsClient(t, serveFixture(t, http.StatusNotFound, "error_404.json"))
		if _, err := c.Drop(context.Background(), 1); !errors.Is(err, poap.ErrNotFound) {
			t.Errorf("Drop() error = %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrInvalidInput", func(t *testing.T) {
		c, rec := opsClient(t, serveFixture(t, http.StatusOK, "drop.json"))
		_, err1 := c.Drop(context.Background(), 0)
		_, err2 := c.DropByFancyID(context.Background(), " ")
		if !errors.Is(err1, poap.ErrInvalidInput) || !errors.Is(err2, poap.ErrInvalidInput) || len(rec.all()) != 0 {
			t.Errorf("Drop(0), DropByFancyID(\" \") = %v, %v after %d requests, want ErrInvalidInput and none", err1, err2, len(rec.all()))
		}
	})
}

// TestDrop_DateFormats decodes drop dates in the three formats production
// writes or echoes: DD-Mon-YYYY, YYYY-MM-DD and MM-DD-YYYY.
func TestDrop_DateFormats(t *testing.T) {
	tests := []struct {
		fixture                 string
		start, end, expiry      poap.Date
		wantStartText, wantText string
	}{
		{"drop.json", day(2025, 3, 7), day(2025, 3, 7), day(2025, 4, 6), "07-Mar-2025", "2025-03-07"},
		{"drop_no_image.json", day(2021, 12, 7), day(2021, 12, 7), day(2022, 1, 6), "2021-12-07", "2021-12-07"},
		{"drop_created.json", day(2025, 3, 8), day(2025, 3, 9), day(2025, 4, 8), "03-08-2025", "2025-03-08"},
	}
	for _, tc := range tests {
		c, _ := opsClient(t, serveFixture(t, http.StatusOK, tc.fixture))
		got, err := c.Drop(context.Background(), 1)
		if err != nil {
			t.Fatalf("%s: Drop() error = %v", tc.fixture, err)
		}
		if got.StartDate != tc.start || got.EndDate != tc.end || got.ExpiryDate != tc.expiry {
			t.Errorf("%s (start %s): dates = %v %v %v, want %v %v %v", tc.fixture, tc.wantStartText,
				got.StartDate, got.EndDate, got.ExpiryDate, tc.start, tc.end, tc.expiry)
		}
		if got.StartDate.String() != tc.wantText {
			t.Errorf("%s: StartDate.String() = %q, want %q", tc.fixture, got.StartDate.String(), tc.wantText)
		}
	}
}

func TestClient_Drops(t *testing.T) {
	c, _ := opsClient(t, serveFixture(t, http.StatusOK, "drops_page.json"))
	got, err := c.Drops(context.Background(), poap.DropsQuery{Limit: 2, Offset: 40})
	if err != nil {
		t.Fatalf("Drops() error = %v", err)
	}
	first := testDrop()
	first.AnimationURL = "https://assets.poap.xyz/4f1d2a7e-0c3b-4e8f-9a61-2d5b7c9e0f13.mp4"
	want := poap.DropPage{Drops: []poap.Drop{first, oldDrop()}, Total: 5320, Limit: 2, Offset: 40}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Drops() mismatch (-want +got):\n%s", diff)
	}
	for _, q := range []poap.DropsQuery{{Limit: -1}, {Limit: poap.MaxDropsPage + 1}, {Offset: -1}} {
		if _, err := c.Drops(context.Background(), q); !errors.Is(err, poap.ErrInvalidInput) {
			t.Errorf("Drops(%+v) error = %v, want ErrInvalidInput", q, err)
		}
	}
}
