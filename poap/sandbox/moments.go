package sandbox

import (
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/poapbot/poapbot/poap/wire"
)

// Moment is a Moment the Server published.
type Moment struct {
	ID string
	// Author is the creator's 0x address in lower case.
	Author      string
	CreatedOn   time.Time
	DropIDs     []int64
	Description string
	MediaKeys   []string
	UserTags    []wire.UserTag
}

// momentStore holds media and Moments, guarded by its own mutex.
type momentStore struct {
	secret []byte // signs upload addresses; never changes
	parent string // where dir is made (Options.MediaDir); never changes

	mu      sync.Mutex
	delay   time.Duration
	files   map[string]*mediaRecord // by key
	moments []Moment
	dir     string // the uploads' bytes, made on the first upload
	closed  bool
}

func newMomentStore(delay time.Duration, parent string) *momentStore {
	secret := make([]byte, 32)
	rand.Read(secret)
	return &momentStore{secret: secret, parent: parent, delay: delay, files: map[string]*mediaRecord{}}
}

// momentsRoutes registers Moments and the Moments query service.
func (s *Server) momentsRoutes() {
	s.moments = newMomentStore(s.opts.MediaDelay, s.opts.MediaDir)
	s.handle(wire.OpMediaUploadURL, "POST /moments/media-upload-url", bearerOnly, s.mediaUploadURL)
	s.handle(wire.OpMediaUpload, "PUT /uploads/{key}", open, s.uploadMedia)
	s.handle(wire.OpMediaStatus, "GET /media/{key}", open, s.mediaStatus)
	s.handle(wire.OpCreateMoment, "POST /moments", bearerOnly, s.createMoment)
	s.handle(wire.OpMomentsQuery, "POST /v1/graphql", open, s.graphQL)
	s.mediaGatewayRoutes()
}

// createMoment answers POST /moments: 400 for a bad author, description or
// user tag, or no drop; 404 for an unknown drop; 409 when a media key is
// unknown, not processed, invalid or attached already; 201 with the Moment
// otherwise (production's success status is not documented).
func (s *Server) createMoment(w http.ResponseWriter, r *http.Request) {
	var in wire.MomentInput
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "body must be a JSON object")
		return
	}
	if status, msg := s.checkMoment(in); status != 0 {
		writeError(w, status, msg)
		return
	}
	m := Moment{
		ID: momentUUID(), Author: strings.ToLower(in.Author), CreatedOn: s.now().UTC(),
		DropIDs: in.DropIDs, Description: in.Description, UserTags: in.UserTags,
	}
	if msg := s.moments.attach(m, in.MediaKeys, s.now()); msg != "" {
		writeError(w, http.StatusConflict, msg)
		return
	}
	writeJSON(w, http.StatusCreated, wire.Moment{
		ID: m.ID, Author: m.Author, CreatedOn: m.CreatedOn.Format("2006-01-02T15:04:05.000Z07:00"),
		DropIDs: m.DropIDs, Description: m.Description,
	})
}

// checkMoment applies the creation rules that do not involve media and
// returns the error status and message, or 0.
func (s *Server) checkMoment(in wire.MomentInput) (int, string) {
	switch {
	case !isHexAddress(strings.ToLower(in.Author)):
		return http.StatusBadRequest, "body/author must be an Ethereum address"
	case utf8.RuneCountInString(in.Description) > wire.MaxMomentDescription:
		return http.StatusBadRequest, fmt.Sprintf("body/description must NOT have more than %d characters", wire.MaxMomentDescription)
	case len(in.DropIDs) == 0:
		return http.StatusBadRequest, "body/dropIds must NOT have fewer than 1 items"
	}
	for _, tag := range in.UserTags {
		if tag.Address == "" && tag.ENS == "" {
			return http.StatusBadRequest, "body/userTags items must have an address or an ens"
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range in.DropIDs {
		if _, ok := s.drops[id]; !ok {
			return http.StatusNotFound, fmt.Sprintf("Drop %d not found", id)
		}
	}
	return 0, ""
}

// issue registers a new media key and returns its upload signature.
func (st *momentStore) issue(key string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.files[key] = &mediaRecord{Media: Media{Key: key}}
	return signUpload(st.secret, key)
}

// signed reports whether sig is the upload signature of key.
func (st *momentStore) signed(key, sig string) bool {
	return hmac.Equal([]byte(sig), []byte(signUpload(st.secret, key)))
}

// upload records the file of an issued key, its bytes at file, replacing
// an earlier upload unless a Moment uses it; it returns the refusal's
// message or "". It keeps the bytes of a file that will be PROCESSED and
// removes the others, those of a refused upload and those of the upload it
// replaces: nothing would serve them.
func (st *momentStore) upload(m Media, file string, now time.Time) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, ok := st.files[m.Key]
	switch {
	case !ok:
		os.Remove(file)
		return "Media " + m.Key + " not found"
	case rec.MomentID != "":
		os.Remove(file)
		return "Media " + m.Key + " is already attached to a moment"
	}
	final := judgeMedia(m)
	if rec.file != "" {
		os.Remove(rec.file)
	}
	if final != wire.MediaProcessed {
		os.Remove(file)
		file = ""
	}
	*rec = mediaRecord{Media: m, uploaded: true, uploadedAt: now, final: final, file: file}
	return ""
}

// status is the state of an uploaded file at now: "" while the service has
// not registered it (the first half of delay), IN_PROCESS for the second
// half, then its final state.
func (rec *mediaRecord) status(now time.Time, delay time.Duration) string {
	switch elapsed := now.Sub(rec.uploadedAt); {
	case elapsed < delay/2:
		return ""
	case elapsed < delay:
		return wire.MediaInProcess
	}
	return rec.final
}

// media returns the file key as a status read sees it at now, or false
// while it is unknown to status reads.
func (st *momentStore) media(key string, now time.Time) (Media, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, ok := st.files[key]
	if !ok || !rec.uploaded {
		return Media{}, false
	}
	m := rec.Media
	m.Status = rec.status(now, st.delay)
	return m, m.Status != ""
}

// attach publishes m with the media keys, all of which must be processed
// and free; it returns the refusal's message (the service's 409) or "".
func (st *momentStore) attach(m Moment, keys []string, now time.Time) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	seen := map[string]bool{}
	for _, k := range keys {
		rec, ok := st.files[k]
		status := ""
		if ok && rec.uploaded {
			status = rec.status(now, st.delay)
		}
		switch {
		case status == "":
			return "Media " + k + " not found"
		case rec.MomentID != "" || seen[k]:
			return "Media " + k + " is already attached to a moment"
		case status == wire.MediaInProcess:
			return "Media " + k + " is not processed yet"
		case status != wire.MediaProcessed:
			return "Media " + k + " has invalid status " + status
		}
		seen[k] = true
	}
	for _, k := range keys {
		st.files[k].MomentID = m.ID
	}
	m.MediaKeys = slices.Clone(keys)
	st.moments = append(st.moments, m)
	return ""
}

// SetMediaDelay changes how long uploaded files take to process: status
// reads answer 404 for the first half of d, IN_PROCESS for the second half,
// then the final state. It applies to files uploaded already too.
func (s *Server) SetMediaDelay(d time.Duration) {
	s.moments.mu.Lock()
	defer s.moments.mu.Unlock()
	s.moments.delay = d
}

// Moments returns the Moments the Server published, oldest first.
func (s *Server) Moments() []Moment {
	s.moments.mu.Lock()
	defer s.moments.mu.Unlock()
	out := make([]Moment, len(s.moments.moments))
	for i, m := range s.moments.moments {
		m.DropIDs, m.MediaKeys, m.UserTags = slices.Clone(m.DropIDs), slices.Clone(m.MediaKeys), slices.Clone(m.UserTags)
		out[i] = m
	}
	return out
}

// Media returns the uploaded file key, with the state a status read would
// report now (IN_PROCESS while such a read still answers 404); false when
// no file was uploaded under key.
func (s *Server) Media(key string) (Media, bool) {
	st := s.moments
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, ok := st.files[key]
	if !ok || !rec.uploaded {
		return Media{}, false
	}
	m := rec.Media
	m.Status = cmp.Or(rec.status(s.now(), st.delay), wire.MediaInProcess)
	return m, true
}
