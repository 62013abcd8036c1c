package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
)

// joinDeclineRow is a row of gate_join_declines. Missing is the JSON array
// of gateDropJSON.
type joinDeclineRow struct {
	GateID      int64
	UserID      int64
	Member      string
	Reason      string
	Missing     string
	RequestedAt time.Time
	DeclinedAt  time.Time
}

func (joinDeclineRow) TableName() string { return "gate_join_declines" }

// joinDecline maps the row to a core.JoinDecline. It returns an error
// when the stored drops cannot be read.
func (r joinDeclineRow) joinDecline() (core.JoinDecline, error) {
	var drops []gateDropJSON
	if err := json.Unmarshal([]byte(r.Missing), &drops); err != nil {
		return core.JoinDecline{}, fmt.Errorf("join decline of gate #%d: missing: %w", r.GateID, err)
	}
	d := core.JoinDecline{GateID: r.GateID, UserID: r.UserID, Member: r.Member, Reason: core.DeclineReason(r.Reason),
		RequestedAt: r.RequestedAt.UTC(), DeclinedAt: r.DeclinedAt.UTC()}
	for _, m := range drops {
		d.Missing = append(d.Missing, core.GateDrop{ID: m.ID, Name: m.Name})
	}
	return d, nil
}

// AddJoinDecline stores a declined join request, in one statement,
// replacing an earlier one of the member to the gate. A zero DeclinedAt
// or RequestedAt is now. It returns an error for an empty member or an
// unknown reason, and core.ErrNotFound when the gate or the user does not
// exist.
func (db *DB) AddJoinDecline(ctx context.Context, d core.JoinDecline) error {
	const op = "add join decline"
	if d.Member == "" {
		return fmt.Errorf("%s: the member is empty", op)
	}
	switch d.Reason {
	case core.DeclineMissing, core.DeclineExpired:
	default:
		return fmt.Errorf("%s: unknown reason %q", op, d.Reason)
	}
	drops := make([]gateDropJSON, len(d.Missing))
	for i, m := range d.Missing {
		drops[i] = gateDropJSON{ID: m.ID, Name: m.Name}
	}
	missing, err := json.Marshal(drops)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = db.gorm.WithContext(ctx).Exec(`
		INSERT INTO gate_join_declines (gate_id, user_id, member, reason, missing, requested_at, declined_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (gate_id, user_id) DO UPDATE SET member = excluded.member, reason = excluded.reason,
			missing = excluded.missing, requested_at = excluded.requested_at, declined_at = excluded.declined_at`,
		d.GateID, d.UserID, d.Member, string(d.Reason), string(missing), createdAt(d.RequestedAt), createdAt(d.DeclinedAt)).Error
	if err != nil {
		return missingRow(op, d.GateID, d.UserID, err)
	}
	return nil
}

// UserJoinDeclines lists the user's declined join requests declined at or
// after since, oldest first; none for an unknown user. It returns the
// database error, if any, or an error when stored drops cannot be read.
func (db *DB) UserJoinDeclines(ctx context.Context, userID int64, since time.Time) ([]core.JoinDecline, error) {
	const op = "user join declines"
	var rows []joinDeclineRow
	err := db.gorm.WithContext(ctx).Where("user_id = ? AND declined_at >= ?", userID, dbTime(since)).
		Order("declined_at, gate_id").Find(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	out := make([]core.JoinDecline, len(rows))
	for i, r := range rows {
		if out[i], err = r.joinDecline(); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return out, nil
}

// PruneJoinDeclines deletes the declined join requests declined before
// before, and says how many. It returns the database error, if any.
func (db *DB) PruneJoinDeclines(ctx context.Context, before time.Time) (int, error) {
	res := db.gorm.WithContext(ctx).Where("declined_at < ?", dbTime(before)).Delete(&joinDeclineRow{})
	if res.Error != nil {
		return 0, translate("prune join declines", res.Error)
	}
	return int(res.RowsAffected), nil
}
