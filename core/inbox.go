package core

import (
	"context"
	"time"
)

// InboxUpdate is one update a chat platform delivered (a Telegram update),
// kept in the inbox from its arrival until the bot has handled it.
type InboxUpdate struct {
	// ID is the platform's id of the update (Telegram's update_id): unique
	// per bot and increasing in the order the platform delivers.
	ID int64
	// Member is whose update it is (the Telegram user id), the key that
	// keeps one member's updates in order; 0 when it has none.
	Member int64
	// Body is the update as the platform sent it (JSON).
	Body []byte
	// Received is when the bot stored it.
	Received time.Time
	// Handled says the update was handled already; its Body is gone then.
	// Only Inbox.StoredUpdates returns handled updates.
	Handled bool
}

// Inbox is the durable store of the updates a bot received
// (storage.DB): an update is stored before the platform is told it
// arrived, and handled from the store, so that none is lost when a
// process dies and none is handled twice when it is delivered twice, to
// one replica or to several sharing the database.
type Inbox interface {
	// AddUpdates stores updates of the bot botID in one transaction and
	// returns how many were new: an update already stored (a
	// redelivery), handled or not, is left as it is.
	AddUpdates(ctx context.Context, botID int64, us []InboxUpdate) (added int, err error)
	// PendingUpdates returns at most limit updates of botID not yet
	// handled whose ID is above after, oldest (lowest ID) first.
	PendingUpdates(ctx context.Context, botID, after int64, limit int) ([]InboxUpdate, error)
	// StoredUpdates returns at most limit updates of botID whose ID is
	// above after, oldest (lowest ID) first, pending and handled alike,
	// so that a reader tells an id handled already from one not stored
	// (yet); an update handled more than InboxRetention before at is left
	// out, as if pruned.
	StoredUpdates(ctx context.Context, botID, after int64, at time.Time, limit int) ([]InboxUpdate, error)
	// HandledThrough returns the highest ID of botID's updates up to
	// which every stored update is handled (those handled more than
	// InboxRetention before at count as pruned); 0 when there is none.
	// A reader that starts goes on from there.
	HandledThrough(ctx context.Context, botID int64, at time.Time) (int64, error)
	// FinishUpdates marks updates of botID handled at at; their bodies
	// are dropped, their ids kept at least InboxRetention so that a
	// redelivery is still recognised.
	FinishUpdates(ctx context.Context, botID int64, ids []int64, at time.Time) error
	// InboxBacklog counts the updates of botID not yet handled.
	InboxBacklog(ctx context.Context, botID int64) (int, error)
}

// InboxRetention is how long a handled update's id is remembered: twice
// the 24 hours Telegram goes on delivering an update its webhook did not
// confirm.
const InboxRetention = 48 * time.Hour
