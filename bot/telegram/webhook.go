package telegram

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// SecretHeader carries the webhook's secret_token in every delivery.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// Webhook bounds: an update body is small; a delivery waits this long for
// a free slot before asking Telegram to deliver it again later.
const (
	maxUpdateBody = 1 << 20
	slotWait      = 2 * time.Second
)

// UpdateLog records the webhook updates the bot took, for every replica
// alike (storage.DB keeps it in the database), so that an update Telegram
// delivers again, to this replica or another, is handled once.
type UpdateLog interface {
	// TakeUpdate records update updateID of the bot botID, taken at at,
	// and reports whether this call recorded it first. Records are kept
	// for at least UpdateRedelivery.
	TakeUpdate(ctx context.Context, botID, updateID int64, at time.Time) (bool, error)
}

// UpdateRedelivery is how long Telegram keeps delivering an update its
// webhook did not confirm: 24 hours. An update log remembers updates at
// least this long.
const UpdateRedelivery = 24 * time.Hour

// WebhookHandler returns the handler of webhook deliveries, for the web
// server to mount (POST only). It answers 401 unless the
// X-Telegram-Bot-Api-Secret-Token header equals the webhook secret (an
// adapter without one refuses everything), 400 for a body that is not an
// update, 503 while Run is not running, every slot is busy or the update
// log cannot be written (Telegram delivers again later), and 200 as soon as
// the update is taken, or found taken before (a redelivery, dropped): the
// update is handled in the background, bounded by the update timeout.
func (a *Adapter) WebhookHandler() http.Handler {
	return http.HandlerFunc(a.serveWebhook)
}

func (a *Adapter) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !a.validSecret(r.Header.Get(SecretHeader)) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	var u tgbotapi.Update
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxUpdateBody)).Decode(&u); err != nil {
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	if !a.acquire() {
		http.Error(w, "not running", http.StatusServiceUnavailable)
		return
	}
	if !a.takeSlot(r.Context()) {
		a.inflight.Done()
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	// Recorded once a slot is held: an update refused for want of one is
	// delivered again and must not be taken for a repeat then.
	first, err := a.opts.Updates.TakeUpdate(r.Context(), a.api.Self.ID, int64(u.UpdateID), time.Now())
	if err != nil || !first {
		<-a.slots
		a.inflight.Done()
		if err != nil {
			a.log.Warn("telegram update not recorded; Telegram delivers it again", "update_id", u.UpdateID, "err", err)
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		a.log.Debug("telegram update delivered again, dropped", "update_id", u.UpdateID)
		w.WriteHeader(http.StatusOK)
		return
	}
	go func() {
		defer func() { <-a.slots; a.inflight.Done() }()
		a.handleUpdate(context.Background(), u)
	}()
	w.WriteHeader(http.StatusOK)
}

// validSecret compares the header with the secret in constant time.
func (a *Adapter) validSecret(got string) bool {
	want := a.opts.WebhookSecret.Reveal()
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// takeSlot waits up to slotWait for a free handling slot.
func (a *Adapter) takeSlot(ctx context.Context) bool {
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}
