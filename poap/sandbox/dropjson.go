package sandbox

import (
	"path"
	"strings"
	"time"
)

// isoLayout is how the service writes instants other than mint times.
const isoLayout = "2006-01-02T15:04:05.000Z"

// dropJSON is a drop as the drop reads, claims and secrets write it. Dates
// are DD-Mon-YYYY; drop_image appears in the drop reads only.
type dropJSON struct {
	ID              int64          `json:"id"`
	FancyID         string         `json:"fancy_id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	City            string         `json:"city"`
	Country         string         `json:"country"`
	EventURL        string         `json:"event_url"`
	ImageURL        string         `json:"image_url"`
	AnimationURL    string         `json:"animation_url"`
	Year            int            `json:"year"`
	StartDate       string         `json:"start_date"`
	EndDate         string         `json:"end_date"`
	ExpiryDate      string         `json:"expiry_date"`
	Timezone        string         `json:"timezone"`
	FromAdmin       bool           `json:"from_admin"`
	VirtualEvent    bool           `json:"virtual_event"`
	EventTemplateID int            `json:"event_template_id"`
	PrivateEvent    bool           `json:"private_event"`
	CreatedDate     string         `json:"created_date,omitempty"`
	DropImage       *dropImageJSON `json:"drop_image,omitempty"`
}

// dropImageJSON is a drop's artwork: the original and the circle crop.
type dropImageJSON struct {
	PublicID string        `json:"public_id"`
	DropID   int64         `json:"drop_id"`
	Gateways []gatewayJSON `json:"gateways"`
}

// gatewayJSON is one rendition of the artwork.
type gatewayJSON struct {
	ImageID  string `json:"image_id"`
	Filename string `json:"filename"`
	MimeType string `json:"mime_type"`
	URL      string `json:"url"`
	Type     string `json:"type"`
}

// tokenEventJSON is the drop as GET /token/{tokenId} writes it: the scan's
// fields without supply, with drop_image.
type tokenEventJSON struct {
	eventJSON
	DropImage *dropImageJSON `json:"drop_image,omitempty"`
}

// dropJSONOf writes d; withImage adds drop_image and created_date, as the
// drop reads do.
func dropJSONOf(d Drop, withImage bool) dropJSON {
	j := dropJSON{
		ID:              d.ID,
		FancyID:         d.FancyID,
		Name:            d.Name,
		Description:     d.Description,
		City:            d.City,
		Country:         d.Country,
		EventURL:        d.EventURL,
		ImageURL:        d.ImageURL,
		Year:            d.Year,
		StartDate:       formatDate(d.StartDate),
		EndDate:         formatDate(d.EndDate),
		ExpiryDate:      formatDate(d.ExpiryDate),
		Timezone:        d.Timezone,
		VirtualEvent:    d.Virtual,
		EventTemplateID: d.TemplateID,
		PrivateEvent:    d.Private,
	}
	if withImage {
		created := d.Created
		if created.IsZero() {
			created = d.StartDate
		}
		j.CreatedDate = created.UTC().Format(isoLayout)
		j.DropImage = dropImageOf(d)
	}
	return j
}

// dropImageOf describes d's artwork: ORIGINAL is ImageURL, CROP a file
// beside it.
func dropImageOf(d Drop) *dropImageJSON {
	id := uuidFor("image", d.ID)
	ext := path.Ext(d.ImageURL)
	crop := cropFile(d)
	base := strings.TrimSuffix(d.ImageURL, path.Base(d.ImageURL))
	return &dropImageJSON{
		PublicID: id,
		DropID:   d.ID,
		Gateways: []gatewayJSON{
			{ImageID: id, Filename: path.Base(d.ImageURL), MimeType: mimeOf(ext), URL: d.ImageURL, Type: "ORIGINAL"},
			{ImageID: id, Filename: crop, MimeType: mimeOf(ext), URL: base + crop, Type: "CROP"},
		},
	}
}

// cropFile is the file name of the circle crop of d's artwork, beside the
// original.
func cropFile(d Drop) string {
	return uuidFor("crop", d.ID) + path.Ext(d.ImageURL)
}

// mimeOf names the image type of a file extension.
func mimeOf(ext string) string {
	switch strings.ToLower(ext) {
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	}
	return "image/png"
}

// isoTime writes an optional instant as ISO 8601 in UTC, nil as null.
func isoTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(isoLayout)
	return &s
}
