package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/poapbot/poapbot/core"
	"gorm.io/gorm/clause"
)

var _ core.PostStore = (*DB)(nil)

// postRow is a row of posts; LastAvailable is NULL until a count is
// recorded as shown.
type postRow struct {
	ID            int64
	DropID        int64
	Platform      string
	Place         string
	Channel       string
	Message       string
	Subject       string
	Intro         string
	LastAvailable *int
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

func (postRow) TableName() string { return "posts" }

func (r postRow) post() core.Post {
	p := core.Post{
		ID: r.ID, DropID: r.DropID, Subject: r.Subject, Intro: r.Intro,
		Ref:       core.PostRef{Platform: core.Platform(r.Platform), Place: r.Place, Channel: r.Channel, Message: r.Message},
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.LastAvailable != nil {
		p.Available = *r.LastAvailable
	}
	return p
}

// AddPost records a published post of p.DropID, in one statement;
// recording the same message (platform, channel, message) again replaces
// its drop, subject and intro. The count it shows is stored as not known
// (NULL), so that the first ChangedPosts returns it. A zero CreatedAt is
// now. It returns core.ErrConflict when the drop does not exist, and an
// error for an empty reference.
func (db *DB) AddPost(ctx context.Context, p core.Post) error {
	const op = "add post"
	r := p.Ref
	if r.Platform == "" || r.Place == "" || r.Channel == "" || r.Message == "" || p.Subject == "" {
		return fmt.Errorf("%s: incomplete post %+v", op, r)
	}
	at := createdAt(p.CreatedAt)
	row := postRow{
		DropID: p.DropID, Platform: string(r.Platform), Place: r.Place, Channel: r.Channel, Message: r.Message,
		Subject: p.Subject, Intro: p.Intro, CreatedAt: at, UpdatedAt: at,
	}
	err := db.gorm.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "platform"}, {Name: "channel"}, {Name: "message"}},
		DoUpdates: clause.AssignmentColumns([]string{"drop_id", "place", "subject", "intro", "last_available", "updated_at"}),
	}).Create(&row).Error
	return translate(op, err)
}

// changedRow is a post with the current count of its drop's available
// links. It repeats postRow's columns because gorm does not fill the
// fields of an embedded unexported struct.
type changedRow struct {
	ID            int64
	DropID        int64
	Platform      string
	Place         string
	Channel       string
	Message       string
	Subject       string
	Intro         string
	LastAvailable *int
	CreatedAt     time.Time
	UpdatedAt     time.Time
	Available     int
}

// post returns the post with Available set to the current count.
func (r changedRow) post() core.Post {
	p := postRow{
		ID: r.ID, DropID: r.DropID, Platform: r.Platform, Place: r.Place, Channel: r.Channel, Message: r.Message,
		Subject: r.Subject, Intro: r.Intro, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}.post()
	p.Available = r.Available
	return p
}

// ChangedPosts returns the posts of drops not removed whose count of
// available links differs from the one they show (or is not known), with
// Available set to the current count, oldest first. It records each count
// as shown with a conditional UPDATE on the count read (compare and swap),
// so that of several callers racing (replicas) one only gets a change;
// a post whose count moved meanwhile is left for the next call. It returns
// the database error, if any.
func (db *DB) ChangedPosts(ctx context.Context, at time.Time) ([]core.Post, error) {
	const op = "changed posts"
	var rows []changedRow
	err := db.gorm.WithContext(ctx).Raw(`
		SELECT * FROM (
			SELECT p.*, (SELECT count(*) FROM mint_links m WHERE m.drop_id = p.drop_id AND m.state = 'available') AS available
			FROM posts p JOIN drops d ON d.id = p.drop_id
			WHERE d.removed_at IS NULL
		) c
		WHERE c.last_available IS NULL OR c.last_available <> c.available
		ORDER BY c.id`).Scan(&rows).Error
	if err != nil {
		return nil, translate(op, err)
	}
	var out []core.Post
	for _, r := range rows {
		won, err := db.markShown(ctx, r, dbTime(at))
		if err != nil {
			return nil, translate(op, err)
		}
		if won {
			out = append(out, r.post())
		}
	}
	return out, nil
}

// markShown records r.Available as the count r's post shows, if the post
// still shows what r read; it reports whether it did.
func (db *DB) markShown(ctx context.Context, r changedRow, at time.Time) (bool, error) {
	q := db.gorm.WithContext(ctx)
	if r.LastAvailable == nil {
		q = q.Exec(`UPDATE posts SET last_available = ?, updated_at = ? WHERE id = ? AND last_available IS NULL`,
			r.Available, at, r.ID)
	} else {
		q = q.Exec(`UPDATE posts SET last_available = ?, updated_at = ? WHERE id = ? AND last_available = ?`,
			r.Available, at, r.ID, *r.LastAvailable)
	}
	return q.RowsAffected == 1, q.Error
}

// DropByID returns the drop, removed or not. It returns core.ErrNotFound
// when there is none, ErrNoKey without a key, and ErrDecrypt when the
// stored edit code cannot be decrypted.
func (db *DB) DropByID(ctx context.Context, dropID int64) (core.Drop, error) {
	const op = "drop by id"
	var row dropRow
	if err := db.gorm.WithContext(ctx).Where("id = ?", dropID).Take(&row).Error; err != nil {
		return core.Drop{}, translate(op, err)
	}
	d, err := db.drop(row)
	if err != nil {
		return core.Drop{}, fmt.Errorf("%s: %w", op, err)
	}
	return d, nil
}
