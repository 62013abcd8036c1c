package telegram

import (
	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// CloudDownloadLimit is the largest file the cloud Bot API
// (DefaultAPIURL) lets a bot download: getFile says "up to 20MB", taken
// here as 20 MiB. A self-hosted Bot API server in local mode has no such
// limit. See https://core.telegram.org/bots/api#getfile and
// https://core.telegram.org/bots/api#using-a-local-bot-api-server.
const CloudDownloadLimit = 20 << 20

// TooBigForBots is bot.Media.Unavailable of a file over
// CloudDownloadLimit on the cloud Bot API, and the text of ErrFileTooBig.
const TooBigForBots = "This file is over the 20 MB that Telegram lets bots download. " +
	"Send a smaller one; to take larger files, the bot's operator can run a self-hosted Telegram Bot API server and point TELEGRAM_API_URL at it."

// messageMedia returns the file a message carries, as the bot reads it:
// its photo (the largest size), video, animation or document; ok is false
// when it carries none of those. What Telegram declares (name, type,
// size) is passed on as a claim.
func (a *Adapter) messageMedia(m *tgbotapi.Message) (bot.Media, bool) {
	var md bot.Media
	switch {
	case len(m.Photo) > 0:
		p := largest(m.Photo)
		md = bot.Media{Ref: p.FileID, Size: int64(p.FileSize)}
	case m.Video != nil:
		md = bot.Media{Ref: m.Video.FileID, Name: m.Video.FileName, Type: m.Video.MimeType, Size: int64(m.Video.FileSize)}
	case m.Animation != nil:
		// Before Document: Telegram sends an animation as both.
		md = bot.Media{Ref: m.Animation.FileID, Name: m.Animation.FileName, Type: m.Animation.MimeType, Size: int64(m.Animation.FileSize)}
	case m.Document != nil:
		md = bot.Media{Ref: m.Document.FileID, Name: m.Document.FileName, Type: m.Document.MimeType, Size: int64(m.Document.FileSize)}
	default:
		return bot.Media{}, false
	}
	if md.Ref == "" {
		return bot.Media{}, false
	}
	if a.opts.APIURL == DefaultAPIURL && md.Size > CloudDownloadLimit {
		md.Unavailable = TooBigForBots
	}
	return md, true
}

// largest returns the photo size with the most pixels, the largest file
// among equals. Telegram lists them smallest first, but says nothing of
// that order.
func largest(sizes []tgbotapi.PhotoSize) tgbotapi.PhotoSize {
	best := sizes[0]
	for _, p := range sizes[1:] {
		area, bestArea := p.Width*p.Height, best.Width*best.Height
		if area > bestArea || (area == bestArea && p.FileSize > best.FileSize) {
			best = p
		}
	}
	return best
}
