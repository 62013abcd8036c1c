package sandbox

import (
	"cmp"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// createDrop answers POST /events: a multipart form checked by the rules
// of §2.1, answered with the drop. requested_codes above zero files a
// mint-link request, pending review like any other. The artwork is kept and
// served at the drop's image_url, on the Server's own host (artwork.go).
func (s *Server) createDrop(w http.ResponseWriter, r *http.Request) {
	f, err := readForm(w, r)
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	d := Drop{Timezone: "UTC"}
	if err := applyDropFields(f, &d, true); err != nil {
		writeResult(w, nil, err)
		return
	}
	requested, err := checkCreateOnly(f)
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	now := s.now()
	d.EditCode, d.Email, d.Created = f.get("secret_code"), strings.TrimSpace(f.get("email")), now
	s.mu.Lock()
	defer s.mu.Unlock()
	d = s.createDropLocked(d, requestBase(r)+"/assets", path.Ext(f.imageName), now)
	s.keepArtwork(d, f.image)
	if requested > 0 {
		s.fileRequest(d.ID, redeemQR, requested, now, nil)
	}
	writeJSON(w, http.StatusOK, dropJSONOf(d, true))
}

// createDropLocked stores a new drop with a unique fancy id and an image
// address below assets with extension ext. The caller holds s.mu.
func (st *state) createDropLocked(d Drop, assets, ext string, now time.Time) Drop {
	d.ID = 0
	fancy := slug(d.Name + " " + strconv.Itoa(d.Year))
	d.FancyID = fancy
	for n := 2; st.dropByFancy(d.FancyID) != nil; n++ {
		d.FancyID = fmt.Sprintf("%s-%d", fancy, n)
	}
	d.ImageURL = fmt.Sprintf("%s/%s-%d%s", assets, d.FancyID, now.UnixMilli(), cmp.Or(ext, ".png"))
	return st.addDrop(d)
}

// editDrop answers PUT /events/{fancyId}: once the secret_code matches,
// the drop takes the form's content; 204 without a body, as the OAS says.
// The form is the whole drop, with the fields the OAS requires (checkEdit);
// the image, required too, is ignored: it cannot change.
func (s *Server) editDrop(w http.ResponseWriter, r *http.Request) {
	f, err := readForm(w, r)
	if err == nil {
		err = s.applyEdit(r.PathValue("fancyId"), f)
	}
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// applyEdit checks the edit code of the drop fancyID and applies f to it.
func (s *Server) applyEdit(fancyID string, f form) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dropByFancy(fancyID)
	if d == nil {
		return notFoundError(msgEventNotFound)
	}
	if err := checkEditCode(*d, f.get("secret_code")); err != nil {
		return err
	}
	if err := checkEdit(f); err != nil {
		return err
	}
	edited := *d
	// [GUESS] A flag left out takes the OAS's default, false, as a
	// validator that fills in defaults does: an edit that omits
	// private_event makes a private drop public. The interface does not
	// say. event_template_id keeps its value when left out: its defaults
	// disagree (0 in the interface, 1 in the OAS).
	edited.Virtual, edited.Private = false, false
	if err := applyDropFields(f, &edited, false); err != nil {
		return err
	}
	s.drops[edited.ID] = edited
	return nil
}

// editRequired are the fields of PUT /events/{fancyId} that the OAS
// requires besides secret_code and image: the whole drop, not only what
// changes.
var editRequired = []string{"name", "description", "city", "country", "start_date", "end_date", "expiry_date", "event_url"}

// checkEdit refuses an edit without a field the OAS requires, the image
// included.
func checkEdit(f form) error {
	for _, field := range editRequired {
		if !f.has(field) {
			return badRequest("%s is required", field)
		}
	}
	if !f.hasImage || len(f.image) == 0 {
		return badRequest("image is required")
	}
	return nil
}

// checkEditCode refuses a missing or wrong edit code of d.
func checkEditCode(d Drop, code string) error {
	switch {
	case code == "":
		return badRequest(msgEditCodeMissing)
	case d.EditCode == "" || code != d.EditCode:
		return badRequest(msgInvalidEditCode)
	}
	return nil
}

// dropByFancy finds a drop by fancy id, or nil. The caller holds s.mu.
func (st *state) dropByFancy(fancyID string) *Drop {
	for _, d := range st.drops {
		if d.FancyID == fancyID {
			return &d
		}
	}
	return nil
}

// dropByFancyID answers GET /events/{fancyId}.
func (s *Server) dropByFancyID(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dropByFancy(r.PathValue("fancyId"))
	if d == nil {
		writeError(w, http.StatusNotFound, msgEventNotFound)
		return
	}
	writeJSON(w, http.StatusOK, dropJSONOf(*d, true))
}

// dropByID answers GET /events/id/{id}.
func (s *Server) dropByID(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drops[id]
	if !ok {
		writeError(w, http.StatusNotFound, msgEventNotFound)
		return
	}
	writeJSON(w, http.StatusOK, dropJSONOf(d, true))
}

// pathID reads the path value name as an id.
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil {
		return 0, badRequest("params/%s must be integer", name)
	}
	return id, nil
}

// dropsPage is the answer of GET /paginated-events.
type dropsPage struct {
	Items  []dropJSON `json:"items"`
	Total  int        `json:"total"`
	Offset int        `json:"offset"`
	Limit  int        `json:"limit"`
}

// dropSorts are the sort_field values of GET /paginated-events.
var dropSorts = map[string]func(a, b Drop) int{
	"id":           func(a, b Drop) int { return cmp.Compare(a.ID, b.ID) },
	"name":         func(a, b Drop) int { return strings.Compare(a.Name, b.Name) },
	"year":         func(a, b Drop) int { return cmp.Compare(a.Year, b.Year) },
	"start_date":   func(a, b Drop) int { return a.StartDate.Compare(b.StartDate) },
	"end_date":     func(a, b Drop) int { return a.EndDate.Compare(b.EndDate) },
	"expiry_date":  func(a, b Drop) int { return a.ExpiryDate.Compare(b.ExpiryDate) },
	"created_date": func(a, b Drop) int { return a.Created.Compare(b.Created) },
}

// listDrops answers GET /paginated-events: limit (default 10, at most
// 1000), offset, sort_field (default start_date) and sort_dir (asc or
// desc, the default).
func (s *Server) listDrops(w http.ResponseWriter, r *http.Request) {
	q := query{r}
	limit, offset, err := q.page(10, 1000)
	if err != nil {
		writeResult(w, nil, err)
		return
	}
	field, dir := cmp.Or(q.get("sort_field"), "start_date"), cmp.Or(q.get("sort_dir"), "desc")
	less, ok := dropSorts[field]
	if !ok || (dir != "asc" && dir != "desc") {
		writeResult(w, nil, badRequest("sort_field must be one of id, name, year, start_date, end_date, expiry_date, created_date and sort_dir asc or desc"))
		return
	}
	all := s.sortedDrops(less, dir == "desc")
	page := dropsPage{Items: []dropJSON{}, Total: len(all), Offset: offset, Limit: limit}
	for _, d := range all[min(offset, len(all)):min(offset+limit, len(all))] {
		page.Items = append(page.Items, dropJSONOf(d, true))
	}
	writeJSON(w, http.StatusOK, page)
}

// listEvents answers the deprecated GET /events: every drop, newest id
// first, as a bare array.
func (s *Server) listEvents(w http.ResponseWriter, _ *http.Request) {
	items := []dropJSON{}
	for _, d := range s.sortedDrops(dropSorts["id"], true) {
		items = append(items, dropJSONOf(d, true))
	}
	writeJSON(w, http.StatusOK, items)
}

// sortedDrops returns every drop ordered by less, ties by id.
func (s *Server) sortedDrops(less func(a, b Drop) int, desc bool) []Drop {
	s.mu.Lock()
	all := make([]Drop, 0, len(s.drops))
	for _, d := range s.drops {
		all = append(all, d)
	}
	s.mu.Unlock()
	slices.SortFunc(all, func(a, b Drop) int {
		c := cmp.Or(less(a, b), cmp.Compare(a.ID, b.ID))
		if desc {
			return -c
		}
		return c
	})
	return all
}

// query reads a request's query string.
type query struct{ r *http.Request }

// get returns the parameter name, or "".
func (q query) get(name string) string { return q.r.URL.Query().Get(name) }

// page reads limit (def when absent, at most max) and offset.
func (q query) page(def, max int) (limit, offset int, err error) {
	limit, offset = def, 0
	if v := q.get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 || limit > max {
			return 0, 0, badRequest("querystring/limit must be a number from 0 to %d", max)
		}
	}
	if v := q.get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, badRequest("querystring/offset must be a number >= 0")
		}
	}
	return limit, offset, nil
}
