package console

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core"
)

// Files opens the files a console user attaches with media:<path>[,<path>];
// it is the console's core.MediaOpener, and tells of Moments a restart
// interrupted on the console.
type Files struct {
	c *Console
}

var (
	_ core.MediaOpener     = Files{}
	_ core.MomentAnnouncer = Files{}
)

// Media returns the console's opener of attached files.
func (c *Console) Media() Files { return Files{c: c} }

// OpenMedia opens the file at path ref (the console user's own file) with
// its size. Errors: core.ErrMediaGone when it no longer exists, else the
// file system's.
func (Files) OpenMedia(_ context.Context, ref string) (io.ReadCloser, int64, error) {
	f, err := os.Open(ref)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, core.ErrMediaGone
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, errors.Join(errors.New("not a regular file"), err)
	}
	return f, st.Size(), nil
}

// AnnounceMoment prints how a post a restart interrupted ended.
func (f Files) AnnounceMoment(_ context.Context, n core.MomentNotice) error {
	f.c.printf("%s\n", bot.PlainText(bot.MomentNoticeText(n)))
	return nil
}

// cutMedia takes the media:<path>[,<path>...] word out of a command line
// and returns the line without it and the files it names, with their
// sizes as the file system tells them (a file that cannot be read is left
// for the Moments service to refuse by name).
func cutMedia(line string) (string, []bot.Media) {
	words := strings.Fields(line)
	var media []bot.Media
	kept := words[:0]
	for _, w := range words {
		paths, ok := strings.CutPrefix(w, "media:")
		if !ok {
			kept = append(kept, w)
			continue
		}
		for p := range strings.SplitSeq(paths, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			m := bot.Media{Ref: p, Name: filepath.Base(p)}
			if st, err := os.Stat(p); err == nil {
				m.Size = st.Size()
			}
			media = append(media, m)
		}
	}
	return strings.Join(kept, " "), media
}
