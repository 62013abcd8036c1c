package core

import (
	"context"
	"io"
	"time"
)

// Moments: members post photos and videos to a drop from the chat. The
// contract of the MomentService: what a post is made of, the record kept
// of it, the store, the issuing service and the adapters' openers it
// consumes.

// Limits of a Moment that the service enforces before anything is
// uploaded.
const (
	// MaxMomentDescription is the service's limit, in characters.
	MaxMomentDescription = 600
	// MaxMomentMedia is the most files one Moment carries.
	MaxMomentMedia = 5
	// DefaultMomentMaxBytes is MOMENT_MAX_BYTES' default: 100 MiB.
	DefaultMomentMaxBytes = 100 << 20
	// DefaultMomentRate is MOMENT_RATE's default: Moments per member per
	// hour.
	DefaultMomentRate = 10
)

// MediaOpener opens a file a member attached, by the reference its
// platform gave (bot.Media.Ref); each platform's adapter has one, given
// in MomentServiceDeps.Media.
type MediaOpener interface {
	// OpenMedia returns the file's content and its size in bytes, -1 when
	// the platform does not say. The caller reads it at most once, as a
	// stream, and closes it. Errors: ErrMediaGone when the platform no
	// longer has the file; any other error is the platform failing.
	OpenMedia(ctx context.Context, ref string) (io.ReadCloser, int64, error)
}

// MediaRef is a file of a post as the platform described it; the service
// trusts none of it but Ref (see bot.Media).
type MediaRef struct {
	Ref  string
	Name string
	// Type is the declared MIME type, "" when none; a declared type that
	// is not what the first bytes say is refused.
	Type string
	// Size is the declared size, 0 when unknown.
	Size int64
	// Unavailable says why the platform will not hand the file over.
	Unavailable string
}

// MomentPost is a member's request to post a Moment.
type MomentPost struct {
	Place  Place
	Member Member
	// Key is the platform's id of the event that carried the request: a
	// second request with the same key is the same request (redelivered).
	Key         string
	DropID      int64
	Description string
	Media       []MediaRef
	// Channel is where the post was made, where a post interrupted by a
	// restart is reported (MomentActions.AnnounceMoment).
	Channel string
}

// MomentState is where a recorded post stands.
type MomentState string

// The states of a recorded post, in order. A post is recorded once its
// checks passed; Uploading until every file is sent, Processing while the
// service processes them, Creating once the Moment is asked for, then
// Posted, or Failed with the reason.
const (
	MomentUploading  MomentState = "uploading"
	MomentProcessing MomentState = "processing"
	// MomentCreating: the Moment's creation was sent; whether it was made
	// is known from its answer, or, when that was lost, from Moments.
	MomentCreating MomentState = "creating"
	MomentPosted   MomentState = "posted"
	MomentFailed   MomentState = "failed"
)

// Final reports whether the state is the last one.
func (s MomentState) Final() bool { return s == MomentPosted || s == MomentFailed }

// MomentFile is a file of a recorded post.
type MomentFile struct {
	MediaRef
	// Sniffed is the MIME type read from the first bytes.
	Sniffed string
	// HeadHash is the SHA-256 (hex) of the first MomentHeadBytes bytes
	// with the size: it finds a repeated file before anything is
	// uploaded. Hash is the SHA-256 of the whole content, known once
	// uploaded. Bytes is the size read.
	HeadHash string
	Hash     string
	Bytes    int64
	// Key is the service's media key once uploaded.
	Key string
}

// MomentHeadBytes is how much of a file HeadHash covers.
const MomentHeadBytes = 64 << 10

// MomentRecord is a post as the store keeps it.
type MomentRecord struct {
	ID          int64
	PlaceID     int64
	UserID      int64
	Platform    Platform
	Place       string
	Member      string
	Key         string
	DropID      int64
	Author      string
	Description string
	Channel     string
	Files       []MomentFile
	State       MomentState
	// MomentID is the service's id of the published Moment.
	MomentID  string
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MomentStore keeps posts, and whether a place allows them.
type MomentStore interface {
	// AddMoment records a checked post (in state MomentUploading unless r
	// says another) and returns it with its ID. When the place has a post
	// with the same non-empty Key it returns that one and ErrConflict; when
	// a file's HeadHash is in a post of the same user to the same drop
	// that has not failed, in any place, a *MomentRepeatError naming it;
	// both record nothing, so that of two posts racing one records.
	AddMoment(ctx context.Context, r MomentRecord) (MomentRecord, error)
	// UpdateMoment writes r's Author, Files, State, MomentID and Error; a
	// failed post gives up its files (they may be posted again).
	UpdateMoment(ctx context.Context, r MomentRecord) error
	// TouchMoment marks the post as alive: its UpdatedAt is now.
	TouchMoment(ctx context.Context, id int64) error
	// CountMoments counts the user's posts created at or after since, in
	// every state but failed.
	CountMoments(ctx context.Context, userID int64, since time.Time) (int, error)
	// UnfinishedMoments returns the posts not in a final state, oldest
	// first.
	UnfinishedMoments(ctx context.Context) ([]MomentRecord, error)
	// MomentsOff reports whether moderators turned Moments off in the
	// place; SetMomentsOff sets it.
	MomentsOff(ctx context.Context, placeID int64) (bool, error)
	SetMomentsOff(ctx context.Context, placeID int64, off bool) error
}

// MomentIssuer is what the MomentService needs of the issuing service and
// of Moments (poap.NewMomentIssuer).
type MomentIssuer interface {
	// HoldsDrop reports whether the address holds a POAP of the drop (one
	// scan by event). Errors: ErrIssuerUnavailable, ErrIssuerRejected.
	HoldsDrop(ctx context.Context, address string, dropID int64) (bool, error)
	// DropName is the drop's name; ErrUnknownEvent when there is none.
	DropName(ctx context.Context, dropID int64) (string, error)
	// UploadMedia streams size bytes of r, of MIME type contentType, to a
	// signed upload address, and returns the media key. Errors:
	// ErrMediaChanged when r held more or fewer than size bytes,
	// ErrIssuerRefused, ErrIssuerUnavailable, ErrIssuerRejected, or r's
	// own error.
	UploadMedia(ctx context.Context, r io.Reader, size int64, contentType string) (string, error)
	// WaitForMedia waits until the uploaded file is processed and returns
	// where it can be seen. Errors: ErrMediaInvalid when the service
	// refused its content, ErrMediaTimeout when it was still processing at
	// the deadline, ErrIssuerUnavailable.
	WaitForMedia(ctx context.Context, key string, size int64) (MomentMediaView, error)
	// CreateMoment publishes the Moment and returns its id. Errors:
	// ErrMediaInvalid (the service's 409: a key attached already or not
	// processed), ErrIssuerRefused (another 4xx, an *IssuerRefusal),
	// ErrIssuerUnavailable, ErrIssuerRejected.
	CreateMoment(ctx context.Context, m NewMoment) (string, error)
	// Moments lists published Moments, newest first.
	Moments(ctx context.Context, q MomentQuery) ([]MomentView, error)
}

// NewMoment is what CreateMoment publishes.
type NewMoment struct {
	Author      string
	DropID      int64
	Description string
	MediaKeys   []string
}

// MomentQuery selects Moments to list: of a drop, of an author, or all.
type MomentQuery struct {
	DropIDs []int64
	Author  string
	Limit   int
	Offset  int
}

// MomentView is a published Moment as /moments shows it.
type MomentView struct {
	ID          string
	Author      string
	Description string
	CreatedOn   time.Time
	DropIDs     []int64
	// Media are the files' addresses with their MIME types.
	Media []MomentMediaView
}

// MomentMediaView is a file of a listed Moment.
type MomentMediaView struct {
	Type string
	URL  string
}

// MomentAnnouncer is what an adapter's MediaOpener may also do: tell the
// place how a post it could not answer ended (a post resumed after a
// restart, whose progress reply is gone with the process).
type MomentAnnouncer interface {
	AnnounceMoment(ctx context.Context, n MomentNotice) error
}

// MomentNotice is how a resumed post ended: posted (Err nil, Media its
// files) or failed with Err.
type MomentNotice struct {
	Record MomentRecord
	Media  []MomentMediaView
	Err    error
}

// MomentStage is the step a post is at, for its progress reply.
type MomentStage int

// The steps of a post.
const (
	StageChecking MomentStage = iota
	StageUploading
	StageProcessing
)

// MomentProgress is where a post stands: at Stage, on file File of Files
// (1-based), Sent of Size bytes of it sent.
type MomentProgress struct {
	Stage MomentStage
	File  int
	Files int
	Sent  int64
	Size  int64
}

// MomentResult is a published post: its record, its drop's name and its
// files as Moments serves them.
type MomentResult struct {
	Record   MomentRecord
	DropName string
	Media    []MomentMediaView
}
