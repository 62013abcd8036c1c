package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/poapbot/poapbot/poap/wire"
)

// momentsVariables are the variables of the moments query.
type momentsVariables struct {
	Limit   *int            `json:"limit"`
	Offset  int             `json:"offset"`
	Where   *momentsWhere   `json:"where"`
	OrderBy json.RawMessage `json:"orderBy"`
}

// momentsWhere is the part of moments_bool_exp the Server understands.
type momentsWhere struct {
	DropID *struct {
		In []int64 `json:"_in"`
		Eq *int64  `json:"_eq"`
	} `json:"drop_id"`
	Author *struct {
		Eq    *string `json:"_eq"`
		ILike *string `json:"_ilike"`
	} `json:"author"`
	ID *struct {
		Eq *string `json:"_eq"`
	} `json:"id"`
	CreatedOn *struct {
		Gte *time.Time `json:"_gte"`
		Lte *time.Time `json:"_lte"`
	} `json:"created_on"`
}

// momentOrder is one moments_order_by entry.
type momentOrder struct {
	field string
	desc  bool
}

// graphQL answers POST /v1/graphql, the Moments query service, a Hasura
// schema in production. The Server is no GraphQL engine: it answers the one
// query the poap client and the official SDK send, the moments field with
// the variables $limit, $offset, $where and $orderBy, and returns every
// field of the Moments it selects. As Hasura does, a query it cannot answer
// gets status 200 with {"errors":[{"message"}]}; a body that is not JSON
// gets 400. An X-API-Key is accepted and not required.
func (s *Server) graphQL(w http.ResponseWriter, r *http.Request) {
	var req wire.GraphQLRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		writeCompassError(w, http.StatusBadRequest, "invalid-json", "the request body is not a JSON object")
		return
	}
	if field := graphQLRootField(req.Query); field != "moments" {
		writeCompassError(w, http.StatusOK, "validation-failed", fmt.Sprintf("field '%s' not found in type: 'query_root'", field))
		return
	}
	vars, order, err := parseMomentsVariables(req.Variables)
	if err != nil {
		writeCompassError(w, http.StatusOK, "validation-failed", err.Error())
		return
	}
	rows := s.moments.query(vars, order, func(key string) string { return mediaGatewayURL(r, key) })
	writeJSON(w, http.StatusOK, wire.MomentsAnswer{Data: &wire.MomentsData{Moments: rows}})
}

// writeCompassError answers with one GraphQL error.
func writeCompassError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, wire.MomentsAnswer{
		Errors: []wire.GraphQLError{{Message: message, Extensions: map[string]string{"code": code, "path": "$"}}},
	})
}

// graphQLRootField is the first field selected by a GraphQL document: the name
// after its first "{".
func graphQLRootField(query string) string {
	_, body, ok := strings.Cut(query, "{")
	if !ok {
		return ""
	}
	body = strings.TrimSpace(body)
	end := strings.IndexFunc(body, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if end < 0 {
		return body
	}
	return body[:end]
}

// parseMomentsVariables reads the variables; fields of where the Server
// does not know are an error, as they are to Hasura.
func parseMomentsVariables(raw json.RawMessage) (momentsVariables, []momentOrder, error) {
	var v momentsVariables
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return v, nil, fmt.Errorf("variables: %v", err)
		}
	}
	if v.Limit == nil {
		return v, nil, fmt.Errorf(`expecting a value for non-nullable variable: "limit"`)
	}
	order, err := parseOrderBy(v.OrderBy)
	return v, order, err
}

// parseOrderBy reads $orderBy, a list of {field: direction} objects or a
// single one, as GraphQL coerces it.
func parseOrderBy(raw json.RawMessage) ([]momentOrder, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []map[string]string
	if err := json.Unmarshal(raw, &list); err != nil {
		var one map[string]string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("orderBy: %v", err)
		}
		list = []map[string]string{one}
	}
	var keys []momentOrder
	for _, entry := range list {
		for field, dir := range entry {
			if field != "created_on" && field != "id" {
				return nil, fmt.Errorf("field '%s' not found in type: 'moments_order_by'", field)
			}
			if !strings.HasPrefix(dir, "asc") && !strings.HasPrefix(dir, "desc") {
				return nil, fmt.Errorf("unexpected value '%s' for enum: 'order_by'", dir)
			}
			keys = append(keys, momentOrder{field: field, desc: strings.HasPrefix(dir, "desc")})
		}
	}
	return keys, nil
}

// query selects, sorts and pages the Moments as v and order say; each
// file's gateway address is gatewayURL(key).
func (st *momentStore) query(v momentsVariables, order []momentOrder, gatewayURL func(key string) string) []wire.MomentRow {
	st.mu.Lock()
	defer st.mu.Unlock()
	var selected []Moment
	for _, m := range st.moments {
		if v.Where.match(m) {
			selected = append(selected, m)
		}
	}
	slices.SortStableFunc(selected, func(a, b Moment) int { return compareMoments(a, b, order) })
	start := min(max(v.Offset, 0), len(selected))
	end := min(start+max(*v.Limit, 0), len(selected))
	rows := make([]wire.MomentRow, 0, end-start)
	for _, m := range selected[start:end] {
		row := toMomentRow(m)
		row.Medias = st.mediasOf(m, gatewayURL)
		rows = append(rows, row)
	}
	return rows
}

// mediasOf lists the files of m, processed all since attach took them, as
// the query does: an empty list, not null, for a Moment without files, as
// Hasura writes an array relation. The caller holds st.mu.
func (st *momentStore) mediasOf(m Moment, gatewayURL func(key string) string) []wire.MomentMedia {
	out := make([]wire.MomentMedia, 0, len(m.MediaKeys))
	for _, key := range m.MediaKeys {
		t := st.files[key].DeclaredType
		out = append(out, wire.MomentMedia{MimeType: t, Gateways: []wire.MediaGateway{{Type: t, URL: gatewayURL(key)}}})
	}
	return out
}

// match reports whether m passes every condition of w; a nil w passes all.
func (w *momentsWhere) match(m Moment) bool {
	if w == nil {
		return true
	}
	if d := w.DropID; d != nil {
		if d.In != nil && !slices.ContainsFunc(m.DropIDs, func(id int64) bool { return slices.Contains(d.In, id) }) ||
			d.Eq != nil && !slices.Contains(m.DropIDs, *d.Eq) {
			return false
		}
	}
	if a := w.Author; a != nil {
		if a.Eq != nil && m.Author != *a.Eq || a.ILike != nil && !likeMatch(*a.ILike, m.Author) {
			return false
		}
	}
	if w.ID != nil && w.ID.Eq != nil && m.ID != *w.ID.Eq {
		return false
	}
	if c := w.CreatedOn; c != nil {
		if c.Gte != nil && m.CreatedOn.Before(*c.Gte) || c.Lte != nil && m.CreatedOn.After(*c.Lte) {
			return false
		}
	}
	return true
}

// compareMoments orders two Moments by the order keys.
func compareMoments(a, b Moment, order []momentOrder) int {
	for _, k := range order {
		var c int
		switch k.field {
		case "created_on":
			c = a.CreatedOn.Compare(b.CreatedOn)
		case "id":
			c = strings.Compare(a.ID, b.ID)
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// likeMatch reports whether s matches the ILIKE pattern: % any run, _ any
// character, a backslash escapes the next one; letter case is ignored.
func likeMatch(pattern, s string) bool {
	var re strings.Builder
	re.WriteString(`(?is)^`)
	escaped := false
	for _, r := range pattern {
		switch {
		case escaped:
			re.WriteString(regexp.QuoteMeta(string(r)))
			escaped = false
		case r == '\\':
			escaped = true
		case r == '%':
			re.WriteString(`.*`)
		case r == '_':
			re.WriteString(`.`)
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString(`$`)
	ok, err := regexp.MatchString(re.String(), s)
	return err == nil && ok
}

// toMomentRow converts a Moment to the query's row, its time written as
// Hasura writes a timestamptz.
func toMomentRow(m Moment) wire.MomentRow {
	row := wire.MomentRow{
		ID: m.ID, Author: m.Author,
		CreatedOn: m.CreatedOn.UTC().Format("2006-01-02T15:04:05.999999-07:00"),
		Drops:     make([]wire.MomentDrop, len(m.DropIDs)),
	}
	if m.Description != "" {
		row.Description = &m.Description
	}
	for i, id := range m.DropIDs {
		row.Drops[i] = wire.MomentDrop{DropID: id}
	}
	return row
}
