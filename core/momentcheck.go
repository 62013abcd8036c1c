package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"time"
	"unicode/utf8"
)

// checked is a post that passed every check: where and by whom, its
// author (the verified address holding the drop) and its files read.
type checked struct {
	place    Place
	user     User
	author   string
	dropName string
	files    []MomentFile
	opener   MediaOpener
}

// record is the post as the store keeps it at first.
func (c checked) record(p MomentPost) MomentRecord {
	return MomentRecord{
		PlaceID: c.place.ID, UserID: c.user.ID, Platform: p.Place.Platform, Place: p.Place.ExternalID,
		Member: p.Member.ExternalID, Key: p.Key, DropID: p.DropID, Author: c.author,
		Description: p.Description, Channel: p.Channel, Files: c.files, State: MomentUploading,
	}
}

// check applies every rule before a byte is uploaded, cheapest first: the
// post's shape (a *MomentError), the place allows Moments (ErrMomentsOff),
// the member's rate (a *MomentRateError), what the platform said of each
// file (a *MediaError), a verified wallet holding the drop (ErrNotLinked,
// ErrNotVerified, a *HolderError; ErrUnknownEvent for a drop the service
// does not know), then each file's first bytes and size, and that no file
// is in the post twice (a *MediaError). That no file repeats one the member
// posted to the drop is the store's to say, when the post is recorded.
// Store and issuing-service failures come as they are.
func (s *MomentService) check(ctx context.Context, p MomentPost) (checked, error) {
	if err := s.checkShape(p); err != nil {
		return checked{}, err
	}
	var c checked
	var err error
	if c.opener, err = s.opener(p.Place.Platform); err != nil {
		return checked{}, err
	}
	if c.place, err = s.members.UpsertPlace(ctx, p.Place.stored()); err != nil {
		return checked{}, err
	}
	off, err := s.store.MomentsOff(ctx, c.place.ID)
	if err != nil {
		return checked{}, err
	}
	if off {
		return checked{}, ErrMomentsOff
	}
	if c.user, err = s.members.FindUser(ctx, p.Member.Platform, p.Member.ExternalID); errors.Is(err, ErrNotFound) {
		return checked{}, ErrNotLinked
	} else if err != nil {
		return checked{}, err
	}
	if err := s.checkRate(ctx, c.user.ID); err != nil {
		return checked{}, err
	}
	for i, m := range p.Media {
		if err := s.checkDeclared(i, m); err != nil {
			return checked{}, err
		}
	}
	if c.author, err = s.holder(ctx, c.user.ID, p.DropID); err != nil {
		return checked{}, err
	}
	if c.dropName, err = s.issuer.DropName(ctx, p.DropID); err != nil {
		return checked{}, err
	}
	for i, m := range p.Media {
		f, err := s.readHead(ctx, c.opener, i, m)
		if err != nil {
			return checked{}, err
		}
		for j, prev := range c.files {
			if prev.HeadHash == f.HeadHash {
				return checked{}, &MediaError{Index: i, Name: m.Name, Problem: MediaTwice, Other: j}
			}
		}
		c.files = append(c.files, f)
	}
	return c, nil
}

// checkShape: one to MaxMomentMedia files, a drop, a description of at
// most MaxMomentDescription characters.
func (s *MomentService) checkShape(p MomentPost) error {
	switch n := utf8.RuneCountInString(p.Description); {
	case p.DropID <= 0:
		return &MomentError{Problem: MomentNoDrop}
	case len(p.Media) == 0:
		return &MomentError{Problem: MomentNoMedia, Limit: MaxMomentMedia}
	case len(p.Media) > MaxMomentMedia:
		return &MomentError{Problem: MomentTooManyMedia, Got: len(p.Media), Limit: MaxMomentMedia}
	case n > MaxMomentDescription:
		return &MomentError{Problem: MomentDescriptionTooLong, Got: n, Limit: MaxMomentDescription}
	}
	return nil
}

// checkRate refuses a member who posted s.rate times in the last hour.
func (s *MomentService) checkRate(ctx context.Context, userID int64) error {
	n, err := s.store.CountMoments(ctx, userID, s.since())
	if err != nil {
		return err
	}
	if n < s.rate {
		return nil
	}
	// The next post may go when the oldest of the hour leaves it; the
	// store does not say when that is, so an hour is the promise.
	return &MomentRateError{Limit: s.rate, Next: s.clock.Now().Add(time.Hour)}
}

// checkDeclared refuses a file the platform will not hand over or says is
// too large, before the wallets are scanned.
func (s *MomentService) checkDeclared(i int, m MediaRef) error {
	switch {
	case m.Unavailable != "":
		return &MediaError{Index: i, Name: m.Name, Problem: MediaUnavailable, Reason: m.Unavailable, Size: m.Size, Limit: s.maxBytes}
	case m.Size > s.maxBytes:
		return &MediaError{Index: i, Name: m.Name, Problem: MediaTooLarge, Size: m.Size, Limit: s.maxBytes}
	}
	return nil
}

// holder returns the first of the member's verified addresses that holds
// the drop: one scan by event per address.
func (s *MomentService) holder(ctx context.Context, userID, dropID int64) (string, error) {
	wallets, err := s.members.Wallets(ctx, userID)
	if err != nil {
		return "", err
	}
	if len(wallets) == 0 {
		return "", ErrNotLinked
	}
	herr := &HolderError{DropID: dropID}
	for _, w := range wallets {
		if !w.Verified() || w.Address == "" {
			herr.Unverified++
			continue
		}
		holds, err := s.issuer.HoldsDrop(ctx, w.Address, dropID)
		if err != nil {
			return "", err
		}
		if holds {
			return w.Address, nil
		}
		herr.Checked = append(herr.Checked, w.Address)
	}
	if len(herr.Checked) == 0 {
		return "", ErrNotVerified
	}
	return "", herr
}

// readHead opens file i, reads its first MomentHeadBytes to tell its type
// and closes it: nothing more is read until the upload.
func (s *MomentService) readHead(ctx context.Context, o MediaOpener, i int, m MediaRef) (MomentFile, error) {
	f := MomentFile{MediaRef: m}
	bad := func(p MediaProblem, err error) (MomentFile, error) {
		return f, &MediaError{Index: i, Name: m.Name, Problem: p, Sniffed: f.Sniffed, Declared: m.Type, Size: f.Bytes, Limit: s.maxBytes, Err: err}
	}
	rc, size, err := o.OpenMedia(ctx, m.Ref)
	if err != nil {
		return bad(MediaUnreadable, err)
	}
	defer rc.Close()
	if size < 0 {
		size = m.Size
	}
	f.Bytes = size
	head := make([]byte, MomentHeadBytes)
	n, err := io.ReadFull(rc, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return bad(MediaUnreadable, err)
	}
	head = head[:n]
	switch {
	case n == 0:
		return bad(MediaEmpty, nil)
	case size <= 0 || (n < MomentHeadBytes && int64(n) != size):
		// The platform's size is unknown or wrong: the upload needs it.
		f.Bytes = int64(n)
		if n == MomentHeadBytes {
			return bad(MediaUnreadable, errors.New("the platform did not say the file's size"))
		}
	case size > s.maxBytes:
		return bad(MediaTooLarge, nil)
	}
	if f.Sniffed = SniffMedia(head); f.Sniffed == "" {
		return bad(MediaUnsupported, nil)
	}
	if !typeMatches(declaredType(m.Type), f.Sniffed) {
		return bad(MediaMismatch, nil)
	}
	sum := sha256.New()
	sum.Write(sizePrefix(f.Bytes))
	sum.Write(head)
	f.HeadHash = hex.EncodeToString(sum.Sum(nil))
	return f, nil
}
