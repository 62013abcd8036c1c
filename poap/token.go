package poap

import (
	"encoding/json"
	"time"
)

// Token is one POAP held by an address, as the scan operations return it.
type Token struct {
	// Event is the drop the POAP belongs to.
	Event Event
	// TokenID is the token's id, a decimal string; it is empty for a POAP
	// reserved for an e-mail address and not minted yet.
	TokenID string
	// Owner is the holder's address, as the service writes it.
	Owner string
	// Chain is the network the token lives on ("xdai", "homestead",
	// "base", "matic"...). ScanEvent leaves it empty.
	Chain string
	// Created is when the token was minted, in UTC. ScanEvent leaves it
	// zero.
	Created time.Time
	// Migrated is when the token moved to another network, or nil.
	Migrated *time.Time
}

// Event is a drop as scans describe it. Supply is the number of POAPs minted;
// ScanEvent leaves it zero.
type Event struct {
	ID          int64  `json:"id"`
	FancyID     string `json:"fancy_id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	City        string `json:"city"`
	Country     string `json:"country"`
	EventURL    string `json:"event_url"`
	// ImageURL is the drop's artwork; see ImageURL for smaller sizes.
	ImageURL   string `json:"image_url"`
	Year       int    `json:"year"`
	StartDate  Date   `json:"start_date"`
	EndDate    Date   `json:"end_date"`
	ExpiryDate Date   `json:"expiry_date"`
	Supply     int    `json:"supply"`
	// Timezone is the drop's IANA time zone name, when the service gives
	// one.
	Timezone string `json:"timezone"`
}

// tokenJSON is a token as the service writes it; unknown fields are ignored.
type tokenJSON struct {
	Event    Event     `json:"event"`
	TokenID  string    `json:"tokenId"`
	Owner    string    `json:"owner"`
	Chain    string    `json:"chain"`
	Created  timestamp `json:"created"`
	Migrated timestamp `json:"migrated"`
}

// UnmarshalJSON reads a token in the service's format: "created" as
// "YYYY-MM-DD HH:MM:SS" (or RFC 3339), "migrated" null, absent or a time.
func (t *Token) UnmarshalJSON(b []byte) error {
	var w tokenJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = Token{Event: w.Event, TokenID: w.TokenID, Owner: w.Owner, Chain: w.Chain, Created: w.Created.Time}
	if !w.Migrated.IsZero() {
		migrated := w.Migrated.Time
		t.Migrated = &migrated
	}
	return nil
}
