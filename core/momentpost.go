package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"maps"
	"slices"
	"time"
)

// MomentService owns Moments from the chat: /moment checks a post before
// any byte is uploaded, records it, streams each file from the platform to
// Moments, waits for processing and publishes it; it finishes posts a
// restart interrupted (Resume); /moments lists them; moderators turn them
// off and on per place.
type MomentService struct {
	base
	members  MemberStore
	store    MomentStore
	issuer   MomentIssuer
	locks    Exclusive
	maxBytes int64
	rate     int
	// openers open the platforms' files, read only once built.
	openers map[Platform]MediaOpener
}

// MomentServiceDeps are the dependencies of a MomentService.
type MomentServiceDeps struct {
	// Members, Store, Issuer and Locks are required; storage.DB is
	// Members, Store and Locks.
	Members MemberStore
	Store   MomentStore
	Issuer  MomentIssuer
	Locks   Exclusive
	// Media open the files members attach, by platform (the platforms'
	// adapters); the service keeps a copy. An opener that is also a
	// MomentAnnouncer hears how the platform's resumed posts ended. A post
	// from a platform without one is refused.
	Media map[Platform]MediaOpener
	// MaxBytes is the largest file accepted (MOMENT_MAX_BYTES); zero is
	// DefaultMomentMaxBytes. Rate is the most posts a member makes in an
	// hour (MOMENT_RATE); zero is DefaultMomentRate.
	MaxBytes int64
	Rate     int
	// Clock defaults to the system clock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
	// Tally counts what the service does for the domain metrics; nil
	// counts nothing.
	Tally Tally
}

// NewMomentService returns the service, or ErrMissingDependency.
func NewMomentService(d MomentServiceDeps) (*MomentService, error) {
	if err := missing("moment service", "Members", d.Members, "Store", d.Store, "Issuer", d.Issuer, "Locks", d.Locks); err != nil {
		return nil, err
	}
	s := &MomentService{
		base: newBase(d.Clock, d.Logger, d.Tally), members: d.Members, store: d.Store, issuer: d.Issuer, locks: d.Locks,
		maxBytes: d.MaxBytes, rate: d.Rate, openers: maps.Clone(d.Media),
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMomentMaxBytes
	}
	if s.rate <= 0 {
		s.rate = DefaultMomentRate
	}
	return s, nil
}

// opener returns the platform's opener, or an error when it has none.
func (s *MomentService) opener(p Platform) (MediaOpener, error) {
	o := s.openers[p]
	if o == nil {
		return nil, fmt.Errorf("moments: no media opener for %s", p)
	}
	return o, nil
}

// Post checks p (see check), records it, uploads its files one after
// another, waits until Moments processed them and publishes the Moment.
// progress, when not nil, hears each step. Errors: those of check; a
// *MomentRepeatError when the request was delivered before or a file was
// posted by the member to the drop before (the store says which); after
// the record, ErrMediaInvalid, ErrMediaTimeout, ErrIssuerUnavailable,
// ErrIssuerRejected, an *IssuerRefusal, a *MediaError (MediaChanged,
// MediaUnreadable), each
// also written to the record as failed, or ErrMomentDelayed when the post
// was interrupted or its creation went unanswered: it stays unfinished,
// for Resume.
func (s *MomentService) Post(ctx context.Context, p MomentPost, progress func(MomentProgress)) (_ MomentResult, err error) {
	defer func() { s.count(ActMoment, p.Member.Platform, momentOutcome(err)) }()
	if progress == nil {
		progress = func(MomentProgress) {}
	}
	progress(MomentProgress{Stage: StageChecking, Files: len(p.Media)})
	c, err := s.check(ctx, p)
	if err != nil {
		return MomentResult{}, err
	}
	rec, err := s.store.AddMoment(ctx, c.record(p))
	if errors.Is(err, ErrConflict) && rec.ID != 0 {
		return MomentResult{}, &MomentRepeatError{First: rec, File: -1}
	}
	if err != nil {
		return MomentResult{}, err
	}
	return s.publish(ctx, rec, c.opener, c.dropName, false, progress)
}

// publish uploads the record's files not uploaded yet, waits for all of
// them, and creates the Moment, keeping the record up to date and alive
// (heartbeat). A refusal is written to the record as its failure; an
// interruption (ctx ended) and an unclear creation leave it unfinished
// for Resume. resumed says the post reached this process through Resume,
// when an earlier process may have created its Moment already.
func (s *MomentService) publish(ctx context.Context, rec MomentRecord, o MediaOpener, dropName string, resumed bool, progress func(MomentProgress)) (MomentResult, error) {
	res := MomentResult{Record: rec, DropName: dropName}
	if progress == nil {
		progress = func(MomentProgress) {}
	}
	defer s.heartbeat(ctx, rec.ID)()
	for i := range rec.Files {
		if rec.Files[i].Key != "" {
			continue
		}
		f, err := s.upload(ctx, o, rec.Files[i], i, len(rec.Files), progress)
		if err != nil {
			res.Record = rec
			return res, s.fail(ctx, &res.Record, err)
		}
		rec.Files[i] = f
		if err := s.store.UpdateMoment(ctx, rec); err != nil {
			s.log.Warn("moment progress not recorded", "moment", rec.ID, "err", err)
		}
	}
	if rec.State != MomentCreating {
		rec.State = MomentProcessing
		res.Record = rec
		if err := s.store.UpdateMoment(ctx, rec); err != nil {
			s.log.Warn("moment progress not recorded", "moment", rec.ID, "err", err)
		}
	}
	keys := make([]string, len(rec.Files))
	for i, f := range rec.Files {
		progress(MomentProgress{Stage: StageProcessing, File: i + 1, Files: len(rec.Files), Sent: f.Bytes, Size: f.Bytes})
		m, err := s.issuer.WaitForMedia(ctx, f.Key, f.Bytes)
		if err != nil {
			return res, s.fail(ctx, &res.Record, err)
		}
		res.Media = append(res.Media, m)
		keys[i] = f.Key
	}
	sent := rec.State == MomentCreating
	rec.State = MomentCreating
	res.Record = rec
	if err := s.store.UpdateMoment(ctx, rec); err != nil {
		// Without the mark a lost answer could not be told from a
		// creation never sent: do not send it.
		return res, s.fail(ctx, &res.Record, fmt.Errorf("%w: %w", ErrMomentDelayed, err))
	}
	id, err := s.create(ctx, rec, keys, resumed && sent)
	if err != nil {
		return res, s.fail(ctx, &res.Record, err)
	}
	rec.State, rec.MomentID = MomentPosted, id
	res.Record = rec
	// The Moment exists: record it even when the caller is gone.
	if err := s.store.UpdateMoment(context.WithoutCancel(ctx), rec); err != nil {
		s.log.Error("posted moment not recorded", "moment", rec.ID, "moment_id", id, "err", err)
	}
	return res, nil
}

// create publishes the Moment of rec's files. A creation whose answer was
// lost may have happened: it is ErrMomentDelayed, left for Resume, which
// tries again. The files of a Moment that exists are attached already, so
// when a creation was sent before (sent: by an earlier process, or an
// earlier turn) and Moments now refuses the files (its 409), the Moment is
// looked up among the author's on the drop; not found (yet), the post
// stays delayed.
func (s *MomentService) create(ctx context.Context, rec MomentRecord, keys []string, sent bool) (string, error) {
	id, err := s.issuer.CreateMoment(ctx, NewMoment{Author: rec.Author, DropID: rec.DropID, Description: rec.Description, MediaKeys: keys})
	switch {
	case err == nil:
		return id, nil
	case sent && errors.Is(err, ErrMediaInvalid):
		if id, ok := s.created(ctx, rec); ok {
			return id, nil
		}
		return "", fmt.Errorf("%w: the Moment is not listed yet: %w", ErrMomentDelayed, err)
	case errors.Is(err, ErrIssuerUnavailable) && ctx.Err() == nil:
		return "", fmt.Errorf("%w: %w", ErrMomentDelayed, err)
	}
	return "", err
}

// created finds the Moment an earlier turn made of rec: the oldest of the
// author's on the drop made since rec was recorded, with rec's description
// and as many files.
func (s *MomentService) created(ctx context.Context, rec MomentRecord) (string, bool) {
	vs, err := s.issuer.Moments(ctx, MomentQuery{DropIDs: []int64{rec.DropID}, Author: rec.Author, Limit: 2 * MomentsPageSize})
	if err != nil {
		s.log.Warn("resumed moment: its Moment not looked up", "moment", rec.ID, "err", err)
		return "", false
	}
	// Newest first: the oldest match is this post's, not a later one's.
	for _, v := range slices.Backward(vs) {
		if v.Description == rec.Description && len(v.Media) == len(rec.Files) &&
			!v.CreatedOn.Before(rec.CreatedAt.Add(-time.Minute)) {
			return v.ID, true
		}
	}
	return "", false
}

// momentLease is how long a post in progress may go without a write to
// its record before Resume takes it for one a stop interrupted; the
// process posting it touches the record every momentBeat.
// A post unfinished a day after it was made is given up (momentGiveUp).
const (
	momentLease  = 5 * time.Minute
	momentBeat   = time.Minute
	momentGiveUp = 24 * time.Hour
)

// heartbeat touches the post's record every momentBeat until the function
// it returns is called, telling Resume, on this replica or another, that
// the post is alive however long a read or an upload stalls.
func (s *MomentService) heartbeat(ctx context.Context, id int64) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(momentBeat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := s.store.TouchMoment(ctx, id); err != nil && ctx.Err() == nil {
					s.log.Warn("moment heartbeat not recorded", "moment", id, "err", err)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// fail records err on the post as its failure and returns err; a post
// interrupted (ctx ended: a stop, the command's deadline) or delayed
// (ErrMomentDelayed) stays unfinished, for Resume to finish. The record
// keeps the failure's kind, never the error's text, which may quote an
// address.
func (s *MomentService) fail(ctx context.Context, rec *MomentRecord, err error) error {
	if errors.Is(err, ErrMomentDelayed) || (ctx.Err() != nil && !refusal(err)) {
		s.log.Info("moment left for resume", "moment", rec.ID, "err", err)
		if !errors.Is(err, ErrMomentDelayed) {
			err = fmt.Errorf("%w: %w", ErrMomentDelayed, err)
		}
		return err
	}
	rec.State, rec.Error = MomentFailed, failureKind(err)
	if uerr := s.store.UpdateMoment(context.WithoutCancel(ctx), *rec); uerr != nil {
		s.log.Error("failed moment not recorded", "moment", rec.ID, "err", uerr)
	}
	return err
}

// refusal reports whether err is an answer about the post itself, which
// trying again would not change, rather than an interruption.
func refusal(err error) bool {
	var me *MediaError
	if errors.As(err, &me) {
		return me.Problem != MediaUnreadable
	}
	return errors.Is(err, ErrMediaInvalid) || errors.Is(err, ErrMediaTimeout) || errors.Is(err, ErrIssuerRejected) ||
		errors.Is(err, ErrIssuerRefused)
}

// failureKind names a failure for the record.
func failureKind(err error) string {
	var me *MediaError
	var refused *IssuerRefusal
	switch {
	case errors.As(err, &me) && me.Problem == MediaChanged:
		return fmt.Sprintf("file %d changed while it was uploading", me.Index+1)
	case errors.As(err, &me):
		return fmt.Sprintf("file %d: problem %d", me.Index+1, me.Problem)
	case errors.Is(err, ErrMediaInvalid):
		return "media refused by Moments"
	case errors.Is(err, ErrMediaTimeout):
		return "media still processing at the deadline"
	case errors.Is(err, ErrIssuerRejected):
		return "credentials refused"
	case errors.As(err, &refused) && refused.Moments:
		return fmt.Sprintf("refused by Moments (status %d)", refused.Status)
	case errors.As(err, &refused):
		return fmt.Sprintf("refused by the issuing service (status %d)", refused.Status)
	case errors.Is(err, ErrIssuerUnavailable):
		return "issuing service unavailable"
	}
	return "failed"
}

// upload streams file i from the platform to Moments, hashing it on the
// way, and returns it with its key, hash and size. The bytes must be those
// checked: the same first bytes, the same size.
func (s *MomentService) upload(ctx context.Context, o MediaOpener, f MomentFile, i, n int, progress func(MomentProgress)) (MomentFile, error) {
	rc, size, err := o.OpenMedia(ctx, f.Ref)
	if err != nil {
		return f, &MediaError{Index: i, Name: f.Name, Problem: MediaUnreadable, Err: err}
	}
	defer rc.Close()
	if size >= 0 && size != f.Bytes {
		return f, &MediaError{Index: i, Name: f.Name, Problem: MediaChanged, Size: size}
	}
	r := &uploadReader{r: rc, head: sha256.New(), all: sha256.New(), size: f.Bytes, report: func(sent int64) {
		progress(MomentProgress{Stage: StageUploading, File: i + 1, Files: n, Sent: sent, Size: f.Bytes})
	}}
	r.head.Write(sizePrefix(f.Bytes))
	r.report(0)
	key, err := s.issuer.UploadMedia(ctx, r, f.Bytes, f.Sniffed)
	switch {
	case r.err != nil:
		return f, &MediaError{Index: i, Name: f.Name, Problem: MediaUnreadable, Err: r.err}
	case errors.Is(err, ErrMediaChanged):
		// The platform handed over more or fewer bytes than were checked.
		return f, &MediaError{Index: i, Name: f.Name, Problem: MediaChanged, Err: err}
	case err != nil:
		return f, err
	}
	if hex.EncodeToString(r.head.Sum(nil)) != f.HeadHash {
		return f, &MediaError{Index: i, Name: f.Name, Problem: MediaChanged}
	}
	f.Key, f.Hash = key, hex.EncodeToString(r.all.Sum(nil))
	return f, nil
}

// uploadReader passes a platform's file to an upload, hashing its first
// MomentHeadBytes and all of it, and reporting progress at each whole
// percent. err keeps the platform's own read error, told apart from the
// upload's.
type uploadReader struct {
	r       io.Reader
	head    hash.Hash
	all     hash.Hash
	size    int64
	sent    int64
	percent int64
	report  func(sent int64)
	err     error
}

func (u *uploadReader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if n > 0 {
		if u.sent < MomentHeadBytes {
			u.head.Write(p[:min(int64(n), MomentHeadBytes-u.sent)])
		}
		u.all.Write(p[:n])
		u.sent += int64(n)
		if pct := u.sent * 100 / max(u.size, 1); pct != u.percent {
			u.percent = pct
			u.report(u.sent)
		}
	}
	if err != nil && err != io.EOF {
		u.err = err
	}
	return n, err
}

// sizePrefix is the size as it starts a head hash: the same first bytes
// in files of other sizes hash apart.
func sizePrefix(size int64) []byte { return fmt.Appendf(nil, "%d\n", size) }

// Resume finishes the posts a stop interrupted: a post whose files were
// all uploaded is waited for and published, one still uploading sends its
// remaining files again from the platform; each outcome is announced in
// the place when the platform's opener is a MomentAnnouncer. A post
// written to within momentLease is taken for one still in progress
// elsewhere and left alone, as are those of platforms with no opener
// here; one replica resumes at a time. It returns how many posts it
// finished or failed, and the store's error.
func (s *MomentService) Resume(ctx context.Context) (int, error) {
	done := 0
	_, err := s.locks.TryExclusive(ctx, momentsResumeLock, func(ctx context.Context) error {
		recs, err := s.store.UnfinishedMoments(ctx)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if s.clock.Now().Sub(rec.UpdatedAt) < momentLease {
				continue
			}
			if s.resume(ctx, rec) {
				done++
			}
		}
		return nil
	})
	return done, err
}

// resume finishes one interrupted post and announces how it ended; false
// when its platform has no opener here, or it is still unfinished.
func (s *MomentService) resume(ctx context.Context, rec MomentRecord) bool {
	o, err := s.opener(rec.Platform)
	if err != nil {
		return false
	}
	if s.clock.Now().Sub(rec.CreatedAt) > momentGiveUp {
		// Moments has not answered for a day: fail it, which frees its
		// files to be posted again, and say so.
		err := fmt.Errorf("not finished in %s: %w", momentGiveUp, ErrIssuerUnavailable)
		_ = s.fail(context.WithoutCancel(ctx), &rec, err)
		s.count(ActMoment, rec.Platform, OutcomeFailed)
		s.announce(ctx, o, MomentNotice{Record: rec, Err: err})
		return true
	}
	dropName, _ := s.issuer.DropName(ctx, rec.DropID)
	res, err := s.publish(ctx, rec, o, dropName, true, nil)
	if errors.Is(err, ErrMomentDelayed) {
		// Interrupted again, or Moments still silent: the next turn
		// tries again, and tells the place then.
		s.log.Info("interrupted moment still unfinished", "moment", rec.ID, "err", err)
		return false
	}
	s.log.Info("interrupted moment resumed", "moment", rec.ID, "posted", err == nil, "err", err)
	s.count(ActMoment, rec.Platform, momentOutcome(err))
	s.announce(ctx, o, MomentNotice{Record: res.Record, Media: res.Media, Err: err})
	return true
}

// announce tells the post's place how it ended, when the platform's
// opener can.
func (s *MomentService) announce(ctx context.Context, o MediaOpener, n MomentNotice) {
	if a, ok := o.(MomentAnnouncer); ok {
		if err := a.AnnounceMoment(ctx, n); err != nil {
			s.log.Warn("resumed moment not announced", "moment", n.Record.ID, "err", err)
		}
	}
}

// since is an hour before now: the window of MOMENT_RATE.
func (s *MomentService) since() time.Time { return s.clock.Now().Add(-time.Hour) }
