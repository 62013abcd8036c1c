package wire

// Limits the interface states for a drop's content (POST /events, PUT
// /events/{fancyId}).
const (
	// MaxDropDescription is the longest drop description, in characters.
	MaxDropDescription = 1500
	// MaxDropText is the longest drop name, city or country the schema
	// allows, in characters.
	MaxDropText = 256
	// MaxDropImage bounds a drop's artwork, in bytes: it must be under
	// 4 MB.
	MaxDropImage = 4 << 20
)

// MaxRequestedCodes is the most mint links one request may ask for: the
// requested_codes of POST /redeem-requests, of a secret request or of a new
// drop.
const MaxRequestedCodes = 50000
