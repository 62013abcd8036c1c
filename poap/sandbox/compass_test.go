package sandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// graphQL posts a GraphQL call without an API key and returns the status
// and the decoded body.
func (e *momentsEnv) graphQL(t *testing.T, query string, vars any) (int, map[string]any) {
	t.Helper()
	payload, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		t.Fatal(err)
	}
	status, b := e.call(t, http.MethodPost, "/v1/graphql", bytes.NewReader(payload), "Content-Type", "application/json")
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("POST /v1/graphql: body %q is not JSON", b)
	}
	return status, body
}

// seedMoments posts three Moments a minute apart, by two authors on two
// drops, the third with a PNG, and returns their ids and the second drop.
// The sandbox must process media at once.
func seedMoments(t *testing.T, e *momentsEnv) ([]string, int64) {
	t.Helper()
	other := e.s.AddDrop(sandbox.Drop{Name: "Other", StartDate: e.clock.Now(), EndDate: e.clock.Now(), ExpiryDate: e.clock.Now()}).ID
	pic := e.upload(t, pngFile, "image/png")
	specs := []map[string]any{
		{"author": author, "mediaKeys": []string{}, "dropIds": []int64{e.dropID}, "description": "first"},
		{"author": "0x00000000000000000000000000000000000000AA", "mediaKeys": []string{}, "dropIds": []int64{other}},
		{"author": author, "mediaKeys": []string{pic}, "dropIds": []int64{e.dropID, other}, "description": "third"},
	}
	var ids []string
	for _, in := range specs {
		status, body := e.create(t, in)
		if status != http.StatusCreated {
			t.Fatalf("POST /moments = %d %v, want 201", status, body)
		}
		ids = append(ids, body["id"].(string))
		e.clock.Advance(time.Minute)
	}
	return ids, other
}

func TestServer_MomentsQuery(t *testing.T) {
	e := startMoments(t, 0)
	ids, other := seedMoments(t, e)
	desc := []map[string]string{{"created_on": "desc"}}
	tests := []struct {
		name string
		vars map[string]any
		want []string
	}{
		{"NewestFirst", map[string]any{"limit": 10, "offset": 0, "orderBy": desc}, []string{ids[2], ids[1], ids[0]}},
		{"OldestFirst", map[string]any{"limit": 10, "offset": 0, "orderBy": map[string]string{"created_on": "asc"}}, ids},
		{"ByDrop", map[string]any{"limit": 10, "orderBy": desc, "where": map[string]any{"drop_id": map[string]any{"_in": []int64{other}}}}, []string{ids[2], ids[1]}},
		{"ByAuthorILike", map[string]any{"limit": 10, "orderBy": desc, "where": map[string]any{"author": map[string]any{"_ilike": strings.ToUpper(author)}}}, []string{ids[2], ids[0]}},
		{"ByAuthorPattern", map[string]any{"limit": 10, "orderBy": desc, "where": map[string]any{"author": map[string]any{"_ilike": "%aA"}}}, []string{ids[1]}},
		{"ByAuthorEq", map[string]any{"limit": 10, "orderBy": desc, "where": map[string]any{"author": map[string]any{"_eq": author}}}, []string{ids[2], ids[0]}},
		{"ByID", map[string]any{"limit": 10, "where": map[string]any{"id": map[string]any{"_eq": ids[1]}}}, []string{ids[1]}},
		{"Page", map[string]any{"limit": 1, "offset": 1, "orderBy": desc}, []string{ids[1]}},
		{"PastTheEnd", map[string]any{"limit": 5, "offset": 9}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.graphQL(t, wire.MomentsQuery, tc.vars)
			data, _ := body["data"].(map[string]any)
			rows, _ := data["moments"].([]any)
			got := []string{}
			for _, row := range rows {
				got = append(got, row.(map[string]any)["id"].(string))
			}
			if diff := cmp.Diff(tc.want, got); status != http.StatusOK || diff != "" {
				t.Errorf("moments(%v) = %d %v, ids diff (-want +got):\n%s", tc.vars, status, body, diff)
			}
		})
	}
}

func TestServer_MomentsQueryRow(t *testing.T) {
	e := startMoments(t, 0)
	ids, other := seedMoments(t, e)
	pic := e.s.Moments()[2].MediaKeys[0]
	_, body := e.graphQL(t, wire.MomentsQuery, map[string]any{"limit": 2, "offset": 0, "orderBy": []any{map[string]string{"created_on": "desc"}}})
	want := map[string]any{"data": map[string]any{"moments": []any{
		map[string]any{"id": ids[2], "author": author, "description": "third", "created_on": "2025-06-01T12:02:00+00:00",
			"drops": []any{map[string]any{"drop_id": float64(e.dropID)}, map[string]any{"drop_id": float64(other)}},
			"medias": []any{map[string]any{"mime_type": "image/png", "gateways": []any{
				map[string]any{"type": "image/png", "url": e.url + "/gateway/media/" + pic},
			}}}},
		map[string]any{"id": ids[1], "author": "0x00000000000000000000000000000000000000aa", "description": nil,
			"created_on": "2025-06-01T12:01:00+00:00", "drops": []any{map[string]any{"drop_id": float64(other)}},
			"medias": []any{}},
	}}}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("moments rows diff (-want +got):\n%s", diff)
	}
}

func TestServer_MomentsQueryErrors(t *testing.T) {
	e := startMoments(t, 0)
	tests := []struct {
		name  string
		query string
		vars  any
	}{
		{"UnknownField", "query { drops(limit: 1) { id } }", map[string]any{}},
		{"NoQuery", "", nil},
		{"NoLimit", wire.MomentsQuery, map[string]any{"offset": 0}},
		{"UnknownWhereField", wire.MomentsQuery, map[string]any{"limit": 1, "where": map[string]any{"title": map[string]any{"_eq": "x"}}}},
		{"UnknownOrderField", wire.MomentsQuery, map[string]any{"limit": 1, "orderBy": []any{map[string]string{"title": "asc"}}}},
		{"BadDirection", wire.MomentsQuery, map[string]any{"limit": 1, "orderBy": []any{map[string]string{"created_on": "sideways"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.graphQL(t, tc.query, tc.vars)
			errs, _ := body["errors"].([]any)
			if status != http.StatusOK || len(errs) != 1 || body["data"] != nil || errs[0].(map[string]any)["message"] == "" {
				t.Errorf("POST /v1/graphql = %d %v, want 200 with one error and no data", status, body)
			}
		})
	}
	status, b := e.call(t, http.MethodPost, "/v1/graphql", strings.NewReader("not json"), "X-API-Key", key)
	if status != http.StatusBadRequest || !strings.Contains(string(b), `"errors"`) {
		t.Errorf("POST /v1/graphql with a body not JSON = %d %s, want 400 with errors", status, b)
	}
	if got := e.s.Requests(wire.OpMomentsQuery); got != len(tests)+1 {
		t.Errorf("Requests(OpMomentsQuery) = %d, want %d", got, len(tests)+1)
	}
}
