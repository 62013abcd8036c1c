package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// editTimeout bounds one message sent apart from an update (a post's edit,
// a notice, a long command's reply) once its turn came, 429 waits
// included; its turn may take Options.QueueWait first.
const editTimeout = 30 * time.Second

// withPost publishes the reply's Post, when it has one, in its chat (the
// command's chat when Post.Channel is empty), before the reply is sent, so
// that the moderator's answer says whether it worked.
func (a *Adapter) withPost(ctx context.Context, o origin, r bot.Reply) bot.Reply {
	if r.Post == nil {
		return r
	}
	p := *r.Post
	r.Post = nil
	if err := a.publish(ctx, o, p); err != nil {
		a.log.Warn("telegram post not published", "chat_id", o.chat.ID, "subject", p.Subject, "err", err)
		r.Text = strings.TrimSpace(r.Text + "\n\n" + words(err))
	}
	return r
}

// publish sends the post and reports where with Bot.Posted. A failure to
// record it is only logged: the post is out, it just will not be edited.
func (a *Adapter) publish(ctx context.Context, o origin, p bot.Post) error {
	chatID := o.chat.ID
	if p.Channel != "" {
		id, err := strconv.ParseInt(strings.TrimSpace(p.Channel), 10, 64)
		if err != nil {
			return errBadChat
		}
		chatID = id
	}
	ref := bot.PostRef{Platform: core.Telegram, Place: strconv.FormatInt(o.chat.ID, 10), Channel: strconv.FormatInt(chatID, 10)}
	ref, err := a.sendPost(ctx, ref, p)
	if err != nil {
		return err
	}
	if err := a.bot.Posted(context.WithoutCancel(ctx), ref, p); err != nil {
		a.log.Warn("published post not recorded; it will not be updated", "chat_id", chatID, "message_id", ref.Message, "subject", p.Subject, "err", err)
	}
	return nil
}

// Publish sends the post to ref's chat outside any update (a summary the
// bot posts by itself), in its turn under the flood limits as a notice,
// and returns where it is. It returns errBadChat for a channel that is
// not a chat id, or the Bot API's error.
func (a *Adapter) Publish(ctx context.Context, ref bot.PostRef, p bot.Post) (bot.PostRef, error) {
	ctx, cancel := context.WithTimeout(withPriority(ctx, prioNotice), a.opts.QueueWait+editTimeout)
	defer cancel()
	ref.Channel = strings.TrimSpace(ref.Channel)
	return a.sendPost(ctx, ref, p)
}

// sendPost sends the post, rendered, to ref's chat and returns ref with
// the message's id: the one way a post goes out, for a command's reply
// (publish) and for the bot's own (Publish).
func (a *Adapter) sendPost(ctx context.Context, ref bot.PostRef, p bot.Post) (bot.PostRef, error) {
	params, method, err := a.postParams(ref, p)
	if err != nil {
		return bot.PostRef{}, err
	}
	resp, err := a.makeRequest(ctx, method, params)
	if err != nil {
		return bot.PostRef{}, fmt.Errorf("telegram: publish post: %w", err)
	}
	var m tgbotapi.Message
	if err := json.Unmarshal(resp.Result, &m); err != nil {
		return bot.PostRef{}, fmt.Errorf("telegram: publish post: %w", err)
	}
	ref.Message = strconv.Itoa(m.MessageID)
	return ref, nil
}

// EditPost replaces a published post's text (editMessageText) or, for a
// post with an image, its caption (editMessageCaption), and its inline
// keyboard. The edit waits for its turn under the flood limits apart
// (postEdits), so that a busy group holds up no other post; while it
// waits, a newer edit of the same post takes its place, and only the
// newest content is sent. It returns an error only for a post it cannot
// render; the Bot API's errors are logged.
// See https://core.telegram.org/bots/api#editmessagetext.
func (a *Adapter) EditPost(ctx context.Context, ref bot.PostRef, p bot.Post) error {
	params, method, err := a.postParams(ref, p)
	if err != nil {
		return err
	}
	params["message_id"] = ref.Message
	delete(params, "photo")
	method = map[string]string{"sendPhoto": "editMessageCaption", "sendMessage": "editMessageText"}[method]
	chatID, _ := strconv.ParseInt(ref.Channel, 10, 64)
	key := ref.Channel + "/" + ref.Message
	a.edits.mu.Lock()
	defer a.edits.mu.Unlock()
	if e := a.edits.m[key]; e != nil {
		e.params, e.method, e.fresh = params, method, true
		return nil
	}
	e := &postEdit{chatID: chatID, params: params, method: method, fresh: true}
	if a.edits.m == nil {
		a.edits.m = map[string]*postEdit{}
	}
	a.edits.m[key] = e
	// Apart from the caller: its values (an update's slot, its reply
	// time) are not the edit's.
	go a.runEdit(context.Background(), key, e)
	return nil
}

// postEdits are the edits of posts waiting for their turn, by chat and
// message.
type postEdits struct {
	mu sync.Mutex
	m  map[string]*postEdit
}

// postEdit is the newest content of one post to edit; fresh while it is
// not sent yet.
type postEdit struct {
	chatID int64
	params tgbotapi.Params
	method string
	fresh  bool
}

// runEdit sends the post's newest content when its turn comes, and again
// as long as newer content arrived meanwhile.
func (a *Adapter) runEdit(ctx context.Context, key string, e *postEdit) {
	defer a.recoverPanic("post edit", key)
	for {
		ctx, cancel := context.WithTimeout(withPriority(ctx, prioEdit), a.opts.QueueWait+editTimeout)
		err := a.throttled(ctx, e.chatID, 1, func() error {
			a.edits.mu.Lock()
			params, method := e.params, e.method
			e.fresh = false
			a.edits.mu.Unlock()
			_, err := a.with(ctx).MakeRequest(method, params)
			return err
		})
		cancel()
		var apiErr *tgbotapi.Error
		if err != nil && !(errors.As(err, &apiErr) && strings.Contains(apiErr.Message, "message is not modified")) {
			a.log.Warn("telegram post not edited", "chat_id", e.chatID, "post", key, "err", err)
		}
		a.edits.mu.Lock()
		if !e.fresh {
			delete(a.edits.m, key)
			a.edits.mu.Unlock()
			return
		}
		a.edits.mu.Unlock()
	}
}

// postParams renders a post for ref's chat: a photo with the text as its
// caption when it has an image and the text fits in a caption, otherwise a
// message. The same post always renders the same way, so that its edits
// use the matching method.
func (a *Adapter) postParams(ref bot.PostRef, p bot.Post) (tgbotapi.Params, string, error) {
	chatID, err := strconv.ParseInt(ref.Channel, 10, 64)
	if err != nil {
		return nil, "", errBadChat
	}
	text := renderHTML(chunks(p.Text)[0])
	params := tgbotapi.Params{"chat_id": ref.Channel, "parse_mode": tgbotapi.ModeHTML}
	if err := params.AddInterface("reply_markup", a.postKeyboard(chatID, p.Buttons)); err != nil {
		return nil, "", err
	}
	if p.Image != "" && utf16Len(text) <= maxCaption {
		params["photo"], params["caption"] = p.Image, text
		return params, "sendPhoto", nil
	}
	params["text"] = text
	params["link_preview_options"] = `{"is_disabled":true}`
	return params, "sendMessage", nil
}

// postKeyboard renders a post's buttons. In a group, a command button must
// not run there (its personal answer belongs in the private chat, and a
// press in the group would tell the group who claimed): it becomes a URL
// button to the deep link that opens the presser's private chat and runs
// its action there for the place it was made in (see linkPrefix). In a
// private chat it stays a callback button.
func (a *Adapter) postKeyboard(chatID int64, buttons []bot.Button) *tgbotapi.InlineKeyboardMarkup {
	if chatID > 0 {
		return a.keyboard(buttons)
	}
	var rows [][]tgbotapi.InlineKeyboardButton
	for _, b := range buttons {
		url := b.URL
		if url == "" && b.Action != "" {
			url = "https://t.me/" + a.username + "?start=" + linkPrefix + b.Action
		}
		if url == "" && b.Command != "" {
			a.log.Warn("post button left out: its action was not stored", "label", b.Label)
		}
		if url != "" {
			rows = append(rows, tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonURL(b.Label, url)))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return &tgbotapi.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// Errors of posts and deep-linked commands; words turns them into text.
var (
	errBadChat     = errors.New("telegram: post channel is not a chat id")
	errNotInGroup  = errors.New("telegram: not a member of the group")
	errMemberCheck = errors.New("telegram: group membership unknown")
)

// words is what a member or moderator reads for the adapter's own errors:
// a post that could not be published, a deep link refused, a /claim in the
// private chat that found no single group, a /drop add left in a group.
func words(err error) string {
	var apiErr *tgbotapi.Error
	switch {
	case errors.Is(err, errNotDeleted):
		return "⚠️ I could not delete your message in the group, and it may show a drop's edit code: delete it yourself now. " +
			"So that I can do it next time, make me an administrator of the group with the right to delete messages."
	case errors.Is(err, errNotAPerson):
		return "I answer people, not channels: post as yourself (not on behalf of a channel) to use my commands."
	case errors.Is(err, errNotInGroup):
		return "This button is for the members of the group it was posted in. Join that group, then press the button again."
	case errors.Is(err, errMemberCheck):
		return "I could not check that you are in the group this button belongs to. Please press the button again in a minute."
	case errors.Is(err, errLongBusy):
		return "I am busy with many uploads right now. Please send it again in a few minutes."
	case errors.Is(err, errBadChat):
		return "I could not post the claim message: the channel must be a Telegram chat id, such as -1001234567890."
	case errors.As(err, &apiErr) && (apiErr.Code == http.StatusForbidden || strings.Contains(apiErr.Message, "not enough rights") ||
		strings.Contains(apiErr.Message, "chat not found")):
		return "I could not post the claim message: I am not allowed to post in that chat. " +
			"Add me to it and let me send messages and photos, then run /distribute again."
	}
	return "I could not post the claim message just now. Please run /distribute again in a minute."
}
