package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The README's quick tour: each step starts with tourMarker and the last
// ends at tourEnd; a step is a bold title, one fenced block of console
// lines and the text that says what they show.
const (
	tourMarker = "<!-- tour -->"
	tourEnd    = "<!-- tour end -->"
	// tourPhoto is the picture the tour's Moment names; the test puts a
	// JPEG of its own in its place.
	tourPhoto = "media:./booth.jpg"
)

// tourShows is, step by step, what the README says each step shows: each
// quote must be in the step's text in the README and in the console's
// output of the step.
var tourShows = [][]string{
	{"Sandbox Demo Drop (drop 197001) is set up here.", "55 in total · 50 available", "auto"},
	{"--- posted here ---", "50 of 55 links left", "[Claim] type: /claim 197001"},
	{"✅ Gate added: holders"},
	{"You are now alice, a member.", "Here is your mint link for Sandbox Demo Drop (drop 197001)", "/mint/", "[post here updated] 49 of 55 links left",
		"You claimed Sandbox Demo Drop (drop 197001) before; here is your mint link again"},
	{"Linked 0x1D45038dA701f5DaFd38505d8147Ca57362aD5E5 as your primary wallet.", "----- begin exact text -----", "----- end -----"},
	{"Verified: 0x1D45038dA701f5DaFd38505d8147Ca57362aD5E5 is now proven yours."},
	{"Minted Sandbox Demo Drop (drop 197001) to 0x1D45038dA701f5DaFd38505d8147Ca57362aD5E5", "[roles] bob gained the role holders"},
	{"• 0x1d45038da701f5dafd38505d8147ca57362ad5e5: verified, holds Sandbox Demo Drop (197001)", "✅ You qualify."},
	{"Checking your Moment…", "Uploading file… 0%", "Moment posted to Sandbox Demo Drop (drop 197001)", "Recent Moments, newest first", "Our booth · by 0x1d45…d5e5"},
	{"Delivery draft of Sandbox Demo Drop (drop 197001)", "1 address", "[Create the delivery] type: /drop deliver 197001 confirm:1", "✅ Delivery created", "/delivery/sandbox-demo-drop-197001-"},
}

// tourRefusals are the openings of the bot's refusals and errors: no step
// of the tour may show one, even beside what it should show.
var tourRefusals = []string{"❌", "I don't know the command", "went wrong on my side", "Nothing was stored",
	"doesn't look right", "don't look right", "Only moderators", "Please try again"}

// tourStep is one step of the README's quick tour.
type tourStep struct {
	title string   // the step's bold title
	lines []string // the console lines, as a moderator types them
	text  string   // the step's text in the README
}

var (
	tourTitleRE = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	tourBlockRE = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
)

// readTour reads the quick tour's steps from the README at path.
func readTour(t *testing.T, path string) []tourStep {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start, end := strings.Index(readme, tourMarker), strings.Index(readme, tourEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no quick tour between %q and %q", path, tourMarker, tourEnd)
	}
	var steps []tourStep
	for i, text := range strings.Split(readme[start+len(tourMarker):end], tourMarker) {
		title := tourTitleRE.FindStringSubmatch(text)
		block := tourBlockRE.FindStringSubmatch(text)
		if title == nil || block == nil {
			t.Fatalf("tour step %d of %s has no bold title or no fenced block of console lines:\n%s", i+1, path, text)
		}
		var lines []string
		for _, l := range strings.Split(block[1], "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		steps = append(steps, tourStep{title: title[1], lines: lines, text: text})
	}
	return steps
}

// tourJPEG writes a small JPEG photo to dir and returns its path.
func tourJPEG(t *testing.T, dir string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 24))
	for x := range 32 {
		for y := range 24 {
			img.Set(x, y, color.RGBA{uint8(8 * x), uint8(10 * y), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "booth.jpg")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTour_README runs the README's quick tour on the console under
// -sandbox, line by line as a moderator types it, and checks step by step
// that the console shows what the README says it shows. The one change:
// the Moment's picture is a JPEG the test writes.
func TestTour_README(t *testing.T) {
	t.Parallel()
	steps := readTour(t, filepath.Join("..", "..", "README.md"))
	if len(steps) != 10 || len(tourShows) != len(steps) {
		t.Fatalf("the README's quick tour has %d steps, want 10 (and %d lists of what they show)", len(steps), len(tourShows))
	}
	for i, st := range steps {
		for _, want := range tourShows[i] {
			if !strings.Contains(st.text, want) {
				t.Errorf("tour step %d (%s): the README does not say it shows %q", i+1, st.title, want)
			}
		}
	}
	photo := "media:" + tourJPEG(t, t.TempDir())
	substituted := 0
	for i := range steps {
		for j, l := range steps[i].lines {
			if strings.Contains(l, tourPhoto) {
				steps[i].lines[j] = strings.ReplaceAll(l, tourPhoto, photo)
				substituted++
			}
		}
	}
	if substituted != 1 {
		t.Fatalf("the tour names %q in %d lines, want 1 (the Moment's)", tourPhoto, substituted)
	}
	if t.Failed() {
		t.FailNow()
	}
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Claim messages' counts are edited every 5 s; a shorter
			// interval only makes the wait for step 4's update shorter.
			s := startMainTuned(t, map[string]string{"DATABASE_URL": dbURL}, true, func(m *Main) { m.PostInterval = 50 * time.Millisecond })
			for i, st := range steps {
				before := len(s.out.String())
				for _, l := range st.lines {
					if _, err := s.stdin.Write([]byte(l + "\n")); err != nil {
						t.Fatal(err)
					}
				}
				// Role grants and count updates come in the background, within
				// seconds: wait on the output, never on the clock.
				ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
				_, err := s.out.WaitFor(ctx, func(out string) bool {
					for _, want := range tourShows[i] {
						if !strings.Contains(out[before:], want) {
							return false
						}
					}
					return true
				})
				cancel()
				if err != nil {
					out := s.out.String()[before:]
					var missing []string
					for _, want := range tourShows[i] {
						if !strings.Contains(out, want) {
							missing = append(missing, want)
						}
					}
					t.Fatalf("tour step %d (%s): %q does not show %q:\n%s", i+1, st.title, st.lines, missing, out)
				}
				out := s.out.String()[before:]
				for _, refusal := range tourRefusals {
					if strings.Contains(out, refusal) {
						t.Fatalf("tour step %d (%s): %q shows a refusal (%q):\n%s", i+1, st.title, st.lines, refusal, out)
					}
				}
			}
		})
	}
}
