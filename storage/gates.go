package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

var _ core.GateStore = (*DB)(nil)

// gateRow is a row of gates, read with its tenant's platform and external
// id (Platform, Place), which are never written. Drops is the JSON array
// of gateDropJSON; Mode is the mode as core.GateMode.String writes it.
type gateRow struct {
	ID         int64
	TenantID   int64
	TargetID   string
	TargetName string
	TargetKind string
	InviteLink string
	Drops      string
	Mode       string
	Channel    string
	CreatedBy  *int64
	CreatedAt  time.Time
	Paused     string
	PausedAt   *time.Time
	SyncedAt   *time.Time
	Platform   string `gorm:"->"`
	Place      string `gorm:"->"`
}

func (gateRow) TableName() string { return "gates" }

// gateDropJSON is one drop of gates.drops.
type gateDropJSON struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// selectGates reads gates with their tenant's platform and external id;
// callers add the WHERE and ORDER BY.
const selectGates = `
	SELECT g.id, g.tenant_id, g.target_id, g.target_name, g.target_kind, g.invite_link, g.drops, g.mode,
		g.channel, g.created_by, g.created_at, g.paused, g.paused_at, g.synced_at,
		t.platform, t.external_id AS place
	FROM gates g JOIN tenants t ON t.id = g.tenant_id`

// gate maps the row to a core.Gate. It returns an error when the stored
// drops or mode cannot be read.
func (r gateRow) gate() (core.Gate, error) {
	var drops []gateDropJSON
	if err := json.Unmarshal([]byte(r.Drops), &drops); err != nil {
		return core.Gate{}, fmt.Errorf("gate #%d: drops: %w", r.ID, err)
	}
	mode, err := core.ParseGateMode(r.Mode, len(drops))
	if err != nil {
		return core.Gate{}, fmt.Errorf("gate #%d: mode: %w", r.ID, err)
	}
	g := core.Gate{
		ID:       r.ID,
		PlaceID:  r.TenantID,
		Platform: core.Platform(r.Platform),
		Place:    r.Place,
		Target: core.GateTarget{
			ID: r.TargetID, Name: r.TargetName, Kind: core.GateKind(r.TargetKind), InviteLink: r.InviteLink,
		},
		Mode:      mode,
		Channel:   r.Channel,
		CreatedAt: r.CreatedAt.UTC(),
		Paused:    r.Paused,
		PausedAt:  utcPtr(r.PausedAt),
		SyncedAt:  utcPtr(r.SyncedAt),
	}
	for _, d := range drops {
		g.Drops = append(g.Drops, core.GateDrop{ID: d.ID, Name: d.Name})
	}
	if r.CreatedBy != nil {
		g.CreatedBy = *r.CreatedBy
	}
	return g, nil
}

// newGateRow maps g to the row AddGate inserts.
func newGateRow(g core.Gate) (gateRow, error) {
	drops := make([]gateDropJSON, len(g.Drops))
	for i, d := range g.Drops {
		drops[i] = gateDropJSON{ID: d.ID, Name: d.Name}
	}
	b, err := json.Marshal(drops)
	if err != nil {
		return gateRow{}, err
	}
	row := gateRow{
		TenantID:   g.PlaceID,
		TargetID:   g.Target.ID,
		TargetName: g.Target.Name,
		TargetKind: string(g.Target.Kind),
		InviteLink: g.Target.InviteLink,
		Drops:      string(b),
		Mode:       g.Mode.String(),
		Channel:    g.Channel,
		CreatedAt:  createdAt(g.CreatedAt),
	}
	if g.CreatedBy != 0 {
		row.CreatedBy = &g.CreatedBy
	}
	return row, nil
}

// AddGate stores g in its tenant (g.TenantID) and returns it with its ID
// and its tenant's Platform and Place. The gate is stored unpaused and
// never synced, whatever g says; a zero CreatedBy is stored as nobody, a
// zero CreatedAt as now. It returns an error wrapping core.ErrBadGateMode
// when the mode does not fit the number of drops, an error for an unknown
// kind or an empty target id, core.ErrNotFound when the tenant or the
// creator does not exist, and core.ErrGateExists (which matches
// core.ErrConflict too) when the tenant gates that target already:
// nothing is changed then.
func (db *DB) AddGate(ctx context.Context, g core.Gate) (core.Gate, error) {
	const op = "add gate"
	if err := checkGate(g); err != nil {
		return core.Gate{}, fmt.Errorf("%s: %w", op, err)
	}
	row, err := newGateRow(g)
	if err != nil {
		return core.Gate{}, fmt.Errorf("%s: %w", op, err)
	}
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		var t tenantRow
		if err := tx.Select("platform", "external_id").Where("id = ?", row.TenantID).Take(&t).Error; err != nil {
			return err
		}
		row.Platform, row.Place = t.Platform, t.ExternalID
		return nil
	})
	switch classify(err) {
	case uniqueViolation:
		return core.Gate{}, fmt.Errorf("%s: %s in tenant #%d: %w (%w)", op, g.Target.ID, g.PlaceID, core.ErrGateExists, core.ErrConflict)
	case foreignKeyViolation:
		return core.Gate{}, fmt.Errorf("%s: tenant #%d or user #%d: %w", op, g.PlaceID, g.CreatedBy, core.ErrNotFound)
	}
	if err != nil {
		return core.Gate{}, translate(op, err)
	}
	out, err := row.gate()
	if err != nil {
		return core.Gate{}, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// checkGate refuses what the database's constraints would, with a clearer
// message, and a mode that does not fit the drops.
func checkGate(g core.Gate) error {
	switch g.Target.Kind {
	case core.GateRole, core.GateGroup:
	default:
		return fmt.Errorf("unknown gate kind %q", g.Target.Kind)
	}
	if g.Target.ID == "" {
		return fmt.Errorf("the gate's target id is empty")
	}
	if _, err := core.ParseGateMode(g.Mode.String(), len(g.Drops)); err != nil {
		return fmt.Errorf("%w: %w", core.ErrBadGateMode, err)
	}
	return nil
}

// GateByTarget returns the tenant's gate on the target id. It returns
// core.ErrNotFound when there is none, and an error when the stored drops
// or mode cannot be read.
func (db *DB) GateByTarget(ctx context.Context, tenantID int64, target string) (core.Gate, error) {
	gates, err := db.gates(ctx, "gate by target", " WHERE g.tenant_id = ? AND g.target_id = ?", tenantID, target)
	if err != nil {
		return core.Gate{}, err
	}
	if len(gates) == 0 {
		return core.Gate{}, fmt.Errorf("gate by target: %s in tenant #%d: %w", target, tenantID, core.ErrNotFound)
	}
	return gates[0], nil
}

// PlaceGates lists the tenant's gates, oldest first; none for an unknown
// tenant. It returns an error when stored drops or a mode cannot be read.
func (db *DB) PlaceGates(ctx context.Context, tenantID int64) ([]core.Gate, error) {
	return db.gates(ctx, "tenant gates", " WHERE g.tenant_id = ? ORDER BY g.created_at, g.id", tenantID)
}

// PlatformGates lists the gates of every tenant of the platform, oldest
// first. It returns an error when stored drops or a mode cannot be read.
func (db *DB) PlatformGates(ctx context.Context, p core.Platform) ([]core.Gate, error) {
	return db.gates(ctx, "platform gates", " WHERE t.platform = ? ORDER BY g.created_at, g.id", string(p))
}

// gates runs selectGates with the clause rest and maps the rows.
func (db *DB) gates(ctx context.Context, op, rest string, args ...any) ([]core.Gate, error) {
	var rows []gateRow
	if err := db.gorm.WithContext(ctx).Raw(selectGates+rest, args...).Scan(&rows).Error; err != nil {
		return nil, translate(op, err)
	}
	gates := make([]core.Gate, len(rows))
	for i, r := range rows {
		var err error
		if gates[i], err = r.gate(); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return gates, nil
}

// RemoveGate deletes the gate; the database deletes its grants and join
// requests (waiting and declined) with it. It returns core.ErrNotFound when there is no such
// gate.
func (db *DB) RemoveGate(ctx context.Context, id int64) error {
	res := db.gorm.WithContext(ctx).Exec(`DELETE FROM gates WHERE id = ?`, id)
	return gateUpdated("remove gate", id, res)
}

// SetGateInviteLink records the gate's invite link, in one UPDATE. It
// returns core.ErrNotFound when there is no such gate.
func (db *DB) SetGateInviteLink(ctx context.Context, id int64, link string) error {
	res := db.gorm.WithContext(ctx).Exec(`UPDATE gates SET invite_link = ? WHERE id = ?`, link, id)
	return gateUpdated("set gate invite link", id, res)
}

// PauseGate marks the gate paused at at with reason, in one conditional
// UPDATE, unless it is paused already: first is true for the one call
// that paused it, however many race. It returns an error for an empty
// reason, and core.ErrNotFound when there is no such gate.
func (db *DB) PauseGate(ctx context.Context, id int64, reason string, at time.Time) (bool, error) {
	const op = "pause gate"
	if reason == "" {
		return false, fmt.Errorf("%s: the reason is empty", op)
	}
	g := db.gorm.WithContext(ctx)
	res := g.Exec(`UPDATE gates SET paused = ?, paused_at = ? WHERE id = ? AND paused = ''`, reason, dbTime(at), id)
	if res.Error != nil {
		return false, translate(op, res.Error)
	}
	if res.RowsAffected == 1 {
		return true, nil
	}
	// Nothing changed: paused already, or no such gate.
	var n int64
	if err := g.Table("gates").Where("id = ?", id).Count(&n).Error; err != nil {
		return false, translate(op, err)
	}
	if n == 0 {
		return false, fmt.Errorf("%s: gate #%d: %w", op, id, core.ErrNotFound)
	}
	return false, nil
}

// ResumeGate clears the gate's pause; resuming a gate that is not paused
// changes nothing. It returns core.ErrNotFound when there is no such gate.
func (db *DB) ResumeGate(ctx context.Context, id int64) error {
	res := db.gorm.WithContext(ctx).Exec(`UPDATE gates SET paused = '', paused_at = NULL WHERE id = ?`, id)
	return gateUpdated("resume gate", id, res)
}

// GateSynced records at as when the gate was last applied to every
// member. It returns core.ErrNotFound when there is no such gate.
func (db *DB) GateSynced(ctx context.Context, id int64, at time.Time) error {
	res := db.gorm.WithContext(ctx).Exec(`UPDATE gates SET synced_at = ? WHERE id = ?`, dbTime(at), id)
	return gateUpdated("gate synced", id, res)
}

// gateUpdated returns the error of a statement on the gate id: its
// database error translated, or core.ErrNotFound when it matched no row.
func gateUpdated(op string, id int64, res *gorm.DB) error {
	switch {
	case res.Error != nil:
		return translate(op, res.Error)
	case res.RowsAffected == 0:
		return fmt.Errorf("%s: gate #%d: %w", op, id, core.ErrNotFound)
	}
	return nil
}

// missingRow maps a foreign key violation of a write naming a gate and a
// user to core.ErrNotFound, and other errors as translate does.
func missingRow(op string, gateID, userID int64, err error) error {
	if classify(err) == foreignKeyViolation {
		return fmt.Errorf("%s: gate #%d or user #%d: %w", op, gateID, userID, core.ErrNotFound)
	}
	return translate(op, err)
}
