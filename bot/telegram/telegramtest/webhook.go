package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// SecretHeader carries setWebhook's secret_token on every webhook delivery.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// setWebhook records the webhook (url, secret_token, allowed_updates, ...)
// and delivers the updates already waiting. An empty url removes it, as on
// the real API.
func (s *Server) setWebhook(p map[string]string) (any, *Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p["url"] == "" {
		s.webhook = nil
		return true, nil
	}
	s.webhook = p
	for _, u := range s.pending {
		s.deliverLocked(u)
	}
	return true, nil
}

func (s *Server) deleteWebhook(p map[string]string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = nil
	if p["drop_pending_updates"] == "true" {
		s.pending = nil
	}
	return true
}

func (s *Server) webhookInfo() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := map[string]any{"url": "", "has_custom_certificate": false, "pending_update_count": len(s.pending)}
	if s.webhook != nil {
		info["url"] = s.webhook["url"]
		info["allowed_updates"] = allowedUpdates(s.webhook["allowed_updates"])
	}
	return info
}

// deliverLocked POSTs u to the webhook in the background; a 2xx answer
// confirms it. s.mu must be held.
func (s *Server) deliverLocked(u pendingUpdate) {
	if s.isClosed {
		return
	}
	hook := s.webhook
	if !slices.Contains(allowedUpdates(hook["allowed_updates"]), u.kind) {
		return
	}
	body, err := json.Marshal(u.body)
	if err != nil {
		panic(fmt.Sprintf("telegramtest: update %d does not marshal: %v", u.id, err))
	}
	s.deliveries.Add(1)
	go func() {
		defer s.deliveries.Done()
		status, err := s.post(hook["url"], hook["secret_token"], body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.delivered = append(s.delivered, Delivery{UpdateID: u.id, Status: status, Err: err})
		if status >= 200 && status < 300 {
			s.pending = slices.DeleteFunc(s.pending, func(p pendingUpdate) bool { return p.id == u.id })
		}
		s.notifyLocked()
	}()
}

func (s *Server) post(url, secret string, body []byte) (int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(SecretHeader, secret)
	}
	resp, err := s.webhookClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// WaitDelivery returns the outcome of delivering update id to the webhook,
// waiting for it until ctx is done.
func (s *Server) WaitDelivery(ctx context.Context, id int) (Delivery, error) {
	for {
		s.mu.Lock()
		for _, d := range s.delivered {
			if d.UpdateID == id {
				s.mu.Unlock()
				return d, nil
			}
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Delivery{}, fmt.Errorf("telegramtest: update %d not delivered: %w", id, ctx.Err())
		}
	}
}
