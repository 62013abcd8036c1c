package sandbox

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/wire"
)

// Formats of the service's output: "created" and "migrated" are
// "YYYY-MM-DD HH:MM:SS" in UTC, event dates "DD-Mon-YYYY".
const (
	timeLayout = "2006-01-02 15:04:05"
	dateLayout = "02-Jan-2006"
)

// eventJSON is a drop as scans write it. supply appears only in the list
// scan.
type eventJSON struct {
	ID          int64  `json:"id"`
	FancyID     string `json:"fancy_id"`
	Name        string `json:"name"`
	EventURL    string `json:"event_url"`
	ImageURL    string `json:"image_url"`
	Country     string `json:"country"`
	City        string `json:"city"`
	Description string `json:"description"`
	Year        int    `json:"year"`
	StartDate   string `json:"start_date"`
	EndDate     string `json:"end_date"`
	ExpiryDate  string `json:"expiry_date"`
	Supply      *int   `json:"supply,omitempty"`
	Timezone    string `json:"timezone"`
}

// scanJSON is one item of GET /actions/scan/{address}. migrated is null
// until a token moves network: the OAS types it as a string, not nullable,
// but production writes null ([LIVE-NOTES] in poap-api-facts §3.1, §4), and
// so do the holder pages.
type scanJSON struct {
	Event    eventJSON `json:"event"`
	TokenID  string    `json:"tokenId"`
	Owner    string    `json:"owner"`
	Chain    string    `json:"chain"`
	Created  string    `json:"created"`
	Migrated *string   `json:"migrated"`
}

// scanEventJSON is the answer of GET /actions/scan/{address}/{eventId}: no
// chain, dates or supply.
type scanEventJSON struct {
	Event   eventJSON `json:"event"`
	TokenID string    `json:"tokenId"`
	Owner   string    `json:"owner"`
}

// scan answers GET /actions/scan/{address}: every POAP held, newest first,
// as a bare array ([] for none).
func (s *Server) scan(w http.ResponseWriter, r *http.Request) {
	items, ok := s.scanItems(r.PathValue("address"))
	if !ok {
		writeError(w, http.StatusBadRequest, msgInvalidAddress)
		return
	}
	writeJSON(w, http.StatusOK, items)
}

// scanItems lists what address holds; ok is false when the address is not
// valid.
func (s *Server) scanItems(address string) (items []scanJSON, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key := strings.ToLower(address); s.firstScans[key] == 0 {
		s.firstScans[key] = s.requests[wire.OpScan]
	}
	holder, k := s.resolve(address)
	if k == kindInvalid {
		return nil, false
	}
	held := s.held(holder)
	items = make([]scanJSON, 0, len(held))
	for _, t := range held {
		supply := s.supply(t.EventID)
		items = append(items, scanJSON{
			Event:    s.eventJSON(t.EventID, &supply),
			TokenID:  tokenID(t),
			Owner:    t.Owner,
			Chain:    t.Chain,
			Created:  t.Created.UTC().Format(timeLayout),
			Migrated: formatTime(t.Migrated),
		})
	}
	return items, true
}

// scanEvent answers GET /actions/scan/{address}/{eventId}: the POAP of that
// drop the address holds, or 404 when it holds none.
func (s *Server) scanEvent(w http.ResponseWriter, r *http.Request) {
	eventID, err := strconv.ParseInt(r.PathValue("eventId"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "params/eventId must be integer")
		return
	}
	item, ok := s.scanEventItem(r.PathValue("address"), eventID)
	switch {
	case !ok:
		writeError(w, http.StatusBadRequest, msgInvalidAddress)
	case item == nil:
		writeError(w, http.StatusNotFound, msgNoToken)
	default:
		writeJSON(w, http.StatusOK, item)
	}
}

// scanEventItem finds the POAP of drop eventID that address holds (nil for
// none); ok is false when the address is not valid.
func (s *Server) scanEventItem(address string, eventID int64) (item *scanEventJSON, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	holder, k := s.resolve(address)
	if k == kindInvalid {
		return nil, false
	}
	for _, t := range s.held(holder) {
		if t.EventID == eventID {
			return &scanEventJSON{Event: s.eventJSON(eventID, nil), TokenID: tokenID(t), Owner: t.Owner}, true
		}
	}
	return nil, true
}

// eventJSON writes the drop eventID as scans do. The caller holds s.mu.
func (st *state) eventJSON(eventID int64, supply *int) eventJSON {
	d := st.drops[eventID]
	return eventJSON{
		ID:          d.ID,
		FancyID:     d.FancyID,
		Name:        d.Name,
		EventURL:    d.EventURL,
		ImageURL:    d.ImageURL,
		Country:     d.Country,
		City:        d.City,
		Description: d.Description,
		Year:        d.Year,
		StartDate:   formatDate(d.StartDate),
		EndDate:     formatDate(d.EndDate),
		ExpiryDate:  formatDate(d.ExpiryDate),
		Supply:      supply,
		Timezone:    d.Timezone,
	}
}

// tokenID writes a token id as the service does: a decimal string, empty
// for an e-mail reservation.
func tokenID(t Token) string {
	if t.ID == 0 {
		return ""
	}
	return strconv.FormatInt(t.ID, 10)
}

// formatDate writes a day as DD-Mon-YYYY, or "" when unset.
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(dateLayout)
}

// formatTime writes an optional instant as the service does, nil as null.
func formatTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(timeLayout)
	return &s
}
