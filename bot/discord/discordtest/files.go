package discordtest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// attachmentLife is how long an attachment URL stays valid: Discord's
// signed CDN links expire after about a day (their ex parameter).
const attachmentLife = 24 * time.Hour

// file is a file members can attach, served at its attachment URLs.
type file struct {
	contentType string
	size        int64
	open        func() io.ReadSeeker
}

// fileState is what the fake serves as attachments; guarded by Server.mu.
type fileState struct {
	byName   map[string]*file
	attached map[string]string // attachment id -> file name
}

// AddFile registers a file with that content under name: a typed line
// that attaches name ("/moment 1 hi media:photo.png") resolves to it, with
// its content type and size, and its attachment URL serves data. It
// replaces a file of the same name.
func (s *Server) AddFile(name, contentType string, data []byte) {
	s.AddFileFunc(name, contentType, int64(len(data)), func() io.ReadSeeker { return bytes.NewReader(data) })
}

// AddFileFunc registers a file of size bytes whose content open returns,
// once per request, so that a large file is served without being held in
// memory (see PseudoRandom). The content must be size bytes long.
func (s *Server) AddFileFunc(name, contentType string, size int64, open func() io.ReadSeeker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files.byName[name] = &file{contentType: contentType, size: size, open: open}
}

// RemoveFile removes the file: its attachment URLs answer 404, as
// Discord's CDN does once a message and its attachments were deleted.
func (s *Server) RemoveFile(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files.byName, name)
}

// Attachment returns a new resolved attachment of the registered file, as
// a typed line gets, for tests that build interaction data by hand or open
// attachments directly; ok is false when no file has that name.
func (s *Server) Attachment(name string) (a *discordgo.MessageAttachment, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files.byName[name]
	if f == nil {
		return nil, false
	}
	return s.attachmentLocked(name, f), true
}

// attachmentLocked mints an attachment of the file, with a signed URL as
// Discord's carry (ex, is and hm query parameters); s.mu must be held.
func (s *Server) attachmentLocked(name string, f *file) *discordgo.MessageAttachment {
	id := s.newIDLocked()
	s.files.attached[id] = name
	p := "/attachments/" + id + "/" + url.PathEscape(name)
	is := s.now().Unix()
	ex := s.now().Add(attachmentLife).Unix()
	q := url.Values{
		"ex": {strconv.FormatInt(ex, 16)},
		"is": {strconv.FormatInt(is, 16)},
		"hm": {s.sign(p, ex, is)},
	}
	u := s.URL() + p + "?" + q.Encode()
	return &discordgo.MessageAttachment{ID: id, Filename: name, ContentType: f.contentType, Size: int(f.size), URL: u, ProxyURL: u}
}

// attachment adds a resolved attachment named name and returns its id: of
// the registered file of that name, or else an attachment with a content
// type guessed from the extension, no size and an unsigned URL that
// answers 404.
func (s *Server) attachment(name string, res *discordgo.ApplicationCommandInteractionDataResolved) string {
	if res.Attachments == nil {
		res.Attachments = map[string]*discordgo.MessageAttachment{}
	}
	s.mu.Lock()
	f := s.files.byName[name]
	if f != nil {
		a := s.attachmentLocked(name, f)
		s.mu.Unlock()
		res.Attachments[a.ID] = a
		return a.ID
	}
	s.mu.Unlock()
	id := s.newID()
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	res.Attachments[id] = &discordgo.MessageAttachment{
		ID: id, Filename: name, ContentType: ct,
		URL: s.URL() + "/attachments/" + id + "/" + name, ProxyURL: s.URL() + "/attachments/" + id + "/" + name,
	}
	return id
}

// sign returns the hm parameter of an attachment URL: a MAC of its path
// and times, so that a URL whose query was dropped or changed is refused.
func (s *Server) sign(p string, ex, is int64) string {
	m := hmac.New(sha256.New, []byte("discordtest:"+s.opts.Token))
	_, _ = io.WriteString(m, p+"|"+strconv.FormatInt(ex, 16)+"|"+strconv.FormatInt(is, 16))
	return hex.EncodeToString(m.Sum(nil))
}

// fileRoutes registers the attachment route: on Discord the CDN's
// (cdn.discordapp.com), here the fake's own origin.
func (s *Server) fileRoutes() {
	s.mux.HandleFunc("GET /attachments/{id}/{file}", s.serveAttachment)
}

// serveAttachment answers GET /attachments/{id}/{file} with the file's
// content (http.ServeContent: ranges, HEAD), or 404 as Discord's CDN
// answers for a deleted file, a missing or wrong signature, or an expired
// link.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	name := s.files.attached[r.PathValue("id")]
	f := s.files.byName[name]
	ok := f != nil && name == r.PathValue("file") && s.signed(r)
	s.mu.Unlock()
	if !ok {
		http.Error(w, "This content is no longer available.", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", f.contentType)
	http.ServeContent(w, r, name, time.Time{}, f.open())
}

// signed reports whether the request's query signs its path and has not
// expired; s.mu must be held.
func (s *Server) signed(r *http.Request) bool {
	q := r.URL.Query()
	ex, err1 := strconv.ParseInt(q.Get("ex"), 16, 64)
	is, err2 := strconv.ParseInt(q.Get("is"), 16, 64)
	if err1 != nil || err2 != nil || s.now().Unix() > ex {
		return false
	}
	want := s.sign(r.URL.EscapedPath(), ex, is)
	return hmac.Equal([]byte(q.Get("hm")), []byte(want))
}
