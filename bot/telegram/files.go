package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// ErrFileTooBig means Telegram will not hand a file to the bot for its
// size: the cloud Bot API lets bots download at most 20 MB
// (CloudDownloadLimit); a self-hosted Bot API server lifts the limit.
// It matches core.ErrMediaTooLargeToFetch.
var ErrFileTooBig = fmt.Errorf("telegram: file over the 20 MB the cloud Bot API lets bots download "+
	"(a self-hosted Bot API server at TELEGRAM_API_URL lifts the limit): %w", core.ErrMediaTooLargeToFetch)

// fileHeaderTimeout bounds getFile, and the wait for a download's
// response headers; the content then streams for as long as the caller's
// context allows.
const fileHeaderTimeout = 30 * time.Second

// MediaOpener returns the opener of the files members attach, by their
// file_id (bot.Media.Ref), for the Moments service: Files. See
// Files.OpenMedia.
func (a *Adapter) MediaOpener() core.MediaOpener { return Files{a: a} }

// Files opens the files of Telegram messages for the bot; Adapter.MediaOpener
// returns one, the zero value is not usable.
type Files struct{ a *Adapter }

var _ core.MediaOpener = Files{}

// OpenMedia asks getFile for the file's path, then downloads it from
// TELEGRAM_API_URL's /file/bot<token>/<file_path> (never from the
// library's hard-coded api.telegram.org), and returns the response body,
// streaming, with the file's size: Content-Length, else getFile's
// file_size, else -1. The download follows redirects only on
// TELEGRAM_API_URL's origin (a redirect to another host is refused before
// any request to it). Only getFile and the response headers are bounded
// (fileHeaderTimeout); the body reads for as long as ctx allows. A self-
// hosted Bot API server in local mode answers an absolute file_path on its
// own disk: serve its working directory at /file/bot<token>/ (as the
// usual nginx set-up beside it does) for the download to work.
//
// Errors: core.ErrMediaGone when Telegram no longer has the file (a
// wrong file_id, a 404 download); ErrFileTooBig when the cloud Bot API
// refuses it for its size; otherwise Telegram failing. No error carries
// the token.
// See https://core.telegram.org/bots/api#getfile.
func (f Files) OpenMedia(ctx context.Context, ref string) (io.ReadCloser, int64, error) {
	file, err := f.a.getFile(ctx, ref)
	if err != nil {
		return nil, 0, err
	}
	return f.a.download(ctx, file)
}

// getFile returns the file's path and size.
func (a *Adapter) getFile(ctx context.Context, id string) (tgbotapi.File, error) {
	ctx, cancel := context.WithTimeout(ctx, fileHeaderTimeout)
	defer cancel()
	resp, err := a.makeRequest(ctx, "getFile", tgbotapi.Params{"file_id": id})
	var apiErr *tgbotapi.Error
	switch {
	case errors.As(err, &apiErr) && strings.Contains(apiErr.Message, "file is too big"):
		return tgbotapi.File{}, fmt.Errorf("telegram: open file %s: %w", id, ErrFileTooBig)
	case errors.As(err, &apiErr) && apiErr.Code == http.StatusBadRequest && fileGone(apiErr.Message):
		return tgbotapi.File{}, fmt.Errorf("telegram: open file %s (%s): %w", id, apiErr.Message, core.ErrMediaGone)
	case err != nil:
		return tgbotapi.File{}, fmt.Errorf("telegram: open file %s: getFile: %w", id, err)
	}
	var file tgbotapi.File
	if err := json.Unmarshal(resp.Result, &file); err != nil || file.FilePath == "" {
		return tgbotapi.File{}, fmt.Errorf("telegram: open file %s: getFile answered no file path", id)
	}
	return file, nil
}

// fileGone reports whether getFile's 400 says the file does not exist
// (any more): "wrong file_id or the file is temporarily unavailable",
// "invalid file_id", "file not found".
func fileGone(msg string) bool {
	for _, s := range []string{"wrong file_id", "invalid file_id", "file not found"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// download GETs a file and returns its body, which owns the request's
// context until closed.
func (a *Adapter) download(ctx context.Context, file tgbotapi.File) (io.ReadCloser, int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	// The token is in the address: no error below may print it.
	u := a.opts.APIURL + "/file/bot" + a.opts.Token.Reveal() + "/" + escapePath(file.FilePath)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, 0, fmt.Errorf("telegram: open file %s: file path %q makes no address", file.FileID, file.FilePath)
	}
	headers := time.AfterFunc(fileHeaderTimeout, cancel)
	resp, err := a.fileClient(ctx).Do(req)
	late := !headers.Stop()
	switch {
	case late:
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		return nil, 0, fmt.Errorf("telegram: open file %s: no answer within %s", file.FileID, fileHeaderTimeout)
	case err != nil:
		cancel()
		return nil, 0, fmt.Errorf("telegram: open file %s: %w", file.FileID, err)
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		cancel()
		if resp.StatusCode == http.StatusNotFound {
			return nil, 0, fmt.Errorf("telegram: open file %s: download answered 404: %w", file.FileID, core.ErrMediaGone)
		}
		return nil, 0, fmt.Errorf("telegram: open file %s: download answered %s", file.FileID, resp.Status)
	}
	size := resp.ContentLength
	if size < 0 && file.FileSize > 0 {
		size = int64(file.FileSize)
	}
	return &fileBody{ReadCloser: resp.Body, cancel: cancel}, size, nil
}

// maxFileRedirects is how many redirects a download may take, each on the
// Bot API's own origin.
const maxFileRedirects = 5

// errRedirectedAway is why a download redirected off the Bot API's origin
// failed.
var errRedirectedAway = errors.New("redirected off the Bot API host: refused")

// fileClient is the adapter's HTTP client for downloads, bound to ctx, that
// follows redirects only on TELEGRAM_API_URL's origin (scheme and host), as
// Discord's opener stays on Discord's CDN: the download's address carries
// the token, which net/http would send on in the Referer header, and a
// redirect elsewhere would make the bot fetch, as a Moment, whatever
// another host serves.
func (a *Adapter) fileClient(ctx context.Context) *ctxClient {
	c := a.client(ctx)
	dl := *c.c
	origin, err := url.Parse(a.opts.APIURL)
	dl.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) > maxFileRedirects:
			return errors.New("too many redirects")
		case err != nil || req.URL.Scheme != origin.Scheme || !strings.EqualFold(req.URL.Host, origin.Host) || req.URL.User != nil:
			return errRedirectedAway
		}
		return nil
	}
	c.c = &dl
	return c
}

// escapePath escapes each segment of a file path, keeping its slashes (an
// absolute path from a local-mode server stays absolute).
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// fileBody is a download's body; closing it releases its request.
type fileBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

// Close closes the body and ends its request.
func (b *fileBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

var _ core.MomentAnnouncer = Files{}

// AnnounceMoment tells the chat a post was made in how it ended after a
// restart interrupted it: the progress reply of the process that stopped
// is never edited again.
func (f Files) AnnounceMoment(ctx context.Context, n core.MomentNotice) error {
	channel := n.Record.Channel
	if strings.TrimSpace(channel) == "" {
		channel = n.Record.Place
	}
	chatID, err := parseChatID(channel)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, gateTimeout)
	defer cancel()
	if err := f.a.sendReply(ctx, chatID, bot.Reply{Text: bot.MomentNoticeText(n)}); err != nil {
		return fmt.Errorf("telegram: moment notice to %d: %w", chatID, err)
	}
	return nil
}
