package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// Notify sends text, rendered like a reply's, as a new message in ref's
// chat (sendMessage): the notices of Bot.Notices beside a published post,
// last in line under the flood limits. It returns errBadChat when
// ref.Channel is not a chat id, or the Bot API's error.
// See https://core.telegram.org/bots/api#sendmessage.
func (a *Adapter) Notify(ctx context.Context, ref bot.PostRef, text string) error {
	if _, err := strconv.ParseInt(strings.TrimSpace(ref.Channel), 10, 64); err != nil {
		return errBadChat
	}
	ctx, cancel := context.WithTimeout(withPriority(ctx, prioNotice), a.opts.QueueWait+editTimeout)
	defer cancel()
	part := chunks(text)[0]
	p := tgbotapi.Params{
		"chat_id": strings.TrimSpace(ref.Channel), "text": renderHTML(part), "parse_mode": tgbotapi.ModeHTML,
		"link_preview_options": `{"is_disabled":true}`,
	}
	if _, err := a.textRequest(ctx, "sendMessage", p, part); err != nil {
		return fmt.Errorf("telegram: notify in %s: %w", ref.Channel, err)
	}
	return nil
}
