package telegram

import (
	"crypto/subtle"
	"io"
	"net/http"
	"time"

	"github.com/poapbot/poapbot/core"
)

// SecretHeader carries the webhook's secret_token in every delivery.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// maxUpdateBody bounds an update's body: updates are small.
const maxUpdateBody = 1 << 20

// WebhookHandler returns the handler of webhook deliveries, for the web
// server to mount (POST only). It answers 401 unless the
// X-Telegram-Bot-Api-Secret-Token header equals the webhook secret (an
// adapter without one refuses everything), 400 for a body that is not an
// update, 503 when the inbox cannot store it (Telegram delivers it again
// later), and 200 once it is stored, or found stored before (a
// redelivery, dropped): the inbox's handling replica handles it (inbox.go).
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBody))
	if err != nil {
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	u, err := inboxUpdate(body, time.Now())
	if err != nil {
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	if err := a.store(r.Context(), []core.InboxUpdate{u}); err != nil {
		a.log.Warn("telegram update not stored; Telegram delivers it again", "update_id", u.ID, "err", err)
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// validSecret compares the header with the secret in constant time.
func (a *Adapter) validSecret(got string) bool {
	want := a.opts.WebhookSecret.Reveal()
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
