package sandbox

import (
	"net/http"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/poapbot/poapbot/poap/wire"
)

// textRule is how one text field of a drop is checked.
type textRule struct {
	field     string
	dst       *string
	max       int  // characters; 0 for no bound
	required  bool // must not be empty or blank
	spaceOnly bool // a value of only spaces is refused
}

// dateRule is how one date field of a drop is checked.
type dateRule struct {
	field    string
	dst      *time.Time
	required bool
}

// applyDropFields applies the drop fields f carries to d, checking the
// rules of §2.1; create requires what POST /events requires. The error is
// a 400 refusal naming the field.
func applyDropFields(f form, d *Drop, create bool) error {
	texts := []textRule{
		{"name", &d.Name, wire.MaxDropText, create, true},
		{"description", &d.Description, wire.MaxDropDescription, create, false},
		{"city", &d.City, wire.MaxDropText, false, true},
		{"country", &d.Country, wire.MaxDropText, false, true},
		{"event_url", &d.EventURL, 0, false, true},
		{"timezone", &d.Timezone, 64, false, true},
	}
	for _, rule := range texts {
		if err := rule.apply(f); err != nil {
			return err
		}
	}
	dates := []dateRule{
		{"start_date", &d.StartDate, create},
		{"end_date", &d.EndDate, create},
		{"expiry_date", &d.ExpiryDate, create},
	}
	for _, rule := range dates {
		if err := rule.apply(f); err != nil {
			return err
		}
	}
	if err := applyDropFlags(f, d, create); err != nil {
		return err
	}
	return checkDropDates(*d)
}

// apply checks and copies the field, when given.
func (rule textRule) apply(f form) error {
	v, given := f.values[rule.field]
	switch {
	case rule.required && strings.TrimSpace(v) == "":
		return badRequest("%s is required", rule.field)
	case !given:
		return nil
	case rule.spaceOnly && v != "" && strings.TrimSpace(v) == "":
		return badRequest("%s must not be only spaces", rule.field)
	case rule.max > 0 && utf8.RuneCountInString(v) > rule.max:
		return badRequest("%s must be at most %d characters", rule.field, rule.max)
	}
	*rule.dst = v
	return nil
}

// apply checks and copies the date, when given.
func (rule dateRule) apply(f form) error {
	v := strings.TrimSpace(f.get(rule.field))
	if v == "" {
		if rule.required {
			return badRequest("%s is required", rule.field)
		}
		return nil
	}
	day, ok := parseDay(v)
	if !ok {
		return badRequest("%s must be YYYY-MM-DD or MM-DD-YYYY", rule.field)
	}
	*rule.dst = day
	return nil
}

// parseDay reads a date as the service accepts it: YYYY-MM-DD or
// MM-DD-YYYY.
func parseDay(v string) (time.Time, bool) {
	for _, layout := range []string{time.DateOnly, "01-02-2006"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// applyDropFlags checks and copies the booleans and numbers of a drop.
func applyDropFlags(f form, d *Drop, create bool) error {
	virtual, given, err := f.boolField("virtual_event")
	switch {
	case err != nil:
		return err
	case create && !given:
		return badRequest("virtual_event must be true or false")
	case given:
		d.Virtual = virtual
	}
	if private, given, err := f.boolField("private_event"); err != nil {
		return err
	} else if given {
		d.Private = private
	}
	if template, given, err := f.intField("event_template_id", 0, 1<<31-1); err != nil {
		return err
	} else if given {
		d.TemplateID = template
	}
	year, given, err := f.intField("year", 1900, 9999)
	switch {
	case err != nil:
		return err
	case given:
		d.Year = year
	case create:
		d.Year = d.StartDate.Year()
	}
	return nil
}

// checkDropDates refuses dates out of order: the end before the start, the
// expiry before the end. Unset dates are not compared.
func checkDropDates(d Drop) error {
	switch {
	case d.EndDate.IsZero() || d.StartDate.IsZero() || d.ExpiryDate.IsZero():
		return nil
	case d.EndDate.Before(d.StartDate):
		return badRequest("end_date must not be before start_date")
	case d.ExpiryDate.Before(d.EndDate):
		return badRequest("expiry_date must not be before end_date")
	}
	return nil
}

// checkCreateOnly checks the fields only POST /events takes: the edit code,
// the issuer's e-mail, the image and the number of mint links, which it
// returns.
func checkCreateOnly(f form) (requested int, err error) {
	if !isEditCode(f.get("secret_code")) {
		return 0, badRequest("secret_code must be 6 digits")
	}
	if classify(strings.ToLower(strings.TrimSpace(f.get("email")))) != kindEmail {
		return 0, badRequest("email must be an e-mail address")
	}
	if err := checkImage(f); err != nil {
		return 0, err
	}
	requested, _, err = f.intField("requested_codes", 0, wire.MaxRequestedCodes)
	return requested, err
}

// checkImage applies the artwork rules: under 4 MB, PNG or GIF content, a
// .png or .webp file name. The 500x500 size is curation's, not checked.
func checkImage(f form) error {
	switch {
	case !f.hasImage || len(f.image) == 0:
		return badRequest("image is required")
	case len(f.image) >= wire.MaxDropImage:
		return badRequest("image must be under 4 MB")
	}
	if t := http.DetectContentType(f.image); t != "image/png" && t != "image/gif" {
		return badRequest("image must be a png or gif file, not %s", t)
	}
	if ext := strings.ToLower(path.Ext(f.imageName)); ext != ".png" && ext != ".webp" {
		return badRequest("image file name must end in .png or .webp")
	}
	return nil
}

// isEditCode reports whether code is 6 ASCII digits.
func isEditCode(code string) bool {
	return len(code) == 6 && strings.Trim(code, "0123456789") == ""
}
