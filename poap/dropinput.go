package poap

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// DropInput is a new drop, the multipart/form-data fields of POST /events.
// CreateDrop checks the interface's rules before sending.
type DropInput struct {
	// Name is the drop's title (required). A test drop carries "test" in
	// its title and is private.
	Name string
	// Description is at most wire.MaxDropDescription characters (required).
	Description string
	// City, Country and EventURL may be empty, never only spaces.
	City     string
	Country  string
	EventURL string
	// StartDate, EndDate and ExpiryDate are required; EndDate may equal
	// StartDate, ExpiryDate is the last day collectors can mint. They are
	// sent as YYYY-MM-DD.
	StartDate  Date
	EndDate    Date
	ExpiryDate Date
	// Year defaults to StartDate's year.
	Year int
	// VirtualEvent says the drop is for an online event; always sent as
	// "true" or "false", which the service requires.
	VirtualEvent bool
	// Image is the artwork: under wire.MaxDropImage, PNG or GIF content,
	// ImageName with a .png or .webp extension, ImageType its MIME type
	// (image/png or image/gif; empty means sniffed). 500x500 and cropped
	// to a circle is the curators' expectation, not checked here.
	Image     io.Reader
	ImageName string
	ImageType string
	// EditCode is the 6-digit secret_code needed later to edit the drop,
	// read its mint links and request more.
	EditCode core.Secret
	// EventTemplateID selects the mint page's template; 0 is the default.
	EventTemplateID int64
	// Email receives the mint links and the edit code (required).
	Email string
	// RequestedCodes is the number of mint links to request with the
	// drop; 0 when another distribution method will be requested.
	RequestedCodes int
	// PrivateEvent hides the drop from the public gallery; set it for
	// tests.
	PrivateEvent bool
}

// CreateDrop creates a drop: POST /events, as multipart/form-data. The
// service e-mails the edit code to in.Email and, after review, the mint
// links. It returns the new drop, whose ID is what later calls need.
// Errors: a *FieldError (ErrInvalidInput) naming the first field that breaks
// a rule, before anything is sent; ErrInvalidEditCode for a code that is not
// 6 digits; from the service ErrUnauthorized, ErrRateLimited, ErrUnavailable
// and other answers as *APIError. It is not retried: a retry could create
// the drop twice.
func (c *Client) CreateDrop(ctx context.Context, in DropInput) (Drop, error) {
	if in.Year == 0 {
		in.Year = in.StartDate.Year
	}
	if err := in.validate(); err != nil {
		return Drop{}, err
	}
	image, imageType, err := readImage(wire.OpCreateDrop, in.Image, in.ImageName, in.ImageType)
	if err != nil {
		return Drop{}, err
	}
	fields := in.edit().fields()
	fields = append(fields,
		[2]string{"year", strconv.Itoa(in.Year)},
		[2]string{"virtual_event", strconv.FormatBool(in.VirtualEvent)},
		[2]string{"event_template_id", strconv.FormatInt(in.EventTemplateID, 10)},
		[2]string{"email", in.Email},
		[2]string{"requested_codes", strconv.Itoa(in.RequestedCodes)},
		[2]string{"private_event", strconv.FormatBool(in.PrivateEvent)})
	body, contentType, err := multipartBody(fields, &formFile{name: path.Base(in.ImageName), typ: imageType, data: image})
	if err != nil {
		return Drop{}, fieldError(wire.OpCreateDrop, "image", "%v", err)
	}
	var d Drop
	r := request{op: wire.OpCreateDrop, method: http.MethodPost, path: "/events",
		body: body.reader, contentLength: body.size, contentType: contentType, emptyOK: true,
		secrets: []string{in.EditCode.Reveal()}}
	if err := c.do(ctx, r, &d); err != nil {
		return Drop{}, err
	}
	return d, nil
}

// edit returns the fields in shares with DropEdit.
func (in DropInput) edit() DropEdit {
	return DropEdit{
		Name: in.Name, Description: in.Description, City: in.City, Country: in.Country, EventURL: in.EventURL,
		StartDate: in.StartDate, EndDate: in.EndDate, ExpiryDate: in.ExpiryDate, EditCode: in.EditCode,
	}
}

// validate checks the rules of the interface on a new drop.
func (in DropInput) validate() error {
	const op = wire.OpCreateDrop
	err := firstError(
		in.edit().validate(op),
		checkRequired(op, "email", in.Email))
	if err != nil {
		return err
	}
	switch {
	case !strings.Contains(in.Email, "@"):
		return fieldError(op, "email", "not an e-mail address")
	case in.Year < 1:
		return fieldError(op, "year", "%d is not a year", in.Year)
	case in.RequestedCodes < 0:
		return fieldError(op, "requested_codes", "%d is negative", in.RequestedCodes)
	case in.EventTemplateID < 0:
		return fieldError(op, "event_template_id", "%d is negative", in.EventTemplateID)
	case in.Image == nil:
		return fieldError(op, "image", "it is required")
	}
	return nil
}

// validate checks the rules of the interface on a drop's content.
func (in DropEdit) validate(op string) error {
	return firstError(
		checkRequired(op, "name", in.Name),
		checkLength(op, "name", in.Name, wire.MaxDropText),
		checkRequired(op, "description", in.Description),
		checkLength(op, "description", in.Description, wire.MaxDropDescription),
		checkNotBlank(op, "city", in.City),
		checkNotBlank(op, "country", in.Country),
		checkNotBlank(op, "event_url", in.EventURL),
		checkDates(op, in.StartDate, in.EndDate, in.ExpiryDate),
		checkEditCode(op, "secret_code", in.EditCode))
}

// checkDates requires the three dates, valid and in order.
func checkDates(op string, start, end, expiry Date) error {
	for _, d := range []struct {
		field string
		date  Date
	}{{"start_date", start}, {"end_date", end}, {"expiry_date", expiry}} {
		if d.date.IsZero() {
			return fieldError(op, d.field, "it is required")
		}
		if !validDate(d.date) {
			return fieldError(op, d.field, "%04d-%02d-%02d is not a calendar day", d.date.Year, d.date.Month, d.date.Day)
		}
	}
	if dateBefore(end, start) {
		return fieldError(op, "end_date", "%s is before start_date %s", end, start)
	}
	if dateBefore(expiry, end) {
		return fieldError(op, "expiry_date", "%s is before end_date %s", expiry, end)
	}
	return nil
}

// validDate reports whether d is a real calendar day.
func validDate(d Date) bool {
	return d.Month >= time.January && d.Month <= time.December && d.Day >= 1 &&
		DateOf(d.In(time.UTC)) == d
}

// dateBefore reports whether a is an earlier day than b.
func dateBefore(a, b Date) bool { return a.In(time.UTC).Before(b.In(time.UTC)) }

// fields returns the form fields of the drop, in the service's names.
func (in DropEdit) fields() [][2]string {
	return [][2]string{
		{"name", in.Name},
		{"description", in.Description},
		{"city", in.City},
		{"country", in.Country},
		{"start_date", in.StartDate.String()},
		{"end_date", in.EndDate.String()},
		{"expiry_date", in.ExpiryDate.String()},
		{"event_url", in.EventURL},
		{"secret_code", in.EditCode.Reveal()},
	}
}

// readImage reads the artwork, at most wire.MaxDropImage bytes, and checks
// its name, declared type and content. It returns the bytes and the MIME
// type to send.
func readImage(op string, r io.Reader, name, declared string) ([]byte, string, error) {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".png", ".webp":
	default:
		return nil, "", fieldError(op, "image", "the file name must end in .png or .webp")
	}
	data, err := io.ReadAll(io.LimitReader(r, wire.MaxDropImage))
	if err != nil {
		return nil, "", fieldError(op, "image", "reading it: %v", err)
	}
	if len(data) >= wire.MaxDropImage {
		return nil, "", fieldError(op, "image", "it must be under 4 MB")
	}
	sniffed := http.DetectContentType(data)
	if sniffed != "image/png" && sniffed != "image/gif" {
		return nil, "", fieldError(op, "image", "the content is %s, not PNG or GIF", sniffed)
	}
	if declared != "" && !strings.EqualFold(declared, sniffed) {
		return nil, "", fieldError(op, "image", "declared as %s but the content is %s", declared, sniffed)
	}
	return data, sniffed, nil
}

// formFile is a file part of a multipart body.
type formFile struct {
	name, typ string
	data      []byte
}

// bufferedBody is a request body built once and read afresh on each attempt.
type bufferedBody struct {
	data []byte
	size int64
}

// reader returns a new reader over the body, as request.body wants.
func (b bufferedBody) reader() (io.Reader, error) { return bytes.NewReader(b.data), nil }

// multipartBody encodes fields, then file when given, as multipart/form-data.
// The body is buffered: the image is bounded by wire.MaxDropImage, and a
// retry or a token renewal needs to send it again.
func multipartBody(fields [][2]string, file *formFile) (bufferedBody, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return bufferedBody{}, "", err
		}
	}
	if file != nil {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", multipart.FileContentDisposition("image", file.name))
		h.Set("Content-Type", file.typ)
		part, err := w.CreatePart(h)
		if err != nil {
			return bufferedBody{}, "", err
		}
		if _, err := part.Write(file.data); err != nil {
			return bufferedBody{}, "", err
		}
	}
	if err := w.Close(); err != nil {
		return bufferedBody{}, "", err
	}
	return bufferedBody{data: buf.Bytes(), size: int64(buf.Len())}, w.FormDataContentType(), nil
}
