package telegram

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Albums. Telegram delivers the items of an album (a media group) as
// separate messages sharing a media_group_id, usually with the caption on
// the first alone. The adapter collects the items of one album until none
// arrived for Options.AlbumWait, then runs the album once: the command of
// the first item (by message id) whose caption is one, with every item's
// file in message id order. An item that arrives later starts an album of
// its own, which runs without the command when its caption has none.
//
// Limits: the items are marked handled in the inbox once collected, so an
// album whose process dies within AlbumWait of its last item is lost (the
// member sends it again). A bot in a group with privacy mode on
// (BotFather's default) that is no administrator may be delivered the
// captioned item alone.
const (
	// maxAlbumItems is the most items Telegram puts in an album.
	maxAlbumItems = 10
	// maxPendingAlbums bounds the albums collected at once; past it, an
	// item is handled as a message of its own.
	maxPendingAlbums = 1000
)

// albumKey names an album: media_group_id is unique within a chat.
type albumKey struct {
	chat  int64
	group string
}

// albums are the albums being collected.
type albums struct {
	mu      sync.Mutex
	pending map[albumKey]*pendingAlbum
}

// pendingAlbum is the items of one album collected so far, and the timer that
// runs it once no item came for a while.
type pendingAlbum struct {
	items []*tgbotapi.Message
	timer *time.Timer
}

// collect adds an album item, and reports whether it was taken; it is not
// when too many albums are being collected. The first item of an album
// counts as work in flight (Run waits for it) until the album ran.
func (a *Adapter) collect(m *tgbotapi.Message) bool {
	k := albumKey{chat: m.Chat.ID, group: m.MediaGroupID}
	c := a.albums
	c.mu.Lock()
	defer c.mu.Unlock()
	if al := c.pending[k]; al != nil {
		seen := slices.ContainsFunc(al.items, func(it *tgbotapi.Message) bool { return it.MessageID == m.MessageID })
		if !seen && len(al.items) < maxAlbumItems {
			al.items = append(al.items, m)
		}
		// Should the timer have fired already, its run takes this item
		// too, and the run Reset schedules finds the album gone.
		al.timer.Reset(a.opts.AlbumWait)
		return true
	}
	if len(c.pending) >= maxPendingAlbums {
		a.log.Warn("telegram too many albums collected at once; handling an item alone", "chat_id", k.chat)
		return false
	}
	al := &pendingAlbum{items: []*tgbotapi.Message{m}}
	// The item's own update is still in flight, so the count is not zero.
	a.inflight.Add(1)
	al.timer = time.AfterFunc(a.opts.AlbumWait, func() { a.runAlbum(k, al) })
	c.pending[k] = al
	return true
}

// runAlbum runs a collected album, once, as an update of its own (bounded
// by the update timeout; a panic is logged).
func (a *Adapter) runAlbum(k albumKey, al *pendingAlbum) {
	c := a.albums
	c.mu.Lock()
	if c.pending[k] != al {
		c.mu.Unlock()
		return // ran already
	}
	delete(c.pending, k)
	items := slices.Clone(al.items)
	c.mu.Unlock()
	defer a.inflight.Done()
	defer a.recoverPanic("album", k.group)
	ctx, cancel := context.WithTimeout(context.Background(), a.opts.UpdateTimeout+a.opts.QueueWait)
	defer cancel()
	if in, ok := a.albumIncoming(k, items); ok {
		a.handleIncoming(ctx, in)
	}
}

// albumIncoming is the incoming of an album: the first item whose caption
// is a command, else the first with a caption, with every item's file in
// message id order. ok is false when no item has a caption.
func (a *Adapter) albumIncoming(k albumKey, items []*tgbotapi.Message) (incoming, bool) {
	slices.SortFunc(items, func(x, y *tgbotapi.Message) int { return cmp.Compare(x.MessageID, y.MessageID) })
	var lead *tgbotapi.Message
	for _, it := range items {
		caption := strings.TrimSpace(it.Caption)
		if strings.HasPrefix(caption, "/") {
			lead = it
			break
		}
		if lead == nil && caption != "" {
			lead = it
		}
	}
	if lead == nil {
		return incoming{}, false
	}
	in := incoming{
		o: originOf(lead), messageID: lead.MessageID, line: lead.Caption,
		key: fmt.Sprintf("telegram:%d:album:%s", k.chat, k.group),
	}
	for _, it := range items {
		if md, ok := a.messageMedia(it); ok {
			in.media = append(in.media, md)
		}
	}
	return in, true
}

// recoverPanic, deferred, logs a panic instead of letting it stop the
// bot: nothing a member sends may.
func (a *Adapter) recoverPanic(what string, id any) {
	if p := recover(); p != nil {
		a.log.Error("telegram handler panicked", "handling", what, "id", id, "panic", p)
	}
}
