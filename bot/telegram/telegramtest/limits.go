package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Window is a sliding-window flood limit: at most N messages in any span
// of Per. A Window with N or Per zero is no limit.
type Window struct {
	N   int
	Per time.Duration
}

// Limits are the flood limits the fake holds the bot to (Options.Limits,
// SetLimits). The zero value holds it to none.
//
// The messages counted are the successful and failed calls of
// sendMessage, sendPhoto, sendDocument, sendMediaGroup, editMessageText
// and editMessageCaption; a sendMediaGroup counts its number of items
// against the Global and Group windows and as one against the Private
// window. A call is counted when it arrives (after any Delay and scripted
// Fail), before the method runs, so a call that then fails (400, 403, ...)
// still counts: Telegram's behaviour there is unknown, and counting is
// the stricter choice. A call that would take any window over its N is
// refused with 429 Too Many Requests and parameters.retry_after, the
// whole seconds (at least 1) until enough messages have left the tripped
// window, and counts against none. Other methods are never counted or
// refused.
type Limits struct {
	// Global limits all chats together.
	Global Window
	// Private limits each private chat (chat_id > 0) on its own.
	Private Window
	// Group limits each group or channel (chat_id < 0) on its own.
	Group Window
}

// BotAPILimits are Telegram's flood limits as this project models them:
// 30 messages a second in all, 3 in any 3 seconds to one private chat
// (about one a second, with short bursts) and 20 a minute to one group.
var BotAPILimits = Limits{
	Global:  Window{N: 30, Per: time.Second},
	Private: Window{N: 3, Per: 3 * time.Second},
	Group:   Window{N: 20, Per: time.Minute},
}

// SetLimits makes the fake hold the bot to l from now on; Limits{} turns
// the limits off. Messages sent before do not count under l.
func (s *Server) SetLimits(l Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = l
	s.global = nil
	s.perChat = map[int64][]time.Time{}
}

// Throttled returns the calls the limits refused with 429, oldest first;
// calls failed with Fail are not among them.
func (s *Server) Throttled() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.throttled...)
}

// MaxInWindow returns the largest number of msgs whose At falls within
// any span of length w, to check from the fake's record that the bot kept
// to a limit: MaxInWindow of the messages to a group with w one minute is
// at most 20 under BotAPILimits. Each photo of an album is one message
// here, as for the Global and Group windows (the Private window counts an
// album as one).
func MaxInWindow(msgs []Message, w time.Duration) int {
	if w <= 0 {
		return 0
	}
	at := make([]time.Time, len(msgs))
	for i, m := range msgs {
		at[i] = m.At
	}
	slices.SortFunc(at, time.Time.Compare)
	most, first := 0, 0
	for last := range at {
		for at[last].Sub(at[first]) >= w {
			first++
		}
		most = max(most, last-first+1)
	}
	return most
}

// admit counts call c against the limits at its arrival, now, or returns
// the 429 failure that refuses it. It returns the arrival time, which the
// messages the call sends record as their At.
func (s *Server) admit(c Call) (time.Time, *Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	n := cost(c)
	if n == 0 {
		return now, nil
	}
	// A chat_id that is no number (an @username) counts only globally.
	chatID, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	chat, chatN := s.limits.Group, n
	switch {
	case chatID > 0:
		chat, chatN = s.limits.Private, 1
	case chatID == 0:
		chat = Window{}
	}
	s.global = s.limits.Global.trim(s.global, now)
	s.perChat[chatID] = chat.trim(s.perChat[chatID], now)
	wait := max(s.limits.Global.wait(s.global, n, now), chat.wait(s.perChat[chatID], chatN, now))
	if wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		s.throttled = append(s.throttled, c)
		s.notifyLocked()
		return now, &Failure{
			Code:        http.StatusTooManyRequests,
			Description: fmt.Sprintf("Too Many Requests: retry after %d", secs),
			RetryAfter:  secs,
		}
	}
	s.global = s.limits.Global.add(s.global, n, now)
	s.perChat[chatID] = chat.add(s.perChat[chatID], chatN, now)
	return now, nil
}

// cost returns the number of messages call c sends, as the Global and
// Group windows count them, or 0 for a method that sends none.
func cost(c Call) int {
	switch c.Method {
	case "sendMessage", "sendPhoto", "sendDocument", "editMessageText", "editMessageCaption":
		return 1
	case "sendMediaGroup":
		var items []json.RawMessage
		if json.Unmarshal([]byte(c.Params["media"]), &items) != nil || len(items) == 0 {
			return 1 // refused as malformed, but counted like any failed call
		}
		return len(items)
	}
	return 0
}

// off reports whether w limits nothing.
func (w Window) off() bool { return w.N <= 0 || w.Per <= 0 }

// trim returns the arrival times (oldest first) that are still within w
// at now: those less than Per ago.
func (w Window) trim(times []time.Time, now time.Time) []time.Time {
	if w.off() {
		return nil
	}
	i := 0
	for i < len(times) && now.Sub(times[i]) >= w.Per {
		i++
	}
	return times[i:]
}

// wait returns how long until n more messages fit in w beside times
// (trimmed to now), 0 if they fit now. A call of more than N messages
// needs the whole window free.
func (w Window) wait(times []time.Time, n int, now time.Time) time.Duration {
	if w.off() {
		return 0
	}
	over := len(times) + min(n, w.N) - w.N
	if over <= 0 {
		return 0
	}
	return times[over-1].Add(w.Per).Sub(now)
}

// add records n messages arriving at now in w.
func (w Window) add(times []time.Time, n int, now time.Time) []time.Time {
	if w.off() {
		return nil
	}
	for range n {
		times = append(times, now)
	}
	return times
}
