package wire

// MaxMomentDescription is the most characters (runes) a Moment's
// description may have.
const MaxMomentDescription = 600

// UserTag mentions a collector in a Moment, by address or ENS name.
type UserTag struct {
	Address string `json:"address,omitempty"`
	ENS     string `json:"ens,omitempty"`
}

// MomentInput is the body of POST /moments (OpCreateMoment).
type MomentInput struct {
	// Author is the creator's 0x address.
	Author string `json:"author"`
	// MediaKeys are processed uploads not attached to another Moment yet:
	// an empty list, not null, when the Moment has none.
	MediaKeys []string `json:"mediaKeys"`
	// DropIDs are the drops the Moment is posted to; at least one.
	DropIDs []int64 `json:"dropIds"`
	// Description has at most MaxMomentDescription characters.
	Description string    `json:"description,omitempty"`
	UserTags    []UserTag `json:"userTags,omitempty"`
}

// Moment is a created Moment as POST /moments answers it.
type Moment struct {
	// ID is the Moment's UUID.
	ID string `json:"id"`
	// Author is the creator's address.
	Author string `json:"author"`
	// CreatedOn is an ISO 8601 instant, "2025-03-01T12:00:00.000Z".
	CreatedOn string  `json:"createdOn"`
	DropIDs   []int64 `json:"dropIds"`
	// Description is absent when the Moment has none.
	Description string `json:"description,omitempty"`
	// CID is the Moment's content identifier, when the service gives one.
	CID string `json:"cid,omitempty"`
}
