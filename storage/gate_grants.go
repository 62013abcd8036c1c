package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
)

// grantRow is a row of gate_grants; Wallets is a JSON array of addresses.
type grantRow struct {
	GateID    int64
	UserID    int64
	Member    string
	Wallets   string
	Reason    string
	State     string
	GrantedAt time.Time
}

func (grantRow) TableName() string { return "gate_grants" }

// grant maps the row to a core.Grant. It returns an error when the stored
// wallets cannot be read.
func (r grantRow) grant() (core.Grant, error) {
	var wallets []string
	if err := json.Unmarshal([]byte(r.Wallets), &wallets); err != nil {
		return core.Grant{}, fmt.Errorf("grant of gate #%d to user #%d: wallets: %w", r.GateID, r.UserID, err)
	}
	if len(wallets) == 0 {
		wallets = nil
	}
	return core.Grant{
		GateID:    r.GateID,
		UserID:    r.UserID,
		Member:    r.Member,
		Wallets:   wallets,
		Reason:    r.Reason,
		State:     core.GrantState(r.State),
		GrantedAt: r.GrantedAt.UTC(),
	}, nil
}

// newGrantRow maps g to the row ClaimGrant inserts or SetGrant writes; a
// zero GrantedAt is now. It returns an error for an unknown state or an
// empty member.
func newGrantRow(g core.Grant) (grantRow, error) {
	switch g.State {
	case core.GrantPending, core.GrantActive, core.GrantWithdrawn:
	default:
		return grantRow{}, fmt.Errorf("unknown grant state %q", g.State)
	}
	if g.Member == "" {
		return grantRow{}, fmt.Errorf("the grant's member is empty")
	}
	wallets := g.Wallets
	if wallets == nil {
		wallets = []string{}
	}
	b, err := json.Marshal(wallets)
	if err != nil {
		return grantRow{}, err
	}
	return grantRow{
		GateID: g.GateID, UserID: g.UserID, Member: g.Member, Wallets: string(b),
		Reason: g.Reason, State: string(g.State), GrantedAt: createdAt(g.GrantedAt),
	}, nil
}

// ClaimGrant stores g, in one statement, unless the member has a grant of
// that gate already: claimed is false then and nothing changed. Of callers
// racing (replicas handling the same event), one claims. A zero GrantedAt
// is now. It returns an error for an unknown state or an empty member,
// and core.ErrNotFound when the gate or the user does not exist.
func (db *DB) ClaimGrant(ctx context.Context, g core.Grant) (bool, error) {
	const op = "claim grant"
	row, err := newGrantRow(g)
	if err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	res := db.gorm.WithContext(ctx).Exec(`
		INSERT INTO gate_grants (gate_id, user_id, member, wallets, reason, state, granted_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (gate_id, user_id) DO NOTHING`,
		row.GateID, row.UserID, row.Member, row.Wallets, row.Reason, row.State, row.GrantedAt)
	if res.Error != nil {
		return false, missingRow(op, g.GateID, g.UserID, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// SetGrant updates the state, reason, wallets and time of the member's
// grant of the gate; a zero GrantedAt is now. It returns an error for an
// unknown state or an empty member, and core.ErrNotFound when there is no
// such grant.
func (db *DB) SetGrant(ctx context.Context, g core.Grant) error {
	const op = "set grant"
	row, err := newGrantRow(g)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	res := db.gorm.WithContext(ctx).Exec(`
		UPDATE gate_grants SET state = ?, reason = ?, wallets = ?, granted_at = ?
		WHERE gate_id = ? AND user_id = ?`,
		row.State, row.Reason, row.Wallets, row.GrantedAt, row.GateID, row.UserID)
	switch {
	case res.Error != nil:
		return translate(op, res.Error)
	case res.RowsAffected == 0:
		return fmt.Errorf("%s: gate #%d, user #%d: %w", op, g.GateID, g.UserID, core.ErrNotFound)
	}
	return nil
}

// DropGrant deletes the member's grant of the gate; dropped is false when
// there was none (another replica dropped it). It returns the database
// error, if any.
func (db *DB) DropGrant(ctx context.Context, gateID, userID int64) (bool, error) {
	res := db.gorm.WithContext(ctx).Exec(`DELETE FROM gate_grants WHERE gate_id = ? AND user_id = ?`, gateID, userID)
	if res.Error != nil {
		return false, translate("drop grant", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// Grants lists the gate's grants, oldest first; none for an unknown gate.
// It returns an error when stored wallets cannot be read.
func (db *DB) Grants(ctx context.Context, gateID int64) ([]core.Grant, error) {
	return db.grants(ctx, "grants", "gate_id = ?", gateID)
}

// UserGrants lists the user's grants, of every gate, oldest first.
func (db *DB) UserGrants(ctx context.Context, userID int64) ([]core.Grant, error) {
	return db.grants(ctx, "user grants", "user_id = ?", userID)
}

// grants lists the grants that match where.
func (db *DB) grants(ctx context.Context, op, where string, arg int64) ([]core.Grant, error) {
	var rows []grantRow
	err := db.gorm.WithContext(ctx).Where(where, arg).Order("granted_at, gate_id, user_id").Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	grants := make([]core.Grant, len(rows))
	for i, r := range rows {
		if grants[i], err = r.grant(); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return grants, nil
}

// joinRequestRow is a row of gate_join_requests.
type joinRequestRow struct {
	GateID      int64
	UserID      int64
	Member      string
	RequestedAt time.Time
}

func (joinRequestRow) TableName() string { return "gate_join_requests" }

func (r joinRequestRow) joinRequest() core.JoinRequest {
	return core.JoinRequest{GateID: r.GateID, UserID: r.UserID, Member: r.Member, RequestedAt: r.RequestedAt.UTC()}
}

// AddJoinRequest stores a pending join request, in one statement, unless
// one of the member to the gate is stored: added is false then and the
// stored one is kept. A zero RequestedAt is now. It returns an error for
// an empty member, and core.ErrNotFound when the gate or the user does
// not exist.
func (db *DB) AddJoinRequest(ctx context.Context, r core.JoinRequest) (bool, error) {
	const op = "add join request"
	if r.Member == "" {
		return false, fmt.Errorf("%s: the member is empty", op)
	}
	res := db.gorm.WithContext(ctx).Exec(`
		INSERT INTO gate_join_requests (gate_id, user_id, member, requested_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (gate_id, user_id) DO NOTHING`,
		r.GateID, r.UserID, r.Member, createdAt(r.RequestedAt))
	if res.Error != nil {
		return false, missingRow(op, r.GateID, r.UserID, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// JoinRequests lists the gate's pending join requests, oldest first; none
// for an unknown gate. It returns the database error, if any.
func (db *DB) JoinRequests(ctx context.Context, gateID int64) ([]core.JoinRequest, error) {
	return db.joinRequests(ctx, "join requests", "gate_id = ?", gateID)
}

// UserJoinRequests lists the user's pending join requests, oldest first;
// none for an unknown user. It returns the database error, if any.
func (db *DB) UserJoinRequests(ctx context.Context, userID int64) ([]core.JoinRequest, error) {
	return db.joinRequests(ctx, "user join requests", "user_id = ?", userID)
}

// joinRequests lists the join requests that where matches, oldest first.
func (db *DB) joinRequests(ctx context.Context, op, where string, args ...any) ([]core.JoinRequest, error) {
	var rows []joinRequestRow
	err := db.gorm.WithContext(ctx).Where(where, args...).Order("requested_at, gate_id, user_id").Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	out := make([]core.JoinRequest, len(rows))
	for i, r := range rows {
		out[i] = r.joinRequest()
	}
	return out, nil
}

// DropJoinRequest deletes the member's pending join request to the gate;
// dropped is false when there was none. It returns the database error, if
// any.
func (db *DB) DropJoinRequest(ctx context.Context, gateID, userID int64) (bool, error) {
	res := db.gorm.WithContext(ctx).Exec(`DELETE FROM gate_join_requests WHERE gate_id = ? AND user_id = ?`, gateID, userID)
	if res.Error != nil {
		return false, translate("drop join request", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// verifiedRow is a user with one of their verified addresses.
type verifiedRow struct {
	ID         int64
	Platform   string
	ExternalID string
	Name       string
	CreatedAt  time.Time
	Address    string
}

// VerifiedMembers lists the platform's users that have at least one
// verified wallet with an address (e-mails never have one), by id, each
// once with those addresses in lower case, sorted and without repeats. It
// reads them in one query, whatever the number of members. It returns the
// database error, if any.
func (db *DB) VerifiedMembers(ctx context.Context, p core.Platform) ([]core.VerifiedMember, error) {
	var rows []verifiedRow
	// wallets.platform is the owner's (a foreign key keeps it so): the
	// filter on it reads the partial index of verified addresses.
	err := db.gorm.WithContext(ctx).Raw(`
		SELECT DISTINCT u.id, u.platform, u.external_id, u.name, u.created_at, lower(w.address) AS address
		FROM wallets w JOIN users u ON u.id = w.user_id
		WHERE w.platform = ? AND w.verified_at IS NOT NULL
			AND w.address IS NOT NULL AND w.address <> '' AND w.kind <> 'email'
		ORDER BY u.id, address`, string(p)).Scan(&rows).Error
	if err != nil {
		return nil, translate("verified members", err)
	}
	return verifiedMembers(rows), nil
}

// PlaceVerifiedMembers is VerifiedMembers of the users seen in the
// tenant's place, in one query.
func (db *DB) PlaceVerifiedMembers(ctx context.Context, tenantID int64) ([]core.VerifiedMember, error) {
	var rows []verifiedRow
	err := db.gorm.WithContext(ctx).Raw(`
		SELECT DISTINCT u.id, u.platform, u.external_id, u.name, u.created_at, lower(w.address) AS address
		FROM place_members pm JOIN users u ON u.id = pm.user_id JOIN wallets w ON w.user_id = u.id
		WHERE pm.tenant_id = ? AND w.verified_at IS NOT NULL
			AND w.address IS NOT NULL AND w.address <> '' AND w.kind <> 'email'
		ORDER BY u.id, address`, tenantID).Scan(&rows).Error
	if err != nil {
		return nil, translate("place verified members", err)
	}
	return verifiedMembers(rows), nil
}

// SeeMember records that the user is in the tenant's place, in one
// statement; a second call changes nothing.
func (db *DB) SeeMember(ctx context.Context, tenantID, userID int64, at time.Time) error {
	err := db.gorm.WithContext(ctx).Exec(`INSERT INTO place_members (tenant_id, user_id, seen_at) VALUES (?, ?, ?)
		ON CONFLICT (tenant_id, user_id) DO NOTHING`, tenantID, userID, at.UTC()).Error
	return translate("see member", err)
}

// UnseeMember records that the user left the tenant's place.
func (db *DB) UnseeMember(ctx context.Context, tenantID, userID int64) error {
	err := db.gorm.WithContext(ctx).Exec(`DELETE FROM place_members WHERE tenant_id = ? AND user_id = ?`, tenantID, userID).Error
	return translate("unsee member", err)
}

// verifiedMembers groups rows ordered by user into members.
func verifiedMembers(rows []verifiedRow) []core.VerifiedMember {
	var out []core.VerifiedMember
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].User.ID == r.ID {
			out[n-1].Addresses = append(out[n-1].Addresses, r.Address)
			continue
		}
		u := userRow{ID: r.ID, Platform: r.Platform, ExternalID: r.ExternalID, Name: r.Name, CreatedAt: r.CreatedAt}
		out = append(out, core.VerifiedMember{User: u.user(), Addresses: []string{r.Address}})
	}
	return out
}
