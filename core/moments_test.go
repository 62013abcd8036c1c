package core_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
)

func TestSniffMedia(t *testing.T) {
	ebml := func(doc string) []byte {
		return append([]byte{0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84}, []byte(doc+"\x42\x87\x81\x04")...)
	}
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), core.TypePNG},
		{"jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F'}, core.TypeJPEG},
		{"gif89", []byte("GIF89a\x01\x00\x01\x00"), core.TypeGIF},
		{"gif87", []byte("GIF87a\x01\x00\x01\x00"), core.TypeGIF},
		{"webp", []byte("RIFF\x24\x00\x00\x00WEBPVP8 "), core.TypeWebP},
		{"riff wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), ""},
		{"mp4", []byte("\x00\x00\x00\x20ftypisom\x00\x00\x02\x00"), core.TypeMP4},
		{"mp4 mp42", []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00"), core.TypeMP4},
		{"heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00"), ""},
		{"avif", []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00"), ""},
		{"m4a", []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x02\x00"), ""},
		{"3gp", []byte("\x00\x00\x00\x14ftyp3gp4\x00\x00\x02\x00"), ""},
		{"quicktime ftyp", []byte("\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00"), core.TypeQuickTime},
		{"quicktime moov", []byte("\x00\x00\x01\x00moov\x00\x00\x00\x6cmvhd"), core.TypeQuickTime},
		{"webm", ebml("webm"), core.TypeWebM},
		{"matroska", ebml("matroska"), ""},
		{"text", []byte("just some text, not a picture"), ""},
		{"html", []byte("<!DOCTYPE html><html>"), ""},
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3"), ""},
		{"short", []byte{0xFF, 0xD8}, ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		if got := core.SniffMedia(tt.head); got != tt.want {
			t.Errorf("SniffMedia(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// momentIssuer is Moments in memory: who holds which drop, the files
// uploaded (bytes kept), and the Moments made.
type momentIssuer struct {
	mu      sync.Mutex
	holders map[string]bool // "address/drop"
	uploads map[string][]byte
	moments []core.NewMoment
	// invalid makes WaitForMedia refuse every file.
	invalid bool
	// onUpload, when set, runs before each upload is read; onWait before
	// each wait for processing; refuse makes CreateMoment answer the
	// service's 409.
	onUpload func()
	onWait   func()
	refuse   bool
	// createErr, when set, is CreateMoment's answer.
	createErr error
}

func newMomentIssuer() *momentIssuer {
	return &momentIssuer{holders: map[string]bool{}, uploads: map[string][]byte{}}
}

func (m *momentIssuer) HoldsDrop(_ context.Context, address string, drop int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.holders[fmt.Sprintf("%s/%d", address, drop)], nil
}

func (m *momentIssuer) DropName(_ context.Context, drop int64) (string, error) {
	return fmt.Sprintf("Drop %d", drop), nil
}

func (m *momentIssuer) UploadMedia(_ context.Context, r io.Reader, size int64, _ string) (string, error) {
	if m.onUpload != nil {
		m.onUpload()
	}
	b, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) != size {
		return "", fmt.Errorf("upload: %d bytes, want %d: %w", len(b), size, core.ErrMediaChanged)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := fmt.Sprintf("key-%d", len(m.uploads)+1)
	m.uploads[key] = b
	return key, nil
}

func (m *momentIssuer) WaitForMedia(_ context.Context, key string, _ int64) (core.MomentMediaView, error) {
	if m.onWait != nil {
		m.onWait()
	}
	if m.invalid {
		return core.MomentMediaView{}, core.ErrMediaInvalid
	}
	return core.MomentMediaView{Type: core.TypePNG, URL: "https://media.example/" + key}, nil
}

func (m *momentIssuer) CreateMoment(_ context.Context, in core.NewMoment) (string, error) {
	if m.refuse {
		return "", core.ErrMediaInvalid
	}
	if m.createErr != nil {
		return "", m.createErr
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.moments = append(m.moments, in)
	return fmt.Sprintf("moment-%d", len(m.moments)), nil
}

func (m *momentIssuer) Moments(context.Context, core.MomentQuery) ([]core.MomentView, error) {
	return nil, nil
}

func (m *momentIssuer) made() []core.NewMoment {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]core.NewMoment(nil), m.moments...)
}

// files is a platform's files in memory, by reference.
type files map[string][]byte

func (f files) OpenMedia(_ context.Context, ref string) (io.ReadCloser, int64, error) {
	b, ok := f[ref]
	if !ok {
		return nil, 0, core.ErrMediaGone
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

// momentEnv is a MomentService over memory with one verified holder.
type momentEnv struct {
	svc    *core.MomentService
	store  *coretest.MemStore
	issuer *momentIssuer
	files  files
	clock  *coretest.Clock
	member core.Member
	place  core.Place
	rate   int
}

const (
	momentDrop   = 4242
	momentHolder = "0x00000000000000000000000000000000000000aa"
)

func newMomentEnv(t *testing.T, rate int) *momentEnv {
	t.Helper()
	e := &momentEnv{
		store: coretest.NewMemStore(), issuer: newMomentIssuer(), files: files{},
		// The store stamps its records with the wall clock.
		clock:  coretest.NewClock(time.Now()),
		member: core.Member{Platform: core.Discord, ExternalID: "m1", Name: "alice"},
		place:  core.Place{Platform: core.Discord, ExternalID: "g1", Name: "guild"},
	}
	e.rate = rate
	e.use(t, e.files)
	ctx := context.Background()
	u, _ := e.store.UpsertUser(ctx, core.User{Platform: core.Discord, ExternalID: "m1", Name: "alice"})
	e.store.AddWallet(ctx, core.Wallet{UserID: u.ID, Platform: core.Discord, Kind: core.KindAddress, Value: momentHolder, Address: momentHolder, VerifiedAt: ptr(e.clock.Now())})
	e.issuer.holders[fmt.Sprintf("%s/%d", momentHolder, momentDrop)] = true
	return e
}

// use builds the service anew with o as Discord's opener.
func (e *momentEnv) use(t *testing.T, o core.MediaOpener) {
	t.Helper()
	svc, err := core.NewMomentService(core.MomentServiceDeps{
		Members: e.store, Store: e.store, Issuer: e.issuer, Locks: coretest.NewLocks(),
		MaxBytes: 1 << 20, Rate: e.rate, Clock: e.clock, Media: map[core.Platform]core.MediaOpener{core.Discord: o},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
}

// png is a PNG-looking file of n bytes whose content depends on seed.
func pngFile(n int, seed byte) []byte {
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	for i := 8; i < n; i++ {
		b[i] = byte(i) ^ seed
	}
	return b
}

// post posts refs with key.
func (e *momentEnv) post(key string, refs ...string) (core.MomentResult, error) {
	p := core.MomentPost{Place: e.place, Member: e.member, Key: key, DropID: momentDrop, Description: "at the booth"}
	for _, r := range refs {
		p.Media = append(p.Media, core.MediaRef{Ref: r, Name: r, Size: int64(len(e.files[r]))})
	}
	return e.svc.Post(context.Background(), p, nil)
}

func TestMomentService_Post(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"], e.files["b"] = pngFile(200<<10, 1), pngFile(10, 2)
		res, err := e.post("k1", "a", "b")
		if err != nil {
			t.Fatal(err)
		}
		made := e.issuer.made()
		if len(made) != 1 || made[0].Author != momentHolder || made[0].DropID != momentDrop || len(made[0].MediaKeys) != 2 {
			t.Fatalf("Moments made = %+v, want one by the holder with two files", made)
		}
		for i, k := range made[0].MediaKeys {
			if !bytes.Equal(e.issuer.uploads[k], e.files[[]string{"a", "b"}[i]]) {
				t.Errorf("file %d: uploaded bytes differ", i+1)
			}
		}
		rec := res.Record
		sum := sha256.Sum256(e.files["a"])
		if rec.State != core.MomentPosted || rec.MomentID != "moment-1" || rec.Files[0].Hash != hex.EncodeToString(sum[:]) || rec.Files[0].Sniffed != core.TypePNG {
			t.Errorf("record = %+v", rec)
		}
		if got := e.store.Moments(); len(got) != 1 || got[0].State != core.MomentPosted {
			t.Errorf("stored = %+v, want one posted", got)
		}
	})
	t.Run("Redelivered", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"] = pngFile(100, 1)
		if _, err := e.post("k1", "a"); err != nil {
			t.Fatal(err)
		}
		e.files["c"] = pngFile(100, 3)
		_, err := e.post("k1", "c")
		var rep *core.MomentRepeatError
		if !errors.As(err, &rep) || rep.File != -1 || rep.First.MomentID != "moment-1" {
			t.Fatalf("Post(same key) = %v, want a repeat of moment-1", err)
		}
		if n := len(e.issuer.made()); n != 1 {
			t.Errorf("%d Moments made, want 1", n)
		}
	})
	t.Run("SameFileAgain", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"], e.files["copy"] = pngFile(100<<10, 1), pngFile(100<<10, 1)
		if _, err := e.post("k1", "a"); err != nil {
			t.Fatal(err)
		}
		uploads := len(e.issuer.uploads)
		_, err := e.post("k2", "copy")
		var rep *core.MomentRepeatError
		if !errors.As(err, &rep) || rep.File != 0 {
			t.Fatalf("Post(same file) = %v, want a repeat of file 1", err)
		}
		if len(e.issuer.uploads) != uploads {
			t.Error("the repeated file was uploaded")
		}
		// Another file: other bytes within the first 64 KiB.
		e.files["edited"] = pngFile(100<<10, 1)
		e.files["edited"][100] ^= 0xFF
		if _, err := e.post("k3", "edited"); err != nil {
			t.Errorf("Post(another file of the same size) = %v, want it posted", err)
		}
		// Twice in one post.
		e.files["d1"], e.files["d2"] = pngFile(500, 9), pngFile(500, 9)
		if _, err := e.post("k4", "d1", "d2"); !errors.Is(err, core.ErrBadMedia) {
			t.Errorf("Post(the same file twice) = %v, want ErrBadMedia", err)
		}
	})
	t.Run("WhileTheFirstUploads", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"], e.files["copy"] = pngFile(1000, 1), pngFile(1000, 1)
		second := make(chan error, 1)
		e.issuer.onUpload = func() {
			e.issuer.onUpload = nil
			_, err := e.post("k2", "copy")
			second <- err
		}
		if _, err := e.post("k1", "a"); err != nil {
			t.Fatal(err)
		}
		if err := <-second; !errors.Is(err, core.ErrMomentRepeat) {
			t.Errorf("Post(same file while the first uploads) = %v, want ErrMomentRepeat", err)
		}
	})
	t.Run("Refusals", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["ok"] = pngFile(100, 1)
		e.files["text"] = []byte("hello, this is not an image at all")
		e.files["big"] = pngFile(2<<20, 1)
		e.files["jpeg"] = pngFile(100, 4)
		tests := []struct {
			name string
			post core.MomentPost
			want error
		}{
			{"no media", core.MomentPost{DropID: momentDrop}, core.ErrBadMoment},
			{"six files", core.MomentPost{DropID: momentDrop, Media: make([]core.MediaRef, 6)}, core.ErrBadMoment},
			{"601 characters", core.MomentPost{DropID: momentDrop, Description: strings.Repeat("é", 601), Media: []core.MediaRef{{Ref: "ok"}}}, core.ErrBadMoment},
			{"text named png", core.MomentPost{DropID: momentDrop, Media: []core.MediaRef{{Ref: "text", Name: "a.png", Type: "image/png"}}}, core.ErrBadMedia},
			{"declared too big", core.MomentPost{DropID: momentDrop, Media: []core.MediaRef{{Ref: "ok", Size: 5 << 20}}}, core.ErrBadMedia},
			{"too big", core.MomentPost{DropID: momentDrop, Media: []core.MediaRef{{Ref: "big"}}}, core.ErrBadMedia},
			{"declared jpeg", core.MomentPost{DropID: momentDrop, Media: []core.MediaRef{{Ref: "jpeg", Type: "image/jpeg"}}}, core.ErrBadMedia},
			{"unavailable", core.MomentPost{DropID: momentDrop, Media: []core.MediaRef{{Ref: "ok", Unavailable: "over 20 MB"}}}, core.ErrBadMedia},
			{"gone", core.MomentPost{DropID: momentDrop, Media: []core.MediaRef{{Ref: "deleted"}}}, core.ErrMediaGone},
			{"not a holder", core.MomentPost{DropID: 7, Media: []core.MediaRef{{Ref: "ok"}}}, core.ErrNotHolder},
		}
		for _, tt := range tests {
			tt.post.Place, tt.post.Member = e.place, e.member
			if _, err := e.svc.Post(context.Background(), tt.post, nil); !errors.Is(err, tt.want) {
				t.Errorf("Post(%s) = %v, want %v", tt.name, err, tt.want)
			}
		}
		if len(e.issuer.uploads) != 0 || len(e.store.Moments()) != 0 {
			t.Errorf("refused posts uploaded %d files and recorded %d posts", len(e.issuer.uploads), len(e.store.Moments()))
		}
	})
	t.Run("Rate", func(t *testing.T) {
		e := newMomentEnv(t, 2)
		for i := range 3 {
			ref := fmt.Sprint("f", i)
			e.files[ref] = pngFile(100, byte(i+1))
			_, err := e.post(ref, ref)
			if want := i < 2; (err == nil) != want {
				t.Fatalf("post %d: %v", i+1, err)
			}
			if i == 2 && !errors.Is(err, core.ErrMomentRate) {
				t.Errorf("third post in the hour = %v, want ErrMomentRate", err)
			}
		}
	})
	t.Run("Off", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"] = pngFile(100, 1)
		if err := e.svc.SetMomentsOff(context.Background(), e.place, true); err != nil {
			t.Fatal(err)
		}
		if _, err := e.post("k", "a"); !errors.Is(err, core.ErrMomentsOff) {
			t.Errorf("Post with Moments off = %v, want ErrMomentsOff", err)
		}
	})
	t.Run("Unverified", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.member.ExternalID = "m2"
		u, _ := e.store.UpsertUser(context.Background(), core.User{Platform: core.Discord, ExternalID: "m2"})
		e.store.AddWallet(context.Background(), core.Wallet{UserID: u.ID, Platform: core.Discord, Kind: core.KindAddress, Value: momentHolder, Address: momentHolder})
		e.files["a"] = pngFile(100, 1)
		if _, err := e.post("k", "a"); !errors.Is(err, core.ErrNotVerified) {
			t.Errorf("Post by an unverified holder = %v, want ErrNotVerified", err)
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.issuer.invalid = true
		e.files["a"] = pngFile(100, 1)
		if _, err := e.post("k", "a"); !errors.Is(err, core.ErrMediaInvalid) {
			t.Fatalf("Post refused by Moments = %v, want ErrMediaInvalid", err)
		}
		if got := e.store.Moments(); len(got) != 1 || got[0].State != core.MomentFailed || got[0].Error == "" {
			t.Errorf("stored = %+v, want one failed with its reason", got)
		}
	})
}

// announcer is files that records the notices of resumed posts.
type announcer struct {
	files
	notices chan core.MomentNotice
}

func (a announcer) AnnounceMoment(_ context.Context, n core.MomentNotice) error {
	a.notices <- n
	return nil
}

func TestMomentService_Resume(t *testing.T) {
	e := newMomentEnv(t, 10)
	e.files["a"], e.files["b"] = pngFile(100, 1), pngFile(100, 2)
	a := announcer{files: e.files, notices: make(chan core.MomentNotice, 4)}
	e.use(t, a)
	// A stop cut the post after its first file: the record says so.
	stop := errors.New("stopped")
	calls := 0
	e.issuer.onUpload = func() {
		if calls++; calls == 2 {
			panic(stop)
		}
	}
	func() {
		defer func() {
			if p := recover(); p != stop {
				t.Fatalf("recovered %v", p)
			}
		}()
		e.post("k", "a", "b")
	}()
	e.issuer.onUpload = nil
	if n, _ := e.svc.Resume(context.Background()); n != 0 {
		t.Fatalf("Resume within the lease took %d posts", n)
	}
	e.clock.Add(6 * time.Minute)
	if n, err := e.svc.Resume(context.Background()); n != 1 || err != nil {
		t.Fatalf("Resume = %d, %v; want 1", n, err)
	}
	n := <-a.notices
	if n.Err != nil || n.Record.State != core.MomentPosted || len(n.Media) != 2 {
		t.Errorf("notice = %+v, want the post published with two files", n)
	}
	if made := e.issuer.made(); len(made) != 1 || len(made[0].MediaKeys) != 2 || len(e.issuer.uploads) != 2 {
		t.Errorf("made %+v from %d uploads; want one Moment of two files, each uploaded once", made, len(e.issuer.uploads))
	}
}

// lostCreate is a momentIssuer whose first CreateMoment makes the Moment
// but loses its answer, and which refuses media keys attached already
// with the service's 409.
type lostCreate struct {
	*momentIssuer
	lost     bool
	attached map[string]bool
}

func (l *lostCreate) CreateMoment(ctx context.Context, in core.NewMoment) (string, error) {
	for _, k := range in.MediaKeys {
		if l.attached[k] {
			return "", core.ErrMediaInvalid
		}
	}
	id, err := l.momentIssuer.CreateMoment(ctx, in)
	for _, k := range in.MediaKeys {
		l.attached[k] = true
	}
	if !l.lost {
		l.lost = true
		return "", core.ErrIssuerUnavailable
	}
	return id, err
}

func (l *lostCreate) Moments(context.Context, core.MomentQuery) ([]core.MomentView, error) {
	made := l.made()
	var out []core.MomentView
	for i := len(made) - 1; i >= 0; i-- {
		v := core.MomentView{ID: fmt.Sprintf("moment-%d", i+1), Author: made[i].Author, Description: made[i].Description, CreatedOn: time.Now()}
		for _, k := range made[i].MediaKeys {
			v.Media = append(v.Media, core.MomentMediaView{Type: core.TypePNG, URL: "https://media.example/" + k})
		}
		out = append(out, v)
	}
	return out, nil
}

// TestMomentService_LostCreate: a creation whose answer is lost leaves the
// post for Resume, which finds the Moment made instead of making another.
func TestMomentService_LostCreate(t *testing.T) {
	e := newMomentEnv(t, 10)
	issuer := &lostCreate{momentIssuer: e.issuer, attached: map[string]bool{}}
	a := announcer{files: e.files, notices: make(chan core.MomentNotice, 1)}
	svc, err := core.NewMomentService(core.MomentServiceDeps{
		Members: e.store, Store: e.store, Issuer: issuer, Locks: coretest.NewLocks(), Clock: e.clock,
		Media: map[core.Platform]core.MediaOpener{core.Discord: a},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.files["a"] = pngFile(100, 1)
	_, err = svc.Post(context.Background(), core.MomentPost{Place: e.place, Member: e.member, Key: "k", DropID: momentDrop,
		Description: "lost", Media: []core.MediaRef{{Ref: "a"}}}, nil)
	if !errors.Is(err, core.ErrMomentDelayed) {
		t.Fatalf("Post with its creation's answer lost = %v, want ErrMomentDelayed", err)
	}
	if got := e.store.Moments(); len(got) != 1 || got[0].State.Final() {
		t.Fatalf("stored = %+v, want one unfinished", got)
	}
	e.clock.Add(6 * time.Minute)
	if n, err := svc.Resume(context.Background()); n != 1 || err != nil {
		t.Fatalf("Resume = %d, %v; want 1", n, err)
	}
	n := <-a.notices
	if n.Err != nil || n.Record.State != core.MomentPosted || n.Record.MomentID != "moment-1" {
		t.Errorf("notice = %+v, want moment-1 posted", n)
	}
	if made := issuer.made(); len(made) != 1 {
		t.Errorf("%d Moments made, want 1", len(made))
	}
}

// stopIn runs post, which a stop cuts where the issuer's hook panics.
func stopIn(t *testing.T, post func()) {
	t.Helper()
	defer func() {
		if p := recover(); p != errStop {
			t.Fatalf("recovered %v, want the stop", p)
		}
	}()
	post()
}

var errStop = errors.New("stopped")

// TestMomentService_ResumeRefused: a post stopped before its creation was
// sent, refused by Moments when resumed, fails: it is not taken for a
// Moment made already.
func TestMomentService_ResumeRefused(t *testing.T) {
	e := newMomentEnv(t, 10)
	e.files["a"] = pngFile(100, 1)
	a := announcer{files: e.files, notices: make(chan core.MomentNotice, 1)}
	e.use(t, a)
	e.issuer.onWait = func() { panic(errStop) }
	stopIn(t, func() { e.post("k", "a") })
	e.issuer.onWait, e.issuer.refuse = nil, true
	e.clock.Add(6 * time.Minute)
	if n, err := e.svc.Resume(context.Background()); n != 1 || err != nil {
		t.Fatalf("Resume = %d, %v; want 1", n, err)
	}
	n := <-a.notices
	if !errors.Is(n.Err, core.ErrMediaInvalid) || n.Record.State != core.MomentFailed {
		t.Errorf("notice = %+v, want the post failed with ErrMediaInvalid", n)
	}
}

// TestMomentService_ResumeGivesUp: a post still unfinished a day after it
// was made is failed, its place told, and its file may be posted again.
func TestMomentService_ResumeGivesUp(t *testing.T) {
	e := newMomentEnv(t, 10)
	e.files["a"] = pngFile(100, 1)
	a := announcer{files: e.files, notices: make(chan core.MomentNotice, 1)}
	e.use(t, a)
	e.issuer.onWait = func() { panic(errStop) }
	stopIn(t, func() { e.post("k", "a") })
	e.issuer.onWait = nil
	e.clock.Add(25 * time.Hour)
	if n, err := e.svc.Resume(context.Background()); n != 1 || err != nil {
		t.Fatalf("Resume = %d, %v; want 1", n, err)
	}
	if n := <-a.notices; n.Err == nil || n.Record.State != core.MomentFailed {
		t.Errorf("notice = %+v, want the post given up", n)
	}
	if _, err := e.post("k2", "a"); err != nil {
		t.Errorf("posting the file again after the give-up = %v, want it posted", err)
	}
}
