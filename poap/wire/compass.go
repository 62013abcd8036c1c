package wire

import "encoding/json"

// MomentsQuery is the GraphQL document of the moments query
// (OpMomentsQuery) that the client sends to Compass, a Hasura schema where
// a Moment's drops and media are relations. It is the official SDK's
// (poap-sdk 2026-03) with the media added, in the fields the Moments
// documentation lists: medias with mime_type and gateways {type, url}.
const MomentsQuery = `query PaginatedMoments($limit: Int!, $offset: Int!, $orderBy: [moments_order_by!], $where: moments_bool_exp) {
  moments(limit: $limit, offset: $offset, order_by: $orderBy, where: $where) {
    id
    author
    description
    created_on
    drops { drop_id }
    medias { mime_type gateways { type url } }
  }
}`

// GraphQLRequest is the body of a GraphQL call to Compass.
type GraphQLRequest struct {
	Query string `json:"query"`
	// Variables is a JSON object of the query's variables: for
	// MomentsQuery, limit, offset, where (a moments_bool_exp) and orderBy.
	Variables json.RawMessage `json:"variables"`
}

// MomentsAnswer is Compass's answer to MomentsQuery: Data, or Errors with
// status 200 when it cannot answer the query.
type MomentsAnswer struct {
	Data   *MomentsData   `json:"data,omitempty"`
	Errors []GraphQLError `json:"errors,omitempty"`
}

// MomentsData is the data of a MomentsAnswer.
type MomentsData struct {
	Moments []MomentRow `json:"moments"`
}

// MomentRow is a Moment as MomentsQuery lists it.
type MomentRow struct {
	ID     string `json:"id"`
	Author string `json:"author"`
	// Description is null when the Moment has none.
	Description *string `json:"description"`
	// CreatedOn is a timestamptz as Hasura writes it,
	// "2025-03-01T12:00:00.123456+00:00".
	CreatedOn string       `json:"created_on"`
	Drops     []MomentDrop `json:"drops"`
	// Medias are the Moment's files, in the order they were attached.
	Medias []MomentMedia `json:"medias"`
}

// MomentMedia is a file of a listed Moment.
type MomentMedia struct {
	// MimeType is the type the file was uploaded with, e.g. image/png.
	MimeType string `json:"mime_type"`
	// Gateways are the addresses the file can be downloaded from
	// (OpMediaGateway).
	Gateways []MediaGateway `json:"gateways"`
}

// MomentDrop is a drop a listed Moment belongs to.
type MomentDrop struct {
	DropID int64 `json:"drop_id"`
}

// GraphQLError is one entry of a GraphQL errors list.
type GraphQLError struct {
	Message string `json:"message"`
	// Extensions are Hasura's code and path.
	Extensions map[string]string `json:"extensions,omitempty"`
}
