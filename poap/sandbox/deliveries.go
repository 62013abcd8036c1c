package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// delivery is a fixed list of addresses, each allowed to mint some drops
// once.
type delivery struct {
	id        int64
	texts     deliveryTexts
	eventIDs  []int64
	addresses map[string]*deliveryAddress // by lower-case address
	claimed   int
}

// deliveryAddress is one entry of a delivery's list.
type deliveryAddress struct {
	address string
	events  []int64
	claimed bool
}

// deliveryTexts are the page and card texts of a delivery, echoed back.
type deliveryTexts struct {
	Slug                string `json:"slug"`
	CardTitle           string `json:"card_title"`
	CardText            string `json:"card_text"`
	PageTitle           string `json:"page_title"`
	PageText            string `json:"page_text"`
	Image               string `json:"image"`
	PageTitleImage      string `json:"page_title_image"`
	MetadataTitle       string `json:"metadata_title"`
	MetadataDescription string `json:"metadata_description"`
}

// deliveryInput is the body of POST /deliveries. event_ids and
// secret_codes are comma-separated strings, as the OAS types them, or
// arrays.
type deliveryInput struct {
	deliveryTexts
	EventIDs    json.RawMessage `json:"event_ids"`
	SecretCodes json.RawMessage `json:"secret_codes"`
	Addresses   []struct {
		Address string   `json:"address"`
		Events  []number `json:"events"`
	} `json:"addresses"`
}

// deliveryJSON is a delivery as POST /deliveries answers it.
type deliveryJSON struct {
	ID int64 `json:"id"`
	deliveryTexts
	EventIDs         string `json:"event_ids"`
	Active           bool   `json:"active"`
	ClaimedAddresses int    `json:"claimed_addresses"`
	TotalAddresses   int    `json:"total_addresses"`
	Private          bool   `json:"private"`
}

// createDelivery answers POST /deliveries. The list of addresses is fixed
// here for good; the delivery is active at once. Like a mint, a creation
// may take effect and lose its response (DropNextDeliveryResponses).
func (s *Server) createDelivery(w http.ResponseWriter, r *http.Request) {
	serveMint(s, w, r, func(in deliveryInput, _ time.Time) (deliveryJSON, bool, error) {
		return s.addDelivery(in)
	})
}

// addDelivery checks in against the drops and stores it; drop says the
// response is to be lost.
func (s *Server) addDelivery(in deliveryInput) (body deliveryJSON, drop bool, err error) {
	ids, err := deliveryEvents(in)
	if err != nil {
		return deliveryJSON{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkDeliveryTexts(in.deliveryTexts); err != nil {
		return deliveryJSON{}, false, err
	}
	if err := s.checkDeliveryCodes(ids, listOf(in.SecretCodes)); err != nil {
		return deliveryJSON{}, false, err
	}
	dl := &delivery{id: s.nextDelivery, texts: in.deliveryTexts, eventIDs: ids, addresses: map[string]*deliveryAddress{}}
	if err := s.fillDeliveryAddresses(dl, in); err != nil {
		return deliveryJSON{}, false, err
	}
	s.nextDelivery++
	s.deliveries[dl.id] = dl
	return dl.json(), s.deliveryApplied(), nil
}

// deliveryBySlug answers GET /delivery/slug/{slug} with the delivery as
// POST /deliveries does. Slugs match whatever their case, as when a new
// one is checked against those in use.
func (s *Server) deliveryBySlug(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	dl := s.deliveryWithSlug(r.PathValue("slug"))
	var body deliveryJSON
	if dl != nil {
		body = dl.json()
	}
	s.mu.Unlock()
	if dl == nil {
		writeError(w, http.StatusNotFound, msgDeliveryNotFound)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// deliveryWithSlug returns the delivery whose slug is slug, whatever its
// case, or nil. The caller holds s.mu.
func (st *state) deliveryWithSlug(slug string) *delivery {
	for _, dl := range st.deliveries {
		if strings.EqualFold(dl.texts.Slug, slug) {
			return dl
		}
	}
	return nil
}

// deliveryEvents reads event_ids.
func deliveryEvents(in deliveryInput) ([]int64, error) {
	items := listOf(in.EventIDs)
	if len(items) == 0 {
		return nil, badRequest("event_ids is required")
	}
	ids := make([]int64, len(items))
	for i, item := range items {
		id, err := strconv.ParseInt(item, 10, 64)
		if err != nil || id < 1 {
			return nil, badRequest("event_ids must be drop ids, not %q", item)
		}
		ids[i] = id
	}
	return ids, nil
}

// listOf reads a comma-separated string, or an array of strings or
// numbers, into its items.
func listOf(raw json.RawMessage) []string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' })
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]string, len(items))
	for i, item := range items {
		if json.Unmarshal(item, &out[i]) != nil {
			out[i] = string(item)
		}
	}
	return out
}

// checkDeliveryTexts refuses a delivery without slug or titles, or with a
// slug in use. The caller holds s.mu.
func (st *state) checkDeliveryTexts(t deliveryTexts) error {
	switch {
	case checkClaimName(t.Slug) != nil:
		return badRequest("slug must be 1 to 100 letters, digits, hyphens or underscores")
	case strings.TrimSpace(t.CardTitle) == "":
		return badRequest("card_title is required")
	case strings.TrimSpace(t.PageTitle) == "":
		return badRequest("page_title is required")
	}
	if st.deliveryWithSlug(t.Slug) != nil {
		return badRequest("slug %q is already taken", t.Slug)
	}
	return nil
}

// checkDeliveryCodes checks one edit code per drop, in the same order. The
// caller holds s.mu.
func (st *state) checkDeliveryCodes(ids []int64, codes []string) error {
	if len(codes) != len(ids) {
		return badRequest("secret_codes must give one edit code for each of event_ids, in the same order")
	}
	for i, id := range ids {
		d, ok := st.drops[id]
		if !ok {
			return notFoundError(fmt.Sprintf("%s: %d", msgEventNotFound, id))
		}
		if err := checkEditCode(d, codes[i]); err != nil {
			return err
		}
	}
	return nil
}

// fillDeliveryAddresses checks and stores the list: valid, distinct
// addresses, each with drops of the delivery. The caller holds s.mu.
func (st *state) fillDeliveryAddresses(dl *delivery, in deliveryInput) error {
	if len(in.Addresses) == 0 {
		return badRequest("addresses must list at least one address")
	}
	for i, a := range in.Addresses {
		holder, k := st.resolve(strings.TrimSpace(a.Address))
		if k != kindAddress {
			return badRequest("%s: addresses[%d]", msgInvalidAddress, i)
		}
		if dl.addresses[strings.ToLower(holder)] != nil {
			return badRequest("addresses[%d]: %s is listed twice", i, a.Address)
		}
		entry := &deliveryAddress{address: holder}
		for _, e := range a.Events {
			if !containsID(dl.eventIDs, e.V) {
				return badRequest("addresses[%d].events: %d is not one of event_ids", i, e.V)
			}
			entry.events = append(entry.events, e.V)
		}
		if len(entry.events) == 0 {
			entry.events = dl.eventIDs
		}
		dl.addresses[strings.ToLower(holder)] = entry
	}
	return nil
}

// containsID reports whether ids holds id.
func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// json writes dl as the service does.
func (dl *delivery) json() deliveryJSON {
	ids := make([]string, len(dl.eventIDs))
	for i, id := range dl.eventIDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return deliveryJSON{
		ID:               dl.id,
		deliveryTexts:    dl.texts,
		EventIDs:         strings.Join(ids, ","),
		Active:           true,
		ClaimedAddresses: dl.claimed,
		TotalAddresses:   len(dl.addresses),
	}
}

// claimDeliveryInput is the body of POST /actions/claim-delivery-v2.
type claimDeliveryInput struct {
	ID      number `json:"id"`
	Address string `json:"address"`
}

// claimDelivery answers POST /actions/claim-delivery-v2 with {queue_uid}:
// it mints the listed drops to a listed address, once.
func (s *Server) claimDelivery(w http.ResponseWriter, r *http.Request) {
	serveMint(s, w, r, func(in claimDeliveryInput, now time.Time) (map[string]string, bool, error) {
		uid, drop, err := s.deliver(in, now)
		return map[string]string{"queue_uid": uid}, drop, err
	})
}

// deliver applies a delivery claim; drop says the response is to be lost.
// Drops the address holds already are skipped.
func (s *Server) deliver(in claimDeliveryInput, now time.Time) (uid string, drop bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dl := s.deliveries[in.ID.V]
	if dl == nil {
		return "", false, notFoundError(msgDeliveryNotFound)
	}
	holder, k := s.resolve(strings.TrimSpace(in.Address))
	entry := dl.addresses[strings.ToLower(holder)]
	switch {
	case k != kindAddress:
		return "", false, badRequest(msgInvalidAddress)
	case entry == nil:
		return "", false, badRequest("This address is not on the delivery's list")
	case entry.claimed:
		return "", false, badRequest(msgDeliveryClaimed)
	}
	for _, id := range entry.events {
		if !s.holdsDrop(id, holder) {
			if _, err := s.mintOnDrop(id, holder, now); err != nil {
				return "", false, err
			}
		}
	}
	entry.claimed = true
	dl.claimed++
	return s.newTx(txMintDelivery, now).uid, s.mintApplied(), nil
}
