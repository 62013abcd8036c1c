package sandbox

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// maxFormBody bounds a drop's form, image included; it is well above the
// 4 MB image limit so that an oversized image gets the clear refusal.
const maxFormBody = 12 << 20

// form is a request's fields, from a multipart, URL-encoded or JSON body.
type form struct {
	values    map[string]string // first value of each field given
	hasImage  bool
	imageName string
	image     []byte
}

// has reports whether field was given, even empty.
func (f form) has(field string) bool {
	_, ok := f.values[field]
	return ok
}

// get returns field, or "" when not given.
func (f form) get(field string) string { return f.values[field] }

// readForm reads r's body by its Content-Type; the error is a 400 refusal.
func readForm(w http.ResponseWriter, r *http.Request) (form, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBody)
	ctype, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ctype {
	case "multipart/form-data":
		return readMultipart(r)
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return form{}, badRequest("body is not a valid form")
		}
		return form{values: firstValues(r.PostForm)}, nil
	case "application/json":
		return readJSONForm(r)
	}
	return form{}, &apiError{http.StatusUnsupportedMediaType, "Unsupported Media Type: " + ctype}
}

// readMultipart reads a multipart body, the image file into memory.
func readMultipart(r *http.Request) (form, error) {
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return form{}, &apiError{http.StatusRequestEntityTooLarge, "image must be under 4 MB"}
		}
		return form{}, badRequest("body is not a valid multipart form")
	}
	defer r.MultipartForm.RemoveAll()
	f := form{values: firstValues(r.MultipartForm.Value)}
	files := r.MultipartForm.File["image"]
	if len(files) == 0 {
		return f, nil
	}
	file, err := files[0].Open()
	if err != nil {
		return form{}, badRequest("image could not be read")
	}
	defer file.Close()
	if f.image, err = io.ReadAll(file); err != nil {
		return form{}, badRequest("image could not be read")
	}
	f.hasImage, f.imageName = true, files[0].Filename
	return f, nil
}

// readJSONForm reads a JSON object's members as form fields: strings as
// they are, numbers and booleans as written; nulls are not given.
func readJSONForm(r *http.Request) (form, error) {
	var raw map[string]json.RawMessage
	if err := readJSON(r, &raw); err != nil {
		return form{}, err
	}
	f := form{values: map[string]string{}}
	for k, v := range raw {
		var s string
		switch {
		case string(v) == "null":
			continue
		case json.Unmarshal(v, &s) == nil:
			f.values[k] = s
		default:
			f.values[k] = string(v)
		}
	}
	return f, nil
}

// firstValues keeps the first value of each field.
func firstValues(values map[string][]string) map[string]string {
	out := make(map[string]string, len(values))
	for k, v := range values {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

// boolField reads field as the service requires booleans: exactly true or
// false. given is false when the field is absent.
func (f form) boolField(field string) (v, given bool, err error) {
	if !f.has(field) {
		return false, false, nil
	}
	switch strings.TrimSpace(f.get(field)) {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, true, badRequest("%s must be true or false", field)
}

// intField reads field as an integer from lo to hi; given is false when
// the field is absent or empty.
func (f form) intField(field string, lo, hi int) (v int, given bool, err error) {
	text := strings.TrimSpace(f.get(field))
	if text == "" {
		return 0, false, nil
	}
	v, err = strconv.Atoi(text)
	if err != nil || v < lo || v > hi {
		return 0, true, badRequest("%s must be a whole number from %d to %d", field, lo, hi)
	}
	return v, true, nil
}
