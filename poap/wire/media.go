package wire

// Media states, as GET /media/{key} (OpMediaStatus) reports them. FAILED
// comes from the Moments MVP documentation, INVALID from the official SDK;
// both are final refusals.
const (
	MediaInProcess = "IN_PROCESS"
	MediaProcessed = "PROCESSED"
	MediaInvalid   = "INVALID"
	MediaFailed    = "FAILED"
)

// UploadAddress is the answer of POST /moments/media-upload-url
// (OpMediaUploadURL): the signed address to PUT the file to (OpMediaUpload)
// and the media key the file will have.
type UploadAddress struct {
	URL string `json:"url"`
	Key string `json:"key"`
}

// Media is an uploaded file as GET /media/{key} (OpMediaStatus) describes
// it. Only Key and Status are sure to be set; the rest arrives once the file
// is processed.
type Media struct {
	// Key is the media key a Moment refers to (a UUID).
	Key string `json:"key"`
	// Status is one of the Media states (MediaProcessed...).
	Status string `json:"status"`
	// MimeType is the type the file was uploaded with, e.g. image/png.
	MimeType string `json:"mimeType"`
	// Hash is the SHA-256 of the content, in hex.
	Hash string `json:"hash,omitempty"`
	// Location is the service's own poap://... address of the file.
	Location string         `json:"location,omitempty"`
	Gateways []MediaGateway `json:"gateways,omitempty"`
}

// MediaGateway is an address a processed file can be downloaded from.
type MediaGateway struct {
	// Type is the MIME type served there.
	Type string `json:"type"`
	URL  string `json:"url"`
}
