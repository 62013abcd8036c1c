package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm"
)

var _ core.MomentStore = (*DB)(nil)

// momentRow is a row of moments, read with its tenant's platform and
// external id (Platform, Place). RequestKey is core's Key; Files is the
// JSON array of momentFileJSON.
type momentRow struct {
	ID          int64
	TenantID    int64
	UserID      int64
	Member      string
	RequestKey  string
	DropID      int64
	Author      string
	Description string
	Channel     string
	Files       string
	State       string
	MomentID    string
	Error       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Platform    string `gorm:"->"`
	Place       string `gorm:"->"`
}

// momentFileJSON is one file of moments.files. The names are spelled out
// because they are stored: renaming a field of core.MomentFile must not
// change what rows already hold.
type momentFileJSON struct {
	Ref         string `json:"ref"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Size        int64  `json:"size"`
	Unavailable string `json:"unavailable"`
	Sniffed     string `json:"sniffed"`
	HeadHash    string `json:"head_hash"`
	Hash        string `json:"hash"`
	Bytes       int64  `json:"bytes"`
	Key         string `json:"key"`
}

// selectMoments reads moments with their tenant's platform and external
// id; callers add the WHERE and ORDER BY.
const selectMoments = `
	SELECT m.id, m.tenant_id, m.user_id, m.member, m.request_key, m.drop_id, m.author, m.description,
		m.channel, m.files, m.state, m.moment_id, m.error, m.created_at, m.updated_at,
		t.platform, t.external_id AS place
	FROM moments m JOIN tenants t ON t.id = m.tenant_id`

// moment maps the row to a core.MomentRecord. It returns an error when the
// stored files cannot be read.
func (r momentRow) moment() (core.MomentRecord, error) {
	var files []momentFileJSON
	if err := json.Unmarshal([]byte(r.Files), &files); err != nil {
		return core.MomentRecord{}, fmt.Errorf("moment #%d: files: %w", r.ID, err)
	}
	m := core.MomentRecord{
		ID:          r.ID,
		PlaceID:     r.TenantID,
		UserID:      r.UserID,
		Platform:    core.Platform(r.Platform),
		Place:       r.Place,
		Member:      r.Member,
		Key:         r.RequestKey,
		DropID:      r.DropID,
		Author:      r.Author,
		Description: r.Description,
		Channel:     r.Channel,
		State:       core.MomentState(r.State),
		MomentID:    r.MomentID,
		Error:       r.Error,
		CreatedAt:   r.CreatedAt.UTC(),
		UpdatedAt:   r.UpdatedAt.UTC(),
	}
	for _, f := range files {
		m.Files = append(m.Files, core.MomentFile{
			MediaRef: core.MediaRef{Ref: f.Ref, Name: f.Name, Type: f.Type, Size: f.Size, Unavailable: f.Unavailable},
			Sniffed:  f.Sniffed, HeadHash: f.HeadHash, Hash: f.Hash, Bytes: f.Bytes, Key: f.Key,
		})
	}
	return m, nil
}

// momentFiles returns files as moments.files stores them: a JSON array,
// [] for none.
func momentFiles(files []core.MomentFile) (string, error) {
	out := make([]momentFileJSON, len(files))
	for i, f := range files {
		out[i] = momentFileJSON{
			Ref: f.Ref, Name: f.Name, Type: f.Type, Size: f.Size, Unavailable: f.Unavailable,
			Sniffed: f.Sniffed, HeadHash: f.HeadHash, Hash: f.Hash, Bytes: f.Bytes, Key: f.Key,
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// checkMomentState refuses a state the database's CHECK would, with a
// clearer message.
func checkMomentState(s core.MomentState) error {
	switch s {
	case core.MomentUploading, core.MomentProcessing, core.MomentCreating, core.MomentPosted, core.MomentFailed:
		return nil
	}
	return fmt.Errorf("unknown moment state %q", s)
}

// newMomentRow maps r to the row AddMoment inserts: in state
// core.MomentUploading unless r says another, created now when
// r.CreatedAt is zero, and updated when created. It returns an error for
// an unknown state or an empty member.
func newMomentRow(r core.MomentRecord) (momentRow, error) {
	if r.State == "" {
		r.State = core.MomentUploading
	}
	if err := checkMomentState(r.State); err != nil {
		return momentRow{}, err
	}
	if r.Member == "" {
		return momentRow{}, fmt.Errorf("the moment's member is empty")
	}
	files, err := momentFiles(r.Files)
	if err != nil {
		return momentRow{}, err
	}
	created := createdAt(r.CreatedAt)
	return momentRow{
		TenantID: r.PlaceID, UserID: r.UserID, Member: r.Member, RequestKey: r.Key, DropID: r.DropID,
		Author: r.Author, Description: r.Description, Channel: r.Channel, Files: files, State: string(r.State),
		MomentID: r.MomentID, Error: r.Error, CreatedAt: created, UpdatedAt: created,
	}, nil
}

// AddMoment records r in its tenant, with its files, and returns it with
// its ID and its tenant's Platform and Place. It stores r.State,
// core.MomentUploading when r sets none; a zero CreatedAt is now, and
// UpdatedAt is CreatedAt. When the tenant has a post with the same
// non-empty Key, it returns that post and core.ErrConflict; when one of
// r's files (by HeadHash) is in a post of the same user to the same drop
// that has not failed, in any tenant, it returns a *core.MomentRepeatError
// naming that post and the file: both record nothing, and of callers
// racing with the same key or the same file one records. It returns an
// error for an unknown state or an empty member, and core.ErrNotFound when
// the tenant or the user does not exist.
func (db *DB) AddMoment(ctx context.Context, r core.MomentRecord) (core.MomentRecord, error) {
	const op = "add moment"
	row, err := newMomentRow(r)
	if err != nil {
		return core.MomentRecord{}, fmt.Errorf("%s: %w", op, err)
	}
	var (
		stored   []momentRow
		conflict bool
		repeat   = &fileRepeat{file: -1}
	)
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		id, err := insertMoment(tx, row)
		if err != nil {
			return err
		}
		if id == 0 {
			// The key is taken: ON CONFLICT waited for the transaction
			// that took it, so this statement sees its row.
			conflict = true
			return tx.Raw(selectMoments+` WHERE m.tenant_id = ? AND m.request_key = ?`, row.TenantID, row.RequestKey).
				Scan(&stored).Error
		}
		if err := insertMomentFiles(tx, id, r, repeat); err != nil {
			return err
		}
		return tx.Raw(selectMoments+` WHERE m.id = ?`, id).Scan(&stored).Error
	})
	if repeat.file >= 0 {
		return db.repeated(ctx, op, repeat)
	}
	if classify(err) == foreignKeyViolation {
		return core.MomentRecord{}, fmt.Errorf("%s: tenant #%d or user #%d: %w", op, r.PlaceID, r.UserID, core.ErrNotFound)
	}
	if err != nil {
		return core.MomentRecord{}, translate(op, err)
	}
	if len(stored) == 0 {
		// The post that had the key was deleted (its member forgotten)
		// between the two statements.
		return core.MomentRecord{}, fmt.Errorf("%s: key %q in tenant #%d: %w", op, r.Key, r.PlaceID, core.ErrNotFound)
	}
	out, err := stored[0].moment()
	if err != nil {
		return core.MomentRecord{}, fmt.Errorf("%s: %w", op, err)
	}
	if conflict {
		return out, fmt.Errorf("%s: key %q in tenant #%d: moment #%d has it: %w", op, r.Key, r.PlaceID, out.ID, core.ErrConflict)
	}
	return out, nil
}

// fileRepeat is the file of a new post found in an earlier one: its index
// in the new post and the earlier post's id.
type fileRepeat struct {
	file int
	post int64
}

// errFileRepeat rolls back a post that repeats a file.
var errFileRepeat = errors.New("a file repeats an earlier post's")

// insertMomentFiles records the files of the new post id, one row per
// distinct head hash; a hash a post of the same user to the same drop has
// already is noted in repeat and rolls the transaction back.
func insertMomentFiles(tx *gorm.DB, id int64, r core.MomentRecord, repeat *fileRepeat) error {
	// In the order of their hashes, not the post's: two posts of the same
	// files in other orders would each hold a row the other waits for.
	order := make([]int, len(r.Files))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(r.Files[a].HeadHash, r.Files[b].HeadHash) })
	for _, i := range order {
		f := r.Files[i]
		if f.HeadHash == "" {
			continue
		}
		var owners []int64
		err := tx.Raw(`
			INSERT INTO moment_files (user_id, drop_id, head_hash, post_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (user_id, drop_id, head_hash) DO NOTHING RETURNING post_id`,
			r.UserID, r.DropID, f.HeadHash, id).Scan(&owners).Error
		if err != nil {
			return err
		}
		if len(owners) > 0 {
			continue
		}
		err = tx.Raw(`SELECT post_id FROM moment_files WHERE user_id = ? AND drop_id = ? AND head_hash = ?`,
			r.UserID, r.DropID, f.HeadHash).Scan(&owners).Error
		if err != nil {
			return err
		}
		if len(owners) > 0 && owners[0] == id {
			continue // the same file twice in this post
		}
		repeat.file = i
		if len(owners) > 0 {
			repeat.post = owners[0]
		}
		return errFileRepeat
	}
	return nil
}

// repeated reads the earlier post of a repeated file and returns the
// error AddMoment answers with.
func (db *DB) repeated(ctx context.Context, op string, repeat *fileRepeat) (core.MomentRecord, error) {
	first, err := db.moments(ctx, op, ` WHERE m.id = ?`, repeat.post)
	if err != nil {
		return core.MomentRecord{}, err
	}
	if len(first) == 0 {
		// The earlier post went (forgotten, or failed) meanwhile: the
		// caller may try again.
		return core.MomentRecord{}, fmt.Errorf("%s: file %d: %w", op, repeat.file+1, core.ErrConflict)
	}
	return core.MomentRecord{}, &core.MomentRepeatError{First: first[0], File: repeat.file}
}

// insertMoment inserts row unless its tenant has a post with its key, in
// one statement, and returns the new id, or 0 when the key was taken. The
// conflict target names the partial index, with its predicate, so that
// only that index is a conflict ignored.
func insertMoment(tx *gorm.DB, row momentRow) (int64, error) {
	var ids []int64
	err := tx.Raw(`
		INSERT INTO moments (tenant_id, user_id, member, request_key, drop_id, author, description, channel,
			files, state, moment_id, error, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, request_key) WHERE request_key <> '' DO NOTHING
		RETURNING id`,
		row.TenantID, row.UserID, row.Member, row.RequestKey, row.DropID, row.Author, row.Description, row.Channel,
		row.Files, row.State, row.MomentID, row.Error, row.CreatedAt, row.UpdatedAt).Scan(&ids).Error
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}

// UpdateMoment writes r's Author, Files, State, MomentID and Error to the
// post r.ID, with now as its UpdatedAt (r.UpdatedAt is ignored: the
// caller's copy is usually the one it read); nothing else of the post
// changes. A post that fails gives up its files, so that they may be
// posted again. It returns an error for an unknown state, and
// core.ErrNotFound when there is no such post.
func (db *DB) UpdateMoment(ctx context.Context, r core.MomentRecord) error {
	const op = "update moment"
	if err := checkMomentState(r.State); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	files, err := momentFiles(r.Files)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var found bool
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Exec(`
			UPDATE moments SET author = ?, files = ?, state = ?, moment_id = ?, error = ?, updated_at = ?
			WHERE id = ?`,
			r.Author, files, string(r.State), r.MomentID, r.Error, now(), r.ID)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		found = true
		if r.State != core.MomentFailed {
			return nil
		}
		return tx.Exec(`DELETE FROM moment_files WHERE post_id = ?`, r.ID).Error
	})
	switch {
	case err != nil:
		return translate(op, err)
	case !found:
		return fmt.Errorf("%s: moment #%d: %w", op, r.ID, core.ErrNotFound)
	}
	return nil
}

// TouchMoment sets the post's UpdatedAt to now: its process is alive. It
// returns core.ErrNotFound when there is no such post.
func (db *DB) TouchMoment(ctx context.Context, id int64) error {
	const op = "touch moment"
	res := db.gorm.WithContext(ctx).Exec(`UPDATE moments SET updated_at = ? WHERE id = ?`, now(), id)
	switch {
	case res.Error != nil:
		return translate(op, res.Error)
	case res.RowsAffected == 0:
		return fmt.Errorf("%s: moment #%d: %w", op, id, core.ErrNotFound)
	}
	return nil
}

// CountMoments counts the user's posts, in every tenant, created at or
// after since and not failed: the posts the rate limit counts. It returns
// the database error, if any.
func (db *DB) CountMoments(ctx context.Context, userID int64, since time.Time) (int, error) {
	var n int64
	err := db.gorm.WithContext(ctx).Table("moments").
		Where("user_id = ? AND created_at >= ? AND state <> ?", userID, dbTime(since), string(core.MomentFailed)).
		Count(&n).Error
	if err != nil {
		return 0, translate("count moments", err)
	}
	return int(n), nil
}

// UnfinishedMoments returns the posts of every tenant still uploading or
// processing, oldest first. It returns an error when stored files cannot
// be read.
func (db *DB) UnfinishedMoments(ctx context.Context) ([]core.MomentRecord, error) {
	// The predicate is the partial index's, spelled the same, so that both
	// dialects use it.
	return db.moments(ctx, "unfinished moments", `
		WHERE m.state IN ('uploading', 'processing', 'creating') ORDER BY m.created_at, m.id`)
}

// moments runs selectMoments with the clause rest and maps the rows.
func (db *DB) moments(ctx context.Context, op, rest string, args ...any) ([]core.MomentRecord, error) {
	var rows []momentRow
	if err := db.gorm.WithContext(ctx).Raw(selectMoments+rest, args...).Scan(&rows).Error; err != nil {
		return nil, translate(op, err)
	}
	out := make([]core.MomentRecord, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = r.moment(); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return out, nil
}

// MomentsOff reports whether moderators turned Moments off in the tenant;
// a tenant where nobody set it has them on. It returns core.ErrNotFound
// when there is no such tenant.
func (db *DB) MomentsOff(ctx context.Context, tenantID int64) (bool, error) {
	var off []bool
	err := db.gorm.WithContext(ctx).Raw(`SELECT moments_off FROM tenants WHERE id = ?`, tenantID).Scan(&off).Error
	switch {
	case err != nil:
		return false, translate("moments off", err)
	case len(off) == 0:
		return false, fmt.Errorf("moments off: tenant #%d: %w", tenantID, core.ErrNotFound)
	}
	return off[0], nil
}

// SetMomentsOff turns Moments off in the tenant, or back on. It returns
// core.ErrNotFound when there is no such tenant.
func (db *DB) SetMomentsOff(ctx context.Context, tenantID int64, off bool) error {
	const op = "set moments off"
	res := db.gorm.WithContext(ctx).Exec(`UPDATE tenants SET moments_off = ? WHERE id = ?`, off, tenantID)
	switch {
	case res.Error != nil:
		return translate(op, res.Error)
	case res.RowsAffected == 0:
		return fmt.Errorf("%s: tenant #%d: %w", op, tenantID, core.ErrNotFound)
	}
	return nil
}
