package sandbox

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// firstDropID and firstTokenID start the ids the Server assigns, in the
// ranges real drops and tokens use, so they look like production ids.
const (
	firstDropID  = 200000
	firstTokenID = 7000000
)

// Drop is a drop (event): the fields scans show, and those POST /events
// takes.
type Drop struct {
	// ID is the drop id; AddDrop assigns one when zero.
	ID int64
	// FancyID is the drop's slug; AddDrop derives one from Name and Year
	// when empty.
	FancyID     string
	Name        string
	Description string
	City        string
	Country     string
	EventURL    string
	ImageURL    string
	// Year defaults to the year of StartDate.
	Year int
	// StartDate, EndDate and ExpiryDate are days; their time of day is
	// ignored.
	StartDate  time.Time
	EndDate    time.Time
	ExpiryDate time.Time
	// Timezone is an IANA name such as "Europe/Berlin".
	Timezone string
	// EditCode is the 6-digit secret_code that edits the drop, lists and
	// requests its mint links; empty matches no code.
	EditCode string
	// Virtual and Private are the drop's virtual_event and private_event.
	Virtual bool
	Private bool
	// TemplateID is the event_template_id, 0 for none.
	TemplateID int
	// Email is the issuer's address, where production sends mint links.
	Email string
	// ChainID is the drop's minting network (a supported chain id); zero
	// is the default, 100 (Gnosis, "xdai").
	ChainID int
	// Created is when the drop was created; zero shows the start date.
	Created time.Time
}

// Token is a POAP the Server issued.
type Token struct {
	// ID is the token id; zero for a POAP reserved for an e-mail, which
	// scans show with tokenId "".
	ID      int64
	EventID int64
	// Owner is the 0x address (as given, mixed case kept) or the e-mail
	// the POAP is held by.
	Owner string
	// Chain is the network, "xdai" by default.
	Chain string
	// Created is the mint time in UTC, to the second.
	Created time.Time
	// Migrated is when the token moved network, or nil.
	Migrated *time.Time
	// TransferCount is how many times the token changed hands
	// (MoveToken).
	TransferCount int
}

// state is the Server's data, guarded by Server.mu.
type state struct {
	drops map[int64]Drop
	// tokens are the POAPs issued, in mint order. byOwner, byEvent and
	// byID index them by position, so that a holder page, a scan or a
	// token read costs what it returns rather than a pass over every POAP:
	// a benchmark seeds tens of thousands.
	tokens    []Token
	byOwner   map[string][]int  // lower-case holder to its POAPs, ascending
	byEvent   map[int64][]int   // drop to its POAPs, ascending
	byID      map[int64]int     // token id to position
	names     map[string]string // lower-case ENS name to address
	holds     map[holding]int   // how many POAPs of which drop a holder holds
	nextDrop  int64
	nextToken int64
	artworks  map[string]artwork // by file name, as /assets/{file} serves them
	ledger
	knobs
}

// holding is a holder, in lower case, of a POAP of a drop.
type holding struct {
	eventID int64
	holder  string
}

func newState() state {
	return state{
		drops:     map[int64]Drop{},
		byOwner:   map[string][]int{},
		byEvent:   map[int64][]int{},
		byID:      map[int64]int{},
		names:     map[string]string{},
		holds:     map[holding]int{},
		artworks:  map[string]artwork{},
		nextDrop:  firstDropID,
		nextToken: firstTokenID,
		ledger:    newLedger(),
		knobs:     knobs{opFails: map[string]failPlan{}},
	}
}

// AddDrop stores d, replacing any drop with its id, and returns it with the
// defaults filled: an id when zero, a fancy id, the year.
func (s *Server) AddDrop(d Drop) Drop {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addDrop(d)
}

// SetENS makes the ENS name resolve to address, a 0x address.
func (s *Server) SetENS(name, address string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setENS(name, address)
}

// Mint issues a POAP of drop eventID to owner, a 0x address, a known ENS
// name (stored as its address) or an e-mail (a reservation without token
// id), on chain ("xdai" if empty), created at at (now if zero). It fails for
// an unknown drop or owner.
func (s *Server) Mint(eventID int64, owner, chain string, at time.Time) (Token, error) {
	if at.IsZero() {
		at = s.now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mint(Token{EventID: eventID, Owner: owner, Chain: chain, Created: at})
}

// addDrop is AddDrop with s.mu held.
func (st *state) addDrop(d Drop) Drop {
	if d.ID == 0 {
		d.ID = st.nextDrop
	}
	st.nextDrop = max(st.nextDrop, d.ID+1)
	if d.Year == 0 {
		d.Year = d.StartDate.Year()
	}
	if d.FancyID == "" {
		d.FancyID = slug(d.Name + " " + strconv.Itoa(d.Year))
	}
	st.drops[d.ID] = d
	return d
}

// setENS is SetENS with s.mu held.
func (st *state) setENS(name, address string) error {
	name = strings.ToLower(name)
	if classify(name) != kindENS || classify(strings.ToLower(address)) != kindAddress {
		return fmt.Errorf("sandbox: set ens: %q is not an ENS name or %q not a 0x address", name, address)
	}
	st.names[name] = address
	return nil
}

// mint stores t, with s.mu held: it resolves the owner, fills the chain,
// rounds the time and assigns an id unless the owner is an e-mail.
func (st *state) mint(t Token) (Token, error) {
	if _, ok := st.drops[t.EventID]; !ok {
		return Token{}, fmt.Errorf("sandbox: mint: no drop %d", t.EventID)
	}
	holder, k := st.resolve(t.Owner)
	if k == kindInvalid {
		return Token{}, fmt.Errorf("sandbox: mint: %q is not a 0x address, a known ENS name or an e-mail", t.Owner)
	}
	t.Owner, t.Chain = holder, cmp.Or(t.Chain, "xdai")
	t.Created = t.Created.UTC().Truncate(time.Second)
	if k != kindEmail {
		t.ID = st.nextToken
		st.nextToken++
	}
	i := len(st.tokens)
	st.tokens = append(st.tokens, t)
	owner := strings.ToLower(t.Owner)
	st.byOwner[owner] = append(st.byOwner[owner], i)
	st.byEvent[t.EventID] = append(st.byEvent[t.EventID], i)
	if t.ID != 0 {
		st.byID[t.ID] = i
	}
	st.holds[holding{t.EventID, owner}]++
	return t, nil
}

// holdsDrop reports whether holder, as resolve returns it, holds a POAP of
// drop eventID. The caller holds s.mu.
func (st *state) holdsDrop(eventID int64, holder string) bool {
	return st.holds[holding{eventID, strings.ToLower(holder)}] > 0
}

// resolve turns an address, a known ENS name or an e-mail into the holder
// as tokens store it, with its kind; kindInvalid when it is none of them.
// The caller holds s.mu.
func (st *state) resolve(address string) (string, kind) {
	lower := strings.ToLower(address)
	switch k := classify(lower); k {
	case kindAddress:
		return address, k
	case kindEmail:
		return lower, k
	case kindENS:
		if addr, ok := st.names[lower]; ok {
			return addr, kindAddress
		}
	}
	return "", kindInvalid
}

// held returns the tokens held by holder (matched without regard to case),
// newest first. The caller holds s.mu.
func (st *state) held(holder string) []Token {
	return st.newestFirst(st.byOwner[strings.ToLower(holder)])
}

// ownedBy counts the POAPs holder holds. The caller holds s.mu.
func (st *state) ownedBy(holder string) int {
	return len(st.byOwner[strings.ToLower(holder)])
}

// newestFirst returns the tokens at positions, newest first (the later
// mint first among those of the same second). The caller holds s.mu.
func (st *state) newestFirst(positions []int) []Token {
	out := make([]Token, 0, len(positions))
	for _, i := range positions {
		out = append(out, st.tokens[i])
	}
	slices.SortStableFunc(out, func(a, b Token) int {
		return cmp.Or(b.Created.Compare(a.Created), cmp.Compare(b.ID, a.ID))
	})
	return out
}

// supply counts the POAPs issued for a drop. The caller holds s.mu.
func (st *state) supply(eventID int64) int {
	return len(st.byEvent[eventID])
}

// slug turns a name into a fancy id: lower-case words joined by hyphens.
func slug(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	return strings.Join(words, "-")
}
