package telegramtest

import (
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/poapbot/poapbot/internal/filegen"
)

// CloudDownloadLimit is the largest file the cloud Bot API lets a bot
// download: getFile says "up to 20MB", taken here as 20 MiB.
// See https://core.telegram.org/bots/api#getfile.
const CloudDownloadLimit = 20 << 20

// File is a file members sent, as the fake serves it to the bot: getFile
// answers its file_path and file_size, and GET /file/bot<token>/<file_path>
// streams its content.
type File struct {
	// ID is the file_id members' messages carry.
	ID string
	// Path is the file_path getFile answers; default "files/<ID>".
	Path string
	// Size is the file's size in bytes, answered as file_size.
	Size int64
	// Open returns a fresh reader of the Size bytes for each download.
	// The fake serves it with http.ServeContent (Content-Length, ranges),
	// so a large file is never held in memory.
	Open func() io.ReadSeeker
	// Redirect, when set, is the address the download answers 302 Found
	// to instead of the content, as a Bot API behind a misbehaving proxy
	// might.
	Redirect string
}

// BytesFile returns a File of data.
func BytesFile(id string, data []byte) File {
	return File{ID: id, Size: int64(len(data)), Open: func() io.ReadSeeker { return strings.NewReader(string(data)) }}
}

// GeneratedFile returns a File of size pseudo-random bytes (see NewRandom),
// generated as they are read.
func GeneratedFile(id string, size int64, seed uint64) File {
	return File{ID: id, Size: size, Open: func() io.ReadSeeker { return NewRandom(size, seed) }}
}

// AddFile makes f available to the bot; a file with the same ID is
// replaced.
func (s *Server) AddFile(f File) {
	if f.Path == "" {
		f.Path = "files/" + f.ID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[f.ID] = f
}

// RemoveFile makes a file gone, as a file Telegram no longer keeps:
// getFile answers 400 "Bad Request: wrong file_id or the file is
// temporarily unavailable", and its path 404.
func (s *Server) RemoveFile(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, id)
}

// LimitDownloads makes getFile refuse the files over n bytes with 400
// "Bad Request: file is too big", as the cloud Bot API does past
// CloudDownloadLimit; 0 lifts the limit, which is the default (a
// self-hosted Bot API server in local mode has none).
func (s *Server) LimitDownloads(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.downloadLimit = n
}

// Downloads returns the file paths the bot downloaded (GET
// /file/bot<token>/<file_path>, answered or not), oldest first.
func (s *Server) Downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.downloads...)
}

// getFile answers getFile as the real API does.
// See https://core.telegram.org/bots/api#getfile.
func (s *Server) getFile(p map[string]string) (any, *Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[p["file_id"]]
	switch {
	case p["file_id"] == "":
		return nil, badRequest("invalid file_id")
	case !ok:
		return nil, badRequest("wrong file_id or the file is temporarily unavailable")
	case s.downloadLimit > 0 && f.Size > s.downloadLimit:
		return nil, badRequest("file is too big")
	}
	return map[string]any{"file_id": f.ID, "file_unique_id": "u-" + f.ID, "file_size": f.Size, "file_path": f.Path}, nil
}

// serveFile answers GET /file/bot<token>/<file_path>; rest is the path
// after "/file/bot".
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rest string) {
	token, path, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	s.downloads = append(s.downloads, path)
	var f File
	found := false
	for _, file := range s.files {
		if file.Path == path {
			f, found = file, true
			break
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		writeError(w, Failure{Code: http.StatusMethodNotAllowed, Description: "Method Not Allowed"})
	case token != s.Token, !found:
		writeError(w, Failure{Code: http.StatusNotFound, Description: "Not Found"})
	case f.Redirect != "":
		http.Redirect(w, r, f.Redirect, http.StatusFound)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, "", time.Time{}, f.Open())
	}
}

// NewRandom returns size bytes of deterministic pseudo-random content of
// seed (filegen.New), generated as they are read, so that a test can serve
// a 100 MB file, or a benchmark stream one, without holding it.
func NewRandom(size int64, seed uint64) io.ReadSeeker { return filegen.New(seed, size) }
