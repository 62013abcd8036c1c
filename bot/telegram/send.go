package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// Rate limits of calls that are not messages (messages wait in the flood
// scheduler): a 429 carries retry_after; the adapter waits that long, at
// most maxRetryWait, and tries again up to maxRetries times, all within the
// update's deadline.
const (
	maxRetries   = 2
	maxRetryWait = 30 * time.Second
)

// sendReply sends a reply to chatID: its pictures first (see
// sendPictures), then its text in as many messages as it needs, the image
// as the link preview, the buttons under the last one (so that paging
// buttons sit under the pictures they page), and its file as a document
// (see sendWithFile). Pictures are extras: when they fail for any reason
// but an unreachable chat, the failure is logged and the text, which
// names what they show, is sent all the same.
// See https://core.telegram.org/bots/api#sendmessage.
func (a *Adapter) sendReply(ctx context.Context, chatID int64, r bot.Reply) error {
	return a.sendReplyTo(ctx, chatID, 0, r)
}

// sendReplyTo is sendReply with the first message of the text in reply to
// message replyTo of the chat (none when 0), sent also should that
// message be gone.
func (a *Adapter) sendReplyTo(ctx context.Context, chatID int64, replyTo int, r bot.Reply) error {
	if len(r.Pictures) > 0 {
		err := a.sendPictures(ctx, chatID, r.Pictures)
		if unreachable(err) {
			return err
		}
		if err != nil {
			a.log.Warn("telegram pictures not sent, sending the text without them", "chat_id", chatID, "pictures", len(r.Pictures), "err", err)
		}
		r.Pictures = nil
	}
	if r.File != nil {
		return a.sendWithFile(ctx, chatID, r)
	}
	if strings.TrimSpace(r.Text) == "" {
		return nil // Telegram refuses empty messages; no reply is meant
	}
	parts := chunks(r.Text)
	for i, part := range parts {
		image, buttons := "", []bot.Button(nil)
		if i == 0 {
			image = r.Image
		}
		if i == len(parts)-1 {
			buttons = r.Buttons
		}
		p, err := a.textParams(chatID, part, image, buttons)
		if err == nil && i == 0 && replyTo != 0 {
			err = addReplyTo(p, replyTo)
		}
		if err != nil {
			return err
		}
		if _, err := a.textRequest(ctx, "sendMessage", p, part); err != nil {
			return err
		}
	}
	return nil
}

// textParams renders one message of Markdown md to chatID as HTML, with
// image as its link preview (none when ""), and buttons.
func (a *Adapter) textParams(chatID int64, md, image string, buttons []bot.Button) (tgbotapi.Params, error) {
	p := tgbotapi.Params{"chat_id": strconv.FormatInt(chatID, 10), "text": renderHTML(md), "parse_mode": tgbotapi.ModeHTML}
	// link_preview_options (Bot API 7.0) is newer than the library.
	preview := map[string]any{"is_disabled": true}
	if image != "" {
		preview = map[string]any{"url": image, "prefer_small_media": true}
	}
	if err := p.AddInterface("link_preview_options", preview); err != nil {
		return nil, err
	}
	if err := p.AddInterface("reply_markup", a.keyboard(buttons)); err != nil {
		return nil, err
	}
	return p, nil
}

// addReplyTo makes a message answer message id of its chat, and still be
// sent should that one be gone. reply_parameters (Bot API 7.0) is newer
// than the library. See https://core.telegram.org/bots/api#replyparameters.
func addReplyTo(p tgbotapi.Params, id int) error {
	return p.AddInterface("reply_parameters", map[string]any{"message_id": id, "allow_sending_without_reply": true})
}

// textRequest sends (sendMessage) or edits (editMessageText) one message,
// and returns its id. Should Telegram refuse the HTML (a reply whose
// Markdown nests oddly), it sends the plain text instead: a member gets
// the words either way.
func (a *Adapter) textRequest(ctx context.Context, method string, p tgbotapi.Params, md string) (int, error) {
	resp, err := a.makeRequest(ctx, method, p)
	var apiErr *tgbotapi.Error
	if errors.As(err, &apiErr) && apiErr.Code == http.StatusBadRequest && strings.Contains(apiErr.Message, "can't parse entities") {
		a.log.Warn("telegram refused the HTML of a reply, sending plain text", "method", method, "err", err)
		delete(p, "parse_mode")
		p["text"] = bot.PlainText(md)
		resp, err = a.makeRequest(ctx, method, p)
	}
	if err != nil {
		return 0, err
	}
	var m tgbotapi.Message
	if json.Unmarshal(resp.Result, &m) != nil {
		return 0, nil // an edit answered true (an inline message)
	}
	return m.MessageID, nil
}

// keyboard renders buttons as an inline keyboard, one per row; nil when
// there are none. A command button carries its action's id (see
// callbackPrefix); one without is left out.
func (a *Adapter) keyboard(buttons []bot.Button) *tgbotapi.InlineKeyboardMarkup {
	var rows [][]tgbotapi.InlineKeyboardButton
	for _, b := range buttons {
		switch {
		case b.URL != "":
			rows = append(rows, tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonURL(b.Label, b.URL)))
		case b.Action != "":
			rows = append(rows, tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData(b.Label, callbackPrefix+b.Action)))
		case b.Command != "":
			a.log.Warn("command button left out: its action was not stored", "label", b.Label)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return &tgbotapi.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// messageMethods are the Bot API methods that send or edit a message:
// each waits for its turn from the flood scheduler (flood.go).
var messageMethods = map[string]bool{
	"sendMessage": true, "sendPhoto": true, "sendMediaGroup": true, "sendDocument": true,
	"editMessageText": true, "editMessageCaption": true, "editMessageReplyMarkup": true,
}

// makeRequest calls a Bot API method through the library's generic call: a
// message in its turn under the flood limits, any other call waiting out
// the rate limits Telegram answers.
func (a *Adapter) makeRequest(ctx context.Context, method string, p tgbotapi.Params) (*tgbotapi.APIResponse, error) {
	var resp *tgbotapi.APIResponse
	call := func() (err error) {
		resp, err = a.with(ctx).MakeRequest(method, p)
		return err
	}
	if messageMethods[method] {
		chatID, _ := strconv.ParseInt(p["chat_id"], 10, 64)
		return resp, a.throttled(ctx, chatID, 1, call)
	}
	return resp, a.retry(ctx, method, call)
}

// request sends one of the library's configs that is not a message (those
// go through sendTo), waiting out rate limits.
func (a *Adapter) request(ctx context.Context, c tgbotapi.Chattable) (*tgbotapi.APIResponse, error) {
	var resp *tgbotapi.APIResponse
	err := a.retry(ctx, "request", func() (err error) {
		resp, err = a.with(ctx).Request(c)
		return err
	})
	return resp, err
}

// sendTo sends one of the library's message configs to chatID, n messages
// (the items of an album), in its turn under the flood limits.
func (a *Adapter) sendTo(ctx context.Context, chatID int64, n int, c tgbotapi.Chattable) (*tgbotapi.APIResponse, error) {
	var resp *tgbotapi.APIResponse
	err := a.throttled(ctx, chatID, n, func() (err error) {
		resp, err = a.with(ctx).Request(c)
		return err
	})
	return resp, err
}

// maxThrottled bounds the 429s one message may meet before it is given
// up; each is waited out in full, within the message's deadline.
const maxThrottled = 5

// throttled runs call, n messages to chatID, when the flood scheduler
// gives it its turn, and again after each 429 once the wait Telegram asks
// for is over, all before the message's deadline (Options.QueueWait). A
// message dropped at its deadline is errQueueDeadline (the scheduler has
// logged and counted it).
func (a *Adapter) throttled(ctx context.Context, chatID int64, n int, call func() error) error {
	deadline := time.Now().Add(a.opts.QueueWait)
	releaseSlot(ctx)
	for attempt := 1; ; attempt++ {
		err := a.turn(ctx, chatID, n, deadline, call)
		var apiErr *tgbotapi.Error
		if !errors.As(err, &apiErr) || apiErr.RetryAfter <= 0 {
			if err == nil {
				a.replied(ctx)
			}
			return err
		}
		if attempt == maxThrottled {
			return err
		}
	}
}

// turn runs call in its turn, and gives the turn back once it answered;
// a 429 pauses the chat first (refusedBy), so that the turn given back
// goes to no message of that chat before the pause.
func (a *Adapter) turn(ctx context.Context, chatID int64, n int, deadline time.Time, call func() error) (err error) {
	done, err := a.flood.take(ctx, chatID, n, deadline)
	if err != nil {
		return err
	}
	defer done()
	err = call()
	var apiErr *tgbotapi.Error
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		wait := time.Duration(apiErr.RetryAfter) * time.Second
		a.log.Warn("telegram flood limit: the Bot API asks to wait", "chat_id", chatID, "retry_after", wait)
		a.flood.refusedBy(chatID, wait)
	}
	return err
}

// retry runs call, and again after the wait a 429 asks for, up to
// maxRetries times, while ctx allows.
func (a *Adapter) retry(ctx context.Context, method string, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		var apiErr *tgbotapi.Error
		if !errors.As(err, &apiErr) || apiErr.RetryAfter <= 0 || attempt >= maxRetries {
			return err
		}
		wait := time.Duration(apiErr.RetryAfter) * time.Second
		if wait > maxRetryWait {
			return err
		}
		a.log.Warn("telegram rate limit, waiting", "method", method, "retry_after", wait, "attempt", attempt+1)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}

type receivedKey struct{}

// received is when the update being handled arrived; its first message
// sent is the reply whose delay the metric measures.
type received struct {
	at   time.Time
	once sync.Once
}

// withReceived marks ctx as handling an update that arrived at at.
func withReceived(ctx context.Context, at time.Time) context.Context {
	return context.WithValue(ctx, receivedKey{}, &received{at: at})
}

// replied reports the time from the update to its first message sent,
// once per update.
func (a *Adapter) replied(ctx context.Context) {
	r, ok := ctx.Value(receivedKey{}).(*received)
	if !ok || a.opts.Observer == nil {
		return
	}
	r.once.Do(func() { a.opts.Observer.ObserveTelegramReply(time.Since(r.at)) })
}

// unreachable reports whether err means the member's private chat cannot
// be written to: they never pressed Start, or they blocked the bot.
func unreachable(err error) bool {
	var apiErr *tgbotapi.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.Code == http.StatusForbidden ||
		(apiErr.Code == http.StatusBadRequest && strings.Contains(apiErr.Message, "chat not found"))
}

// getChatMemberStatus returns the member's status in the chat ("creator",
// "administrator", "member", ...).
func (a *Adapter) getChatMemberStatus(ctx context.Context, chatID, userID int64) (string, error) {
	m, err := a.getChatMember(ctx, chatID, userID)
	return m.Status, err
}

// getChatMember returns the member's status and rights in the chat.
// See https://core.telegram.org/bots/api#getchatmember.
func (a *Adapter) getChatMember(ctx context.Context, chatID, userID int64) (tgbotapi.ChatMember, error) {
	resp, err := a.request(ctx, tgbotapi.GetChatMemberConfig{ChatConfigWithUser: tgbotapi.ChatConfigWithUser{ChatID: chatID, UserID: userID}})
	if err != nil {
		return tgbotapi.ChatMember{}, err
	}
	var m tgbotapi.ChatMember
	if err := json.Unmarshal(resp.Result, &m); err != nil {
		return tgbotapi.ChatMember{}, err
	}
	return m, nil
}
