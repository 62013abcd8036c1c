package sandbox_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

func TestArtwork(t *testing.T) {
	h := newHarness(t, sandbox.Options{})
	img := pngImage(t)
	id := h.createDrop(t, dropFields())
	drop := h.call(t, "GET", "/events/id/"+strconv.FormatInt(id, 10), nil)
	original, _ := drop.field("image_url").(string)
	if !strings.HasPrefix(original, h.base+"/assets/") {
		t.Fatalf("image_url = %q, want an address below %s/assets/", original, h.base)
	}
	gateways := drop.field("drop_image").(map[string]any)["gateways"].([]any)
	crop := gateways[1].(map[string]any)["url"].(string)
	for _, u := range []string{original, crop} {
		// Without credentials, as an image host is read.
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.Equal(body, img) {
			t.Errorf("GET %s = %d %s, %d bytes, want 200 image/png with the uploaded artwork",
				u, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	resp, err := http.Get(h.base + "/assets/nothing.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || h.Requests(wire.OpDropArtwork) != 3 {
		t.Errorf("GET /assets/nothing.png = %d after %d artwork reads, want 404 after 3", resp.StatusCode, h.Requests(wire.OpDropArtwork))
	}
}
