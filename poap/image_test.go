package poap_test

import (
	"testing"

	"github.com/poapbot/poapbot/poap"
)

func TestImageURL(t *testing.T) {
	const art = "https://assets.poap.xyz/berlin-2021-logo.png"
	tests := []struct {
		raw, size, want string
	}{
		{art, poap.SizeSmall, art + "?size=small"},
		{art, poap.SizeXSmall, art + "?size=xsmall"},
		{art, poap.SizeMedium, art + "?size=medium"},
		{art, poap.SizeLarge, art + "?size=large"},
		{art, poap.SizeXLarge, art + "?size=xlarge"},
		{art + "?size=large", poap.SizeSmall, art + "?size=small"},
		{art + "?v=2", poap.SizeSmall, art + "?size=small&v=2"},
		{art + "#top", poap.SizeSmall, art + "?size=small#top"},
		{art, "", art},
		{art, "huge", art},
		{"", poap.SizeSmall, ""},
		{"https://bad host/x.png", poap.SizeSmall, "https://bad host/x.png"},
	}
	for _, tc := range tests {
		if got := poap.ImageURL(tc.raw, tc.size); got != tc.want {
			t.Errorf("ImageURL(%q, %q) = %q, want %q", tc.raw, tc.size, got, tc.want)
		}
	}
}
