package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

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

// MediaOpener returns the console's opener of attached files, which also
// announces resumed Moments.
func (c *Console) MediaOpener() core.MediaOpener { return Files{c: c} }

// OpenMedia opens the file at path ref (the console user's own file) with
// its size. It never blocks: a path that is not a regular file is refused
// before it is opened, and it is opened without blocking (a named pipe put
// in its place meanwhile would otherwise wait for a writer) and checked
// again once open. Errors: core.ErrMediaGone when it no longer exists,
// core.ErrMediaNotFile for a directory, a device, a named pipe or a
// socket, else the file system's.
func (Files) OpenMedia(_ context.Context, ref string) (io.ReadCloser, int64, error) {
	if st, err := os.Stat(ref); err == nil && !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is a %s: %w", ref, fileKind(st.Mode()), core.ErrMediaNotFile)
	}
	return openRegular(ref)
}

// openRegular opens ref without blocking and returns it with its size
// when it is a regular file. Errors: those of OpenMedia.
func openRegular(ref string) (io.ReadCloser, int64, error) {
	f, err := os.OpenFile(ref, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, core.ErrMediaGone
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is a %s: %w", ref, fileKind(st.Mode()), core.ErrMediaNotFile)
	}
	return f, st.Size(), nil
}

// fileKind names what a path that is not a regular file is.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "folder"
	case mode&fs.ModeNamedPipe != 0:
		return "named pipe"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// notFile is the reason a path that is not a regular file is refused,
// said when the line is read, before anything is opened or asked.
func notFile(mode fs.FileMode) string {
	return "not a file but a " + fileKind(mode) + ", so I can't post it. Give the path of a photo or a video."
}

// AnnounceMoment prints how a post a restart interrupted ended.
func (f Files) AnnounceMoment(_ context.Context, n core.MomentNotice) error {
	f.c.printf("%s\n", bot.PlainText(bot.MomentNoticeText(n)))
	return nil
}

// cutMedia takes the media:<path>[,<path>...] word out of a command line
// and returns the line without it and the files it names, with their
// sizes as the file system tells them (a file that cannot be read is left
// for the Moments service to refuse by name). A path that is not a regular
// file (a folder, a device, a named pipe, a socket) is marked unavailable,
// so the post is refused before anything is opened.
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
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				m.Size = st.Size()
			} else if err == nil {
				m.Unavailable = notFile(st.Mode())
			}
			media = append(media, m)
		}
	}
	return strings.Join(kept, " "), media
}
