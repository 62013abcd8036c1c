package telegram

import (
	"context"
	"strings"
	"unicode/utf16"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// sendPictures sends a reply's pictures to chatID: one with sendPhoto,
// two to bot.MaxPictures as an album with sendMediaGroup, each captioned
// with its plain-text caption. Telegram fetches the images from their
// URLs itself, and fails the whole call (400) when it cannot fetch one.
// See https://core.telegram.org/bots/api#sendmediagroup and
// https://core.telegram.org/bots/api#sendphoto.
func (a *Adapter) sendPictures(ctx context.Context, chatID int64, pics []bot.Picture) error {
	var photos []tgbotapi.InputMediaPhoto
	for _, p := range pics {
		if strings.TrimSpace(p.URL) == "" || len(photos) == bot.MaxPictures {
			continue
		}
		photo := tgbotapi.NewInputMediaPhoto(tgbotapi.FileURL(p.URL))
		photo.Caption = cutCaption(strings.TrimSpace(p.Caption))
		photos = append(photos, photo)
	}
	switch len(photos) {
	case 0:
		return nil
	case 1:
		// A media group needs at least two items.
		photo := tgbotapi.NewPhoto(chatID, photos[0].Media)
		photo.Caption = photos[0].Caption
		_, err := a.sendTo(ctx, chatID, 1, photo)
		return err
	}
	media := make([]any, len(photos))
	for i, p := range photos {
		media[i] = p
	}
	_, err := a.sendTo(ctx, chatID, len(media), tgbotapi.NewMediaGroup(chatID, media))
	return err
}

// cutCaption cuts a plain caption to the Bot API's limit, maxCaption
// UTF-16 code units, ending a cut one with "…".
func cutCaption(s string) string {
	if utf16Len(s) <= maxCaption {
		return s
	}
	n := 0
	for i, r := range s {
		if n += utf16.RuneLen(r); n > maxCaption-1 {
			return s[:i] + "…"
		}
	}
	return s
}
