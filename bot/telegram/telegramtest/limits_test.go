package telegramtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

// t0 is when the limits' clock stands at the start of each test; the
// tests move it with SetNow and never sleep.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// limited starts a fake holding the bot to l, with its clock stopped at
// t0, and a client of it.
func limited(t *testing.T, l telegramtest.Limits) (*telegramtest.Server, *tgbotapi.BotAPI) {
	t.Helper()
	tg := telegramtest.NewServer(telegramtest.Options{Limits: l})
	t.Cleanup(tg.Close)
	telegramtest.SetNow(tg, t0)
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	return tg, api
}

// at moves the clock of tg's limits to t0+d.
func at(tg *telegramtest.Server, d time.Duration) { telegramtest.SetNow(tg, t0.Add(d)) }

// retryAfter returns the retry_after of err, a 429 of the limits, or 0
// for no error; any other error fails the test.
func retryAfter(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	e := apiError(t, err)
	if e.Code != http.StatusTooManyRequests || e.RetryAfter < 1 || e.Message != fmt.Sprintf("Too Many Requests: retry after %d", e.RetryAfter) {
		t.Fatalf("error %d %q retry_after %d, want 429 Too Many Requests: retry after N", e.Code, e.Message, e.RetryAfter)
	}
	return e.RetryAfter
}

// send sends a text to chatID and returns retryAfter of the answer.
func send(t *testing.T, api *tgbotapi.BotAPI, chatID int64) int {
	t.Helper()
	_, err := api.Send(tgbotapi.NewMessage(chatID, "hi"))
	return retryAfter(t, err)
}

// sendAlbum sends an album of n photos to chatID and returns retryAfter
// of the answer.
func sendAlbum(t *testing.T, api *tgbotapi.BotAPI, chatID int64, n int) int {
	t.Helper()
	var photos []any
	for i := range n {
		photos = append(photos, tgbotapi.NewInputMediaPhoto(tgbotapi.FileURL(fmt.Sprintf("https://img.test/%d.png", i))))
	}
	_, err := api.SendMediaGroup(tgbotapi.NewMediaGroup(chatID, photos))
	return retryAfter(t, err)
}

// sendN sends n texts to chatID and fails the test unless all are sent.
func sendN(t *testing.T, api *tgbotapi.BotAPI, chatID int64, n int) {
	t.Helper()
	for i := range n {
		if r := send(t, api, chatID); r != 0 {
			t.Fatalf("send %d to %d refused, retry after %d; want it sent", i+1, chatID, r)
		}
	}
}

func TestLimits_Global(t *testing.T) {
	tg, api := limited(t, telegramtest.BotAPILimits)
	for i := range int64(30) {
		sendN(t, api, 5000+i, 1)
	}
	// The 31st, to yet another chat, as a plain POST to read the body.
	resp, err := http.PostForm(tg.URL()+"/bot"+tg.Token+"/sendMessage", url.Values{"chat_id": {"6000"}, "text": {"hi"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		OK          bool   `json:"ok"`
		ErrorCode   int    `json:"error_code"`
		Description string `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 429 || body.OK || body.ErrorCode != 429 || body.Description != "Too Many Requests: retry after 1" || body.Parameters.RetryAfter != 1 {
		t.Errorf("31st message in a second = %d %+v, want 429 Too Many Requests: retry after 1", resp.StatusCode, body)
	}
	if n := len(tg.Messages()); n != 30 {
		t.Errorf("%d messages sent, want 30", n)
	}
	if th := tg.Throttled(); len(th) != 1 || th[0].Method != "sendMessage" || th[0].Params["chat_id"] != "6000" {
		t.Errorf("Throttled() = %v, want the sendMessage to 6000", th)
	}

	at(tg, 999*time.Millisecond)
	if r := send(t, api, 6000); r != 1 {
		t.Errorf("send 1 ms before the first message leaves the second: retry after %d, want 1", r)
	}
	at(tg, time.Second)
	sendN(t, api, 6000, 1)
}

func TestLimits_Private(t *testing.T) {
	tg, api := limited(t, telegramtest.BotAPILimits)
	sendN(t, api, alice.ID, 3)
	if r := send(t, api, alice.ID); r != 3 {
		t.Errorf("4th message to one private chat at once: retry after %d, want 3", r)
	}
	sendN(t, api, 2002, 3) // another private chat has its own window
	at(tg, 2500*time.Millisecond)
	if r := send(t, api, alice.ID); r != 1 {
		t.Errorf("4th message 2.5 s after 3: retry after %d, want 1", r)
	}
	at(tg, 3*time.Second)
	sendN(t, api, alice.ID, 3)
	if n := len(tg.Throttled()); n != 2 {
		t.Errorf("%d calls throttled, want 2", n)
	}
}

func TestLimits_Group(t *testing.T) {
	const group = -100
	tg, api := limited(t, telegramtest.BotAPILimits)
	sendN(t, api, group, 20)
	if r := send(t, api, group); r != 60 {
		t.Errorf("21st message to a group at once: retry after %d, want 60", r)
	}
	sendN(t, api, -200, 1) // another group has its own window
	at(tg, 59500*time.Millisecond)
	if r := send(t, api, group); r != 1 {
		t.Errorf("21st message 59.5 s after 20: retry after %d, want 1", r)
	}
	at(tg, time.Minute)
	sendN(t, api, group, 20)

	var toGroup []telegramtest.Message
	for _, m := range tg.Messages() {
		if m.ChatID == group {
			toGroup = append(toGroup, m)
		}
	}
	if n := telegramtest.MaxInWindow(toGroup, time.Minute); n != 20 {
		t.Errorf("MaxInWindow(to the group, 1 min) = %d, want 20", n)
	}
	if first, last := toGroup[0].At, toGroup[len(toGroup)-1].At; !first.Equal(t0) || !last.Equal(t0.Add(time.Minute)) {
		t.Errorf("messages At %v to %v, want %v to a minute later", first, last, t0)
	}
}

func TestLimits_MediaGroup(t *testing.T) {
	t.Run("Group", func(t *testing.T) {
		_, api := limited(t, telegramtest.BotAPILimits)
		if r := sendAlbum(t, api, -100, 10); r != 0 {
			t.Fatalf("album refused, retry after %d", r)
		}
		sendN(t, api, -100, 10)
		if r := send(t, api, -100); r != 60 {
			t.Errorf("message after an album of 10 and 10 messages: retry after %d, want 60", r)
		}
	})
	t.Run("Private", func(t *testing.T) {
		_, api := limited(t, telegramtest.BotAPILimits)
		if r := sendAlbum(t, api, alice.ID, 10); r != 0 {
			t.Fatalf("album refused, retry after %d", r)
		}
		sendN(t, api, alice.ID, 2) // the album counted as one
		if r := send(t, api, alice.ID); r != 3 {
			t.Errorf("message after an album and 2 messages: retry after %d, want 3", r)
		}
	})
	t.Run("Global", func(t *testing.T) {
		_, api := limited(t, telegramtest.BotAPILimits)
		for _, chat := range []int64{-1, -2, alice.ID} {
			if r := sendAlbum(t, api, chat, 10); r != 0 {
				t.Fatalf("album to %d refused, retry after %d", chat, r)
			}
		}
		if r := send(t, api, 2002); r != 1 {
			t.Errorf("message after 3 albums of 10: retry after %d, want 1", r)
		}
	})
	t.Run("LargerThanWindow", func(t *testing.T) {
		// An album larger than a window is sent only into an empty one.
		tg, api := limited(t, telegramtest.Limits{Group: telegramtest.Window{N: 5, Per: time.Minute}})
		if r := sendAlbum(t, api, -100, 10); r != 0 {
			t.Fatalf("album of 10 into an empty window of 5 refused, retry after %d", r)
		}
		at(tg, 30*time.Second)
		if r := send(t, api, -100); r != 30 {
			t.Errorf("message 30 s after it: retry after %d, want 30", r)
		}
	})
}

func TestLimits_Off(t *testing.T) {
	tg, api := limited(t, telegramtest.Limits{})
	sendN(t, api, alice.ID, 100)
	if n := len(tg.Messages()); n != 100 {
		t.Errorf("%d messages sent, want 100", n)
	}
	if th := tg.Throttled(); len(th) != 0 {
		t.Errorf("Throttled() = %v without limits, want none", th)
	}
}

func TestLimits_EditsCount(t *testing.T) {
	tg, api := limited(t, telegramtest.BotAPILimits)
	m, err := api.Send(tgbotapi.NewMessage(alice.ID, "v1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Send(tgbotapi.NewEditMessageText(alice.ID, m.MessageID, "v2")); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Send(tgbotapi.NewEditMessageCaption(alice.ID, m.MessageID, "v3")); err != nil {
		t.Fatal(err)
	}
	_, err = api.Send(tgbotapi.NewEditMessageText(alice.ID, m.MessageID, "v4"))
	if r := retryAfter(t, err); r != 3 {
		t.Errorf("3rd edit after a message: retry after %d, want 3", r)
	}
	if edits := tg.Edits(alice.ID, m.MessageID); len(edits) != 2 {
		t.Errorf("Edits() = %v, want the 2 admitted", edits)
	}
}

func TestLimits_OtherMethodsNeverRefused(t *testing.T) {
	tg, api := limited(t, telegramtest.BotAPILimits)
	for i := range int64(29) {
		sendN(t, api, 5000+i, 1)
	}
	sendN(t, api, alice.ID, 1) // the 30th
	calls := []tgbotapi.Chattable{
		tgbotapi.GetChatMemberConfig{ChatConfigWithUser: tgbotapi.ChatConfigWithUser{ChatID: -100, UserID: alice.ID}},
		tgbotapi.NewCallback("42", "ok"),
		tgbotapi.NewDeleteMessage(alice.ID, 1),
		tgbotapi.NewSetMyCommands(tgbotapi.BotCommand{Command: "help", Description: "Help"}),
		tgbotapi.UpdateConfig{},
	}
	for range 3 {
		for _, c := range calls {
			_, err := api.Request(c)
			if e, ok := err.(*tgbotapi.Error); ok && e.Code == http.StatusTooManyRequests {
				t.Errorf("%T refused by the limits: %v", c, e)
			}
		}
	}
	if r := send(t, api, 2002); r != 1 {
		t.Errorf("31st message: retry after %d, want 1", r)
	}
	if th := tg.Throttled(); len(th) != 1 {
		t.Errorf("Throttled() = %v, want only the 31st message", th)
	}
}

func TestLimits_FailedCalls(t *testing.T) {
	t.Run("Count", func(t *testing.T) {
		// The fake counts a message call that fails for another reason.
		_, api := limited(t, telegramtest.BotAPILimits)
		bad := tgbotapi.NewMessage(alice.ID, "<b>unclosed")
		bad.ParseMode = tgbotapi.ModeHTML
		for range 3 {
			_, err := api.Send(bad)
			if e := apiError(t, err); e.Code != http.StatusBadRequest {
				t.Fatalf("Send(bad HTML) = %v, want 400", e)
			}
		}
		if r := send(t, api, alice.ID); r != 3 {
			t.Errorf("message after 3 failed ones: retry after %d, want 3", r)
		}
	})
	t.Run("ScriptedFailDoesNot", func(t *testing.T) {
		tg, api := limited(t, telegramtest.BotAPILimits)
		tg.Fail("sendMessage", telegramtest.Failure{Code: 429, Description: "Too Many Requests: retry after 9", RetryAfter: 9})
		if r := send(t, api, alice.ID); r != 9 {
			t.Fatalf("scripted failure: retry after %d, want 9", r)
		}
		sendN(t, api, alice.ID, 3)
		if th := tg.Throttled(); len(th) != 0 {
			t.Errorf("Throttled() = %v, want none (Fail is not the limits)", th)
		}
	})
}

func TestLimits_SetLimits(t *testing.T) {
	tg, api := limited(t, telegramtest.Limits{})
	sendN(t, api, alice.ID, 5)
	tg.SetLimits(telegramtest.BotAPILimits)
	sendN(t, api, alice.ID, 3) // the 5 before do not count
	if r := send(t, api, alice.ID); r != 3 {
		t.Errorf("4th message once limited: retry after %d, want 3", r)
	}
	tg.SetLimits(telegramtest.Limits{})
	sendN(t, api, alice.ID, 5)
	if n, th := len(tg.Messages()), len(tg.Throttled()); n != 13 || th != 1 {
		t.Errorf("%d sent and %d throttled, want 13 and 1", n, th)
	}
}

func TestLimits_Concurrent(t *testing.T) {
	tg, api := limited(t, telegramtest.BotAPILimits)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range int64(40) {
		wg.Go(func() {
			_, err := api.Send(tgbotapi.NewMessage(5000+i, "hi"))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	refused := 0
	for err := range errs {
		if err != nil {
			if retryAfter(t, err) != 1 {
				t.Errorf("refused with %v, want retry after 1", err)
			}
			refused++
		}
	}
	if refused != 10 || len(tg.Throttled()) != 10 || len(tg.Messages()) != 30 {
		t.Errorf("%d refused, %d throttled, %d sent; want 10, 10, 30", refused, len(tg.Throttled()), len(tg.Messages()))
	}
	if n := telegramtest.MaxInWindow(tg.Messages(), time.Second); n != 30 {
		t.Errorf("MaxInWindow(all, 1 s) = %d, want 30", n)
	}
}

func TestMaxInWindow(t *testing.T) {
	msgs := func(ms ...int) []telegramtest.Message {
		var out []telegramtest.Message
		for _, m := range ms {
			out = append(out, telegramtest.Message{At: t0.Add(time.Duration(m) * time.Millisecond)})
		}
		return out
	}
	for _, tc := range []struct {
		msgs []telegramtest.Message
		w    time.Duration
		want int
	}{
		{nil, time.Second, 0},
		{msgs(0), time.Second, 1},
		{msgs(1500, 0, 1000, 500, 1900), time.Second, 3}, // 1000, 1500, 1900
		{msgs(0, 1000, 2000), time.Second, 1},            // a window is half-open
		{msgs(0, 0, 0), time.Millisecond, 3},
		{msgs(0, 0), 0, 0},
	} {
		if got := telegramtest.MaxInWindow(tc.msgs, tc.w); got != tc.want {
			t.Errorf("MaxInWindow(%v, %v) = %d, want %d", tc.msgs, tc.w, got, tc.want)
		}
	}
}
