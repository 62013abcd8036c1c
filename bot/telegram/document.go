package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
)

// Bot API limits on documents.
const (
	// maxCaption is the caption limit, in UTF-16 code units after entity
	// parsing; captions are measured on their HTML, never shorter.
	maxCaption = 1024
	// maxDocument is the largest file a bot may send: 50 MB.
	maxDocument = 50_000_000
)

// sendWithFile sends a reply with a file: one document whose caption is
// the text and whose keyboard is the buttons when the text fits in a
// caption; otherwise the text as messages first, then the document alone.
// A file over the Bot API's limit is not sent; the text says so instead.
func (a *Adapter) sendWithFile(ctx context.Context, chatID int64, r bot.Reply) error {
	f := r.File
	r.File = nil
	if len(f.Data) > maxDocument {
		a.log.Warn("file too large for Telegram, not sent", "file", f.Name, "bytes", len(f.Data))
		r.Text = strings.TrimSpace(r.Text + fmt.Sprintf("\n\nThe file %s is %.1f MB, more than the 50 MB Telegram lets a bot send, so it is not attached.",
			path.Base(f.Name), float64(len(f.Data))/1e6))
		return a.sendReply(ctx, chatID, r)
	}
	doc := tgbotapi.NewDocument(chatID, tgbotapi.FileBytes{Name: path.Base(f.Name), Bytes: f.Data})
	if caption := renderHTML(r.Text); strings.TrimSpace(r.Text) != "" && utf16Len(caption) <= maxCaption {
		doc.Caption, doc.ParseMode = caption, tgbotapi.ModeHTML
		if kb := a.keyboard(r.Buttons); kb != nil {
			doc.ReplyMarkup = kb
		}
	} else if err := a.sendReply(ctx, chatID, r); err != nil {
		return err
	}
	return a.sendDocument(ctx, doc, r.Text)
}

// sendDocument uploads a document (multipart). Should Telegram refuse the
// caption's HTML, it sends the caption as plain text instead, as
// sendMessage does. See https://core.telegram.org/bots/api#senddocument.
func (a *Adapter) sendDocument(ctx context.Context, doc tgbotapi.DocumentConfig, md string) error {
	err := a.upload(ctx, doc)
	var apiErr *tgbotapi.Error
	if doc.Caption != "" && errors.As(err, &apiErr) && apiErr.Code == http.StatusBadRequest && strings.Contains(apiErr.Message, "can't parse entities") {
		a.log.Warn("telegram refused the HTML of a caption, sending plain text", "err", err)
		doc.Caption, doc.ParseMode = bot.PlainText(md), ""
		err = a.upload(ctx, doc)
	}
	return err
}

// upload sends a document. The library's multipart path (v5.5.1) leaves
// the error code out of its *tgbotapi.Error; upload fills it in from the
// response, so that unreachable and the fallback above can read it.
func (a *Adapter) upload(ctx context.Context, doc tgbotapi.DocumentConfig) error {
	resp, err := a.sendTo(ctx, doc.ChatID, 1, doc)
	var apiErr *tgbotapi.Error
	if errors.As(err, &apiErr) && apiErr.Code == 0 && resp != nil {
		apiErr.Code = resp.ErrorCode
	}
	return err
}
