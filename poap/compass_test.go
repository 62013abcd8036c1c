package poap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/sandbox"
)

func TestClient_Moments(t *testing.T) {
	s, c, dropID := startMomentsSandbox(t, sandbox.Options{})
	ctx := context.Background()
	day := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	other := s.AddDrop(sandbox.Drop{Name: "Other", StartDate: day, EndDate: day, ExpiryDate: day}).ID
	const otherAuthor = "0x00000000000000000000000000000000000000aa"
	inputs := []poap.MomentInput{
		{Author: momentAuthor, DropIDs: []int64{dropID}, Description: "first"},
		{Author: otherAuthor, DropIDs: []int64{other}},
		{Author: momentAuthor, DropIDs: []int64{dropID, other}, Description: "third"},
	}
	var all []poap.MomentSummary
	for _, in := range inputs {
		m, err := c.CreateMoment(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, poap.MomentSummary{ID: m.ID, Author: m.Author, Description: m.Description, CreatedOn: m.CreatedOn, DropIDs: m.DropIDs})
	}
	tests := []struct {
		name string
		q    poap.MomentsQuery
		want []poap.MomentSummary
	}{
		{"NewestFirst", poap.MomentsQuery{}, []poap.MomentSummary{all[2], all[1], all[0]}},
		{"OldestFirst", poap.MomentsQuery{OldestFirst: true}, all},
		{"ByDrop", poap.MomentsQuery{DropIDs: []int64{other}}, []poap.MomentSummary{all[2], all[1]}},
		{"ByAuthorAnyCase", poap.MomentsQuery{Author: "0x" + strings.ToUpper(momentAuthor[2:])}, []poap.MomentSummary{all[2], all[0]}},
		{"ByAuthor", poap.MomentsQuery{Author: momentAuthor}, []poap.MomentSummary{all[2], all[0]}},
		{"Page", poap.MomentsQuery{Limit: 1, Offset: 1}, []poap.MomentSummary{all[1]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Moments(ctx, tc.q)
			if err != nil {
				t.Fatalf("Moments(%+v) error = %v", tc.q, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
				t.Errorf("Moments(%+v) diff (-want +got):\n%s", tc.q, diff)
			}
		})
	}
}

func TestClient_Moments_Media(t *testing.T) {
	_, c, dropID := startMomentsSandbox(t, sandbox.Options{})
	ctx := context.Background()
	key, err := c.UploadMedia(ctx, bytes.NewReader(pngContent), int64(len(pngContent)), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	media, err := c.WaitForMedia(ctx, key, poap.WaitOptions{Interval: time.Millisecond})
	if err != nil {
		t.Fatalf("WaitForMedia() error = %v", err)
	}
	m, err := c.CreateMoment(ctx, poap.MomentInput{Author: momentAuthor, DropIDs: []int64{dropID}, MediaKeys: []string{key}})
	if err != nil {
		t.Fatalf("CreateMoment() error = %v", err)
	}
	got, err := c.Moments(ctx, poap.MomentsQuery{DropIDs: []int64{dropID}})
	if err != nil || len(got) != 1 || got[0].ID != m.ID {
		t.Fatalf("Moments() = %+v, %v, want the new Moment", got, err)
	}
	want := []poap.MomentMedia{{MimeType: "image/png", Gateways: media.Gateways}}
	if diff := cmp.Diff(want, got[0].Media); diff != "" || len(media.Gateways) != 1 {
		t.Fatalf("Moments() media diff (-want +got), want the gateways of the status read:\n%s", diff)
	}
	picture := got[0].Media[0].Gateways[0].URL
	status, contentType, body := fetch(t, picture)
	if status != http.StatusOK || contentType != "image/png" || !bytes.Equal(body, pngContent) {
		t.Errorf("GET %s = %d %q, %d bytes, want 200 image/png with the %d bytes uploaded", picture, status, contentType, len(body), len(pngContent))
	}
	unknown := strings.Replace(picture, key, "0b6a3c36-1d8e-4e0c-9a44-5a0f3c7e2b11", 1)
	if status, _, _ := fetch(t, unknown); status != http.StatusNotFound {
		t.Errorf("GET %s = %d, want 404", unknown, status)
	}
}

// fetch GETs target and returns the status, the Content-Type and the body.
func fetch(t *testing.T, target string) (int, string, []byte) {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// graphQLCapture is a fake query service that answers the moments query
// with no Moments and keeps the last request.
type graphQLCapture struct {
	mu     sync.Mutex
	header http.Header
	body   map[string]any
}

func (g *graphQLCapture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.header = r.Header.Clone()
	json.Unmarshal(b, &g.body)
	g.mu.Unlock()
	w.Write([]byte(`{"data":{"moments":[]}}`))
}

func TestClient_Moments_Variables(t *testing.T) {
	desc := []any{map[string]any{"created_on": "desc"}, map[string]any{"id": "desc"}}
	tests := []struct {
		name string
		q    poap.MomentsQuery
		want map[string]any
	}{
		{"Defaults", poap.MomentsQuery{Offset: -3}, map[string]any{"limit": 20.0, "offset": 0.0, "where": map[string]any{}, "orderBy": desc}},
		{"All", poap.MomentsQuery{Limit: 5, Offset: 10, DropIDs: []int64{7, 8}, Author: " 0xAb_c% ", OldestFirst: true}, map[string]any{
			"limit": 5.0, "offset": 10.0,
			"where": map[string]any{
				"drop_id": map[string]any{"_in": []any{7.0, 8.0}},
				"author":  map[string]any{"_ilike": `0xAb\_c\%`},
			},
			"orderBy": []any{map[string]any{"created_on": "asc"}, map[string]any{"id": "asc"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := &graphQLCapture{}
			c := momentsClient(t, fake)
			if _, err := c.Moments(context.Background(), tc.q); err != nil {
				t.Fatalf("Moments() error = %v", err)
			}
			if diff := cmp.Diff(tc.want, fake.body["variables"]); diff != "" {
				t.Errorf("variables diff (-want +got):\n%s", diff)
			}
			if q, _ := fake.body["query"].(string); !strings.Contains(q, "moments(limit: $limit") {
				t.Errorf("query = %q, want the moments query", q)
			}
			if got := fake.header.Get("X-API-Key"); got != testKey {
				t.Errorf("X-API-Key = %q, want the configured key", got)
			}
		})
	}
}

func TestClient_Moments_Errors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"GraphQLError", http.StatusOK, `{"errors":[{"message":"field 'moments' not found in type: 'query_root'"}]}`, poap.ErrUnavailable},
		{"NoData", http.StatusOK, `{}`, poap.ErrUnavailable},
		{"NotJSON", http.StatusOK, `<html>`, poap.ErrUnavailable},
		{"BadKey", http.StatusUnauthorized, `{"errors":[{"message":"invalid api key"}]}`, poap.ErrUnauthorized},
		{"Failing", http.StatusBadGateway, `{"message":"Bad Gateway"}`, poap.ErrUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := momentsClient(t, serveJSON(tc.status, tc.body))
			if _, err := c.Moments(context.Background(), poap.MomentsQuery{}); !errors.Is(err, tc.want) {
				t.Errorf("Moments() error = %v, want %v", err, tc.want)
			}
		})
	}
	c := momentsClient(t, serveJSON(http.StatusBadRequest, `{"errors":[{"message":"parsing failed"}]}`))
	var apiErr *poap.APIError
	if _, err := c.Moments(context.Background(), poap.MomentsQuery{}); !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest {
		t.Errorf("Moments() on 400 error = %v, want an APIError with status 400", err)
	}
}
