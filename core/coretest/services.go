package coretest

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/poapbot/poapbot/core"
)

// Services are the core's services, built together for tests of the layers
// above the core. The struct has the fields of bot.Services, so a test can
// convert it: bot.Services(coretest.NewServices(...)).
type Services struct {
	Wallets     *core.WalletService
	Collections *core.CollectionService
	Drops       *core.DropService
	Links       *core.MintLinkService
	Gates       *core.GateService
	Moments     *core.MomentService
	Buttons     *core.ButtonService
	// Websites, Deliveries and Networks are the services of website
	// claims, deliveries and drops' networks; nil ones are not offered.
	Websites   *core.WebsiteService
	Deliveries *core.DeliveryService
	Networks   *core.NetworkService
	// Attendance counts who attends voice channels; over a Store that is
	// not a core.AttendanceStore (MemStore) it knows no session.
	Attendance *core.AttendanceService
}

// Store is every store the services consume beside wallet linking:
// MemStore is one, and so is storage.DB.
type Store interface {
	core.MemberStore
	core.AuditLog
	core.DropStore
	core.MintLinkStore
	core.PostStore
	core.GateStore
	core.MomentStore
	core.ButtonStore
}

// Deps are what a test chooses of the services; NewServices fills the rest.
type Deps struct {
	// Store holds members, drops and posts; nil is a new MemStore.
	Store Store
	// Wallets links wallets; nil refuses every link (see NoWallets).
	Wallets core.WalletStore
	// Scanner reads holdings; nil reads none (see NoHoldings).
	Scanner core.Scanner
	// Issuer issues drops; nil knows none (see NoDrops).
	Issuer core.DropIssuer
	// GateIssuer reads holders for gating; nil knows no drop (see
	// NoGateIssuer, whose holdings are Scanner's).
	GateIssuer core.GateIssuer
	// Networks and NetworkStore serve drops' networks; with either nil
	// there is no network service (/drop network is not offered).
	Networks     core.NetworkIssuer
	NetworkStore core.NetworkStore
	// MomentIssuer defaults to NoMoments.
	MomentIssuer core.MomentIssuer
	// GateActions and Media are the platforms' adapters' parts in gating
	// and Moments, by platform; nil has none.
	GateActions map[core.Platform]core.GateActions
	Media       map[core.Platform]core.MediaOpener
	// Events hear of verified and unlinked wallets; nil is the gate
	// service.
	Events core.WalletEvents
	// WalletLimits are MAX_WALLETS and MAX_CHALLENGES; zero fields are the
	// defaults.
	WalletLimits core.LinkLimits
	// PublicURL makes the challenges of addresses EIP-4361 messages.
	PublicURL string
	MintURL   string
	BotName   string
	Clock     core.Clock
	Logger    *slog.Logger
}

// NewServices builds the core's services from d. It panics on an error,
// which only a wiring mistake in the test can cause.
func NewServices(d Deps) Services {
	if d.Store == nil {
		d.Store = NewMemStore()
	}
	if d.Wallets == nil {
		d.Wallets = NoWallets{}
	}
	if d.Scanner == nil {
		d.Scanner = NoHoldings{}
	}
	if d.Issuer == nil {
		d.Issuer = NoDrops{}
	}
	if d.GateIssuer == nil {
		d.GateIssuer = NoGateIssuer{Scanner: d.Scanner}
	}
	gates, err := core.NewGateService(core.GateServiceDeps{
		Members: d.Store, Gates: d.Store, Issuer: d.GateIssuer, Locks: NewLocks(), Audit: d.Store,
		Check: NoIssuerCheck{}, Actions: d.GateActions, Clock: d.Clock, Logger: d.Logger,
	})
	must(err)
	if d.Events == nil {
		d.Events = gates
	}
	wallets, err := core.NewWalletService(core.WalletServiceDeps{
		Members: d.Store, Wallets: d.Wallets, Events: d.Events, BotName: d.BotName, Limits: d.WalletLimits,
		Clock: d.Clock, Logger: d.Logger, PublicURL: d.PublicURL,
	})
	must(err)
	collections, err := core.NewCollectionService(core.CollectionServiceDeps{Members: d.Store, Scanner: d.Scanner})
	must(err)
	links, err := core.NewMintLinkService(core.MintLinkServiceDeps{
		Members: d.Store, Drops: d.Store, MintLinks: d.Store, Audit: d.Store, Issuer: d.Issuer, Mints: NoMintEvents{},
		MintURL: d.MintURL, Clock: d.Clock, Logger: d.Logger,
	})
	must(err)
	var networks *core.NetworkService
	if d.Networks != nil && d.NetworkStore != nil {
		networks, err = core.NewNetworkService(core.NetworkServiceDeps{
			Members: d.Store, Drops: d.Store, Audit: d.Store, Issuer: d.Networks, Store: d.NetworkStore, Clock: d.Clock, Logger: d.Logger,
		})
		must(err)
	}
	attendanceStore, ok := d.Store.(core.AttendanceStore)
	if !ok {
		attendanceStore = NoAttendance{}
	}
	attendance, err := core.NewAttendanceService(core.AttendanceServiceDeps{
		Members: d.Store, Drops: d.Store, Store: attendanceStore, Audit: d.Store, Clock: d.Clock, Logger: d.Logger,
	})
	must(err)
	drops, err := core.NewDropService(core.DropServiceDeps{
		Members: d.Store, Drops: d.Store, MintLinks: d.Store, Posts: d.Store, Audit: d.Store,
		Issuer: d.Issuer, Links: links, Attendance: attendance, Networks: networks, Clock: d.Clock, Logger: d.Logger,
	})
	must(err)
	if d.MomentIssuer == nil {
		d.MomentIssuer = NoMoments{}
	}
	moments, err := core.NewMomentService(core.MomentServiceDeps{
		Members: d.Store, Store: d.Store, Issuer: d.MomentIssuer, Locks: NewLocks(), Media: d.Media, Clock: d.Clock, Logger: d.Logger,
	})
	must(err)
	buttons, err := core.NewButtonService(core.ButtonServiceDeps{Store: d.Store, Clock: d.Clock, Logger: d.Logger})
	must(err)
	return Services{Wallets: wallets, Collections: collections, Drops: drops, Links: links, Gates: gates, Moments: moments, Buttons: buttons,
		Networks: networks, Attendance: attendance}
}

func must(err error) {
	if err != nil {
		panic("coretest: " + err.Error())
	}
}

// errNotInTest is what the stand-ins answer: the test did not set up what
// was asked of them.
var errNotInTest = errors.New("coretest: not set up in this test")

// NoWallets is a core.WalletStore for tests that link no wallet: every
// method fails.
type NoWallets struct{}

// LinkWallet fails.
func (NoWallets) LinkWallet(context.Context, core.User, core.Wallet, *core.Challenge, core.LinkLimits) (core.Linked, error) {
	return core.Linked{}, errNotInTest
}

// ChallengeByNonce finds none.
func (NoWallets) ChallengeByNonce(context.Context, string) (core.Challenge, error) {
	return core.Challenge{}, core.ErrNotFound
}

// RecentChallenges finds none.
func (NoWallets) RecentChallenges(context.Context, int64, int) ([]core.Challenge, error) {
	return nil, nil
}

// FailChallenge finds none.
func (NoWallets) FailChallenge(context.Context, string) (int, error) {
	return 0, core.ErrNotFound
}

// UseChallenge finds none.
func (NoWallets) UseChallenge(context.Context, string, string, int64, time.Time) (core.Verification, error) {
	return core.Verification{}, core.ErrNoChallenge
}

// UnlinkWallets finds nothing to unlink.
func (NoWallets) UnlinkWallets(context.Context, int64, string) (core.Unlinked, error) {
	return core.Unlinked{}, core.ErrNotFound
}

// ForgetUser finds nobody.
func (NoWallets) ForgetUser(context.Context, core.Platform, string) (core.Forgotten, error) {
	return core.Forgotten{}, core.ErrNotFound
}

// NoMintEvents is a core.MintEvents that hears nothing: the services of
// tests above the core re-evaluate no gate when they mint.
type NoMintEvents struct{}

// Minted does nothing.
func (NoMintEvents) Minted(context.Context, core.User, string) {}

// NoHoldings is a core.Scanner of wallets that hold nothing.
type NoHoldings struct{}

// Holdings returns none.
func (NoHoldings) Holdings(context.Context, string) ([]core.Holding, error) { return nil, nil }

// NoDrops is a core.DropIssuer that knows no drop.
type NoDrops struct{}

// ValidateEditCode knows no drop.
func (NoDrops) ValidateEditCode(context.Context, int64, core.Secret) (bool, error) {
	return false, core.ErrUnknownEvent
}

// DropDetails knows no drop.
func (NoDrops) DropDetails(context.Context, int64) (core.DropDetails, error) {
	return core.DropDetails{}, core.ErrUnknownEvent
}

// MintLinks knows no drop.
func (NoDrops) MintLinks(context.Context, int64, core.Secret) ([]core.ImportedMintLink, error) {
	return nil, core.ErrUnknownEvent
}

// ClaimStatus fails.
func (NoDrops) ClaimStatus(context.Context, string) (core.MintLinkStatus, error) {
	return core.MintLinkStatus{}, errNotInTest
}

// Mint fails.
func (NoDrops) Mint(context.Context, string, string) (string, error) { return "", errNotInTest }

// RequestMintLinks knows no drop.
func (NoDrops) RequestMintLinks(context.Context, int64, core.Secret, int) error {
	return core.ErrUnknownEvent
}

// PendingMintLinkRequests knows no drop.
func (NoDrops) PendingMintLinkRequests(context.Context, int64) (int, error) {
	return 0, core.ErrUnknownEvent
}

// Locks is a core.Exclusive within one process: a held name is refused,
// never waited for.
type Locks struct {
	mu   sync.Mutex
	held map[string]bool
}

// NewLocks returns locks of which none is held.
func NewLocks() *Locks { return &Locks{held: map[string]bool{}} }

// TryExclusive runs fn unless name is held.
func (l *Locks) TryExclusive(ctx context.Context, name string, fn func(context.Context) error) (bool, error) {
	l.mu.Lock()
	if l.held[name] {
		l.mu.Unlock()
		return false, nil
	}
	l.held[name] = true
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.held, name)
		l.mu.Unlock()
	}()
	return true, fn(ctx)
}

// NoGateIssuer is a core.GateIssuer that knows no drop; its holdings are
// those of Scanner.
type NoGateIssuer struct {
	core.Scanner
}

// DropHolders knows no drop.
func (NoGateIssuer) DropHolders(context.Context, int64, int) (core.HolderPage, error) {
	return core.HolderPage{}, core.ErrUnknownEvent
}

// DropDetails knows no drop.
func (NoGateIssuer) DropDetails(context.Context, int64) (core.DropDetails, error) {
	return core.DropDetails{}, core.ErrUnknownEvent
}

// NoIssuerCheck is a core.IssuerCheck with one line: not checked in tests.
type NoIssuerCheck struct{}

// CheckIssuer says the test checks nothing.
func (NoIssuerCheck) CheckIssuer(context.Context) []core.SetupLine {
	return []core.SetupLine{{Check: "issuing service (not checked in tests)", OK: true}}
}
