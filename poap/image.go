package poap

import "net/url"

// Sizes of drop artwork the image server renders on request, with their
// width in pixels. The original (about 2 MB, up to 4 MB) has no size.
const (
	SizeXSmall = "xsmall" // 64 px
	SizeSmall  = "small"  // 128 px
	SizeMedium = "medium" // 256 px
	SizeLarge  = "large"  // 512 px
	SizeXLarge = "xlarge" // 1024 px
)

// ImageURL returns the address of the artwork at raw in the given size
// (SizeSmall...), setting the size query parameter and keeping any other
// query. An empty or unknown size, an empty raw or one that does not parse
// returns raw unchanged, which is the original artwork.
func ImageURL(raw, size string) string {
	switch size {
	case SizeXSmall, SizeSmall, SizeMedium, SizeLarge, SizeXLarge:
	default:
		return raw
	}
	u, err := url.Parse(raw)
	if raw == "" || err != nil {
		return raw
	}
	q := u.Query()
	q.Set("size", size)
	u.RawQuery = q.Encode()
	return u.String()
}
