package poap

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/poap/internal/transport"
	"github.com/poapbot/poapbot/poap/wire"
)

// DefaultMomentsLimit is the page size of Moments when MomentsQuery.Limit is
// zero.
const DefaultMomentsLimit = 20

// MomentsQuery selects a page of Moments. The zero value asks for the newest
// DefaultMomentsLimit Moments of all drops.
type MomentsQuery struct {
	// Limit is the page size; zero or less means DefaultMomentsLimit.
	Limit int
	// Offset skips that many Moments; below zero counts as zero.
	Offset int
	// DropIDs keeps Moments posted to one of these drops; empty keeps all.
	DropIDs []int64
	// Author keeps Moments by this address, whatever its letter case;
	// empty keeps all.
	Author string
	// OldestFirst sorts by creation time ascending; the default is newest
	// first.
	OldestFirst bool
}

// MomentSummary is a Moment as the query service lists it.
type MomentSummary struct {
	ID          string
	Author      string
	Description string
	CreatedOn   time.Time
	DropIDs     []int64
	// Media are the Moment's files, in the order they were attached.
	Media []MomentMedia
}

// MomentMedia is a file of a listed Moment.
type MomentMedia struct {
	// MimeType is the type the file was uploaded with, e.g. image/png.
	MimeType string
	// Gateways are the addresses the file can be downloaded from.
	Gateways []Gateway
}

// Moments lists Moments from Compass, the Moments query service: a POST of
// the GraphQL moments query (limit, offset, where, order_by) to
// Options.CompassURL, with the API key when one is configured
// (https://documentation.poap.tech/docs/poap-moments-mvp); each Moment comes
// with its drops and its media's gateway addresses. Errors:
// ErrUnavailable for failures, timeouts and GraphQL errors (Compass answers
// those with 200, for instance when its schema changed), ErrUnauthorized when
// the key is refused, ErrRateLimited, a plain error when no CompassURL is
// configured; other answers, such as 400 for a malformed query, come as
// *APIError.
func (c *Client) Moments(ctx context.Context, q MomentsQuery) ([]MomentSummary, error) {
	if c.compass == nil {
		return nil, fmt.Errorf("poap: %s: no Moments query address configured (Options.CompassURL)", wire.OpMomentsQuery)
	}
	vars, err := json.Marshal(q.variables())
	if err != nil {
		return nil, fmt.Errorf("poap: %s: %w", wire.OpMomentsQuery, err)
	}
	body, err := jsonBody(wire.GraphQLRequest{Query: wire.MomentsQuery, Variables: vars})
	if err != nil {
		return nil, fmt.Errorf("poap: %s: %w", wire.OpMomentsQuery, err)
	}
	r := request{
		op: wire.OpMomentsQuery, method: http.MethodPost, base: c.compass,
		access: keyOnly, body: body, contentType: "application/json",
		// A query changes nothing.
		idempotent: true,
	}
	var res wire.MomentsAnswer
	if err := c.do(ctx, r, &res); err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		msgs := make([]string, len(res.Errors))
		for i, e := range res.Errors {
			msgs[i] = e.Message
		}
		return nil, fmt.Errorf("poap: %s: %w: graphql: %s", wire.OpMomentsQuery, ErrUnavailable, transport.Truncate(strings.Join(msgs, "; "), transport.MaxMessage))
	}
	if res.Data == nil {
		return nil, fmt.Errorf("poap: %s: %w: malformed response: no data", wire.OpMomentsQuery, ErrUnavailable)
	}
	return summaries(res.Data.Moments)
}

// variables are the query's GraphQL variables. The author is matched with
// _ilike and no wildcard: an equality that ignores letter case, since
// addresses are written in both cases.
func (q MomentsQuery) variables() map[string]any {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultMomentsLimit
	}
	where := map[string]any{}
	if len(q.DropIDs) > 0 {
		where["drop_id"] = map[string]any{"_in": q.DropIDs}
	}
	if author := strings.TrimSpace(q.Author); author != "" {
		where["author"] = map[string]any{"_ilike": escapeLike(author)}
	}
	order := "desc"
	if q.OldestFirst {
		order = "asc"
	}
	return map[string]any{
		"limit":  limit,
		"offset": max(q.Offset, 0),
		"where":  where,
		// The id breaks ties, so that pages do not overlap.
		"orderBy": []map[string]string{{"created_on": order}, {"id": order}},
	}
}

// likeEscaper escapes the LIKE wildcards and the escape character itself.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// escapeLike makes s match itself only in a LIKE pattern.
func escapeLike(s string) string { return likeEscaper.Replace(s) }

// summaries converts the query's rows. An unreadable created_on means the
// service is failing, as an answer that does not decode does.
func summaries(rows []wire.MomentRow) ([]MomentSummary, error) {
	out := make([]MomentSummary, len(rows))
	for i, row := range rows {
		created, err := parseTimestamp(row.CreatedOn)
		if err != nil {
			return nil, fmt.Errorf("poap: %s: %w: malformed response: %w", wire.OpMomentsQuery, ErrUnavailable, err)
		}
		drops := make([]int64, len(row.Drops))
		for j, d := range row.Drops {
			drops[j] = d.DropID
		}
		out[i] = MomentSummary{ID: row.ID, Author: row.Author, CreatedOn: created, DropIDs: drops, Media: momentMedia(row.Medias)}
		if row.Description != nil {
			out[i].Description = *row.Description
		}
	}
	return out, nil
}

// momentMedia converts a row's files; nil when it has none.
func momentMedia(rows []wire.MomentMedia) []MomentMedia {
	if len(rows) == 0 {
		return nil
	}
	out := make([]MomentMedia, len(rows))
	for i, m := range rows {
		out[i] = MomentMedia{MimeType: m.MimeType}
		for _, g := range m.Gateways {
			out[i].Gateways = append(out[i].Gateways, Gateway(g))
		}
	}
	return out
}
