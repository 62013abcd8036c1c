package coretest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
)

// ImportMintLinks adds unknown links and sets aside available ones claimed.
func (s *MemStore) ImportMintLinks(_ context.Context, dropID int64, links []core.ImportedMintLink) (int, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	added, marked := s.importLocked(dropID, links, time.Now())
	return added, marked, nil
}

func (s *MemStore) importLocked(dropID int64, links []core.ImportedMintLink, at time.Time) (added, marked int) {
	for _, in := range links {
		i := slices.IndexFunc(s.links, func(l core.MintLink) bool { return l.DropID == dropID && l.QRHash == in.QRHash })
		switch {
		case i < 0:
			l := core.MintLink{ID: int64(len(s.links) + 1), DropID: dropID, QRHash: in.QRHash, State: core.MintLinkAvailable, UpdatedAt: at}
			if in.Claimed {
				l.State, l.ClaimedAt = core.MintLinkClaimedElsewhere, &at
			} else {
				delete(s.lowTold, dropID)
			}
			s.links = append(s.links, l)
			added++
		case in.Claimed && s.links[i].State == core.MintLinkAvailable:
			s.links[i].State, s.links[i].ClaimedAt, s.links[i].UpdatedAt = core.MintLinkClaimedElsewhere, &at, at
			marked++
		}
	}
	return added, marked
}

// Stock counts the drop's links by state.
func (s *MemStore) Stock(_ context.Context, dropID int64) (core.Stock, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st core.Stock
	for _, l := range s.links {
		if l.DropID != dropID {
			continue
		}
		st.Total++
		switch l.State {
		case core.MintLinkAvailable:
			st.Available++
		case core.MintLinkHandedOut:
			st.HandedOut++
		case core.MintLinkMinting:
			st.Minting++
		case core.MintLinkMinted:
			st.Minted++
		case core.MintLinkClaimedElsewhere:
			st.ClaimedElsewhere++
		}
	}
	return st, nil
}

// ClaimMintLink gives the user their link of the drop, or the next available
// one.
func (s *MemStore) ClaimMintLink(_ context.Context, dropID, userID int64, wallet string, at time.Time) (core.MintLink, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.links, func(l core.MintLink) bool {
		return l.DropID == dropID && l.UserID != nil && *l.UserID == userID
	}); i >= 0 {
		return s.links[i], true, nil
	}
	if wallet != "" && slices.ContainsFunc(s.links, func(l core.MintLink) bool { return l.DropID == dropID && strings.EqualFold(l.Wallet, wallet) }) {
		return core.MintLink{}, false, core.ErrWalletClaimed
	}
	i := slices.IndexFunc(s.links, func(l core.MintLink) bool { return l.DropID == dropID && l.State == core.MintLinkAvailable })
	if i < 0 {
		if d := s.drop(dropID); d != nil && d.RemovedAt != nil {
			return core.MintLink{}, false, core.ErrDropRemoved
		}
		return core.MintLink{}, false, core.ErrNoMintLinksLeft
	}
	l := &s.links[i]
	uid := userID
	l.State, l.UserID, l.Wallet, l.ClaimedAt, l.UpdatedAt = core.MintLinkHandedOut, &uid, wallet, &at, at
	return *l, false, nil
}

// MemberMintLink returns the user's link of the drop, or core.ErrNotFound.
func (s *MemStore) MemberMintLink(_ context.Context, dropID, userID int64) (core.MintLink, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.links, func(l core.MintLink) bool {
		return l.DropID == dropID && l.UserID != nil && *l.UserID == userID
	}); i >= 0 {
		return s.links[i], nil
	}
	return core.MintLink{}, core.ErrNotFound
}

// BeginMint sets the user's handed-out link minting to wallet, as a new
// attempt held until at plus core.MintLease.
func (s *MemStore) BeginMint(_ context.Context, linkID int64, wallet string, at time.Time) (core.MintLink, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.link(linkID)
	if l == nil || l.UserID == nil || l.State != core.MintLinkHandedOut {
		return core.MintLink{}, core.ErrConflict
	}
	if slices.ContainsFunc(s.links, func(o core.MintLink) bool {
		return o.DropID == l.DropID && o.ID != l.ID && strings.EqualFold(o.Wallet, wallet)
	}) {
		return core.MintLink{}, core.ErrWalletClaimed
	}
	l.State, l.Wallet, l.UpdatedAt = core.MintLinkMinting, wallet, at
	l.Attempt++
	l.LeaseUntil = at.Add(core.MintLease)
	return *l, nil
}

// FinishMint records the outcome of the sender's attempt: from minting,
// or from handed_out for minted or claimed elsewhere, that attempt still.
func (s *MemStore) FinishMint(_ context.Context, linkID int64, attempt int, state core.MintLinkState, tx string, at time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.link(linkID)
	switch {
	case l == nil:
		return false, core.ErrNotFound
	case l.Attempt == attempt && attempt > 0 && (l.State == core.MintLinkMinting || l.State == core.MintLinkHandedOut && state != core.MintLinkHandedOut):
		s.endLocked(l, state, tx, at)
		return true, nil
	case l.State == state:
		if l.TransactionID == "" {
			l.TransactionID = tx
		}
		return false, nil
	}
	return false, core.ErrConflict
}

// SettleMint records the outcome of an attempt whose lease ran out, or a
// mint at any time.
func (s *MemStore) SettleMint(_ context.Context, linkID int64, attempt int, state core.MintLinkState, at time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.link(linkID)
	switch {
	case l == nil:
		return false, core.ErrNotFound
	case l.Attempt != attempt:
		return false, core.ErrConflict
	case l.State == core.MintLinkMinting && (state == core.MintLinkMinted || !at.Before(l.LeaseUntil)),
		l.State == core.MintLinkHandedOut && state == core.MintLinkMinted:
		s.endLocked(l, state, "", at)
		return true, nil
	case l.State == state:
		return false, nil
	}
	return false, core.ErrConflict
}

// endLocked records a mint's outcome. A link claimed elsewhere leaves its
// member and wallet: neither got anything through it.
func (s *MemStore) endLocked(l *core.MintLink, state core.MintLinkState, tx string, at time.Time) {
	l.State, l.UpdatedAt, l.LeaseUntil = state, at, time.Time{}
	if state == core.MintLinkClaimedElsewhere {
		l.UserID, l.Wallet = nil, ""
	}
	if tx != "" {
		l.TransactionID = tx
	}
}

// ReleaseMint ends the lease of the link's minting attempt at at.
func (s *MemStore) ReleaseMint(_ context.Context, linkID int64, attempt int, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.link(linkID)
	if l == nil || l.State != core.MintLinkMinting || l.Attempt != attempt {
		return core.ErrConflict
	}
	l.LeaseUntil = at
	return nil
}

// PendingMints lists the links left minting whose lease ran out by now.
func (s *MemStore) PendingMints(_ context.Context, now time.Time) ([]core.MintLink, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.MintLink
	for _, l := range s.links {
		if l.State == core.MintLinkMinting && !now.Before(l.LeaseUntil) {
			out = append(out, l)
		}
	}
	return out, nil
}

// ExportMintLinks lists the drop's links that left the pool, the member as a
// hash of their id.
func (s *MemStore) ExportMintLinks(_ context.Context, dropID int64) ([]core.ExportRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []core.ExportRow
	for _, l := range s.links {
		if l.DropID != dropID || l.State == core.MintLinkAvailable {
			continue
		}
		row := core.ExportRow{QRHash: l.QRHash, Wallet: l.Wallet, State: l.State}
		if l.ClaimedAt != nil {
			row.At = *l.ClaimedAt
		}
		if l.UserID != nil {
			sum := sha256.Sum256([]byte("member:" + strconv.FormatInt(*l.UserID, 10)))
			row.Member = hex.EncodeToString(sum[:8])
		}
		out = append(out, row)
	}
	return out, nil
}

// NoteLowStock marks the drop's low stock, once per shortage.
func (s *MemStore) NoteLowStock(_ context.Context, dropID int64, _ time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.drop(dropID)
	if d == nil || d.RemovedAt != nil || d.LowStock <= 0 || s.lowTold[dropID] {
		return false, nil
	}
	available := 0
	for _, l := range s.links {
		if l.DropID == dropID && l.State == core.MintLinkAvailable {
			available++
		}
	}
	if available >= d.LowStock {
		return false, nil
	}
	s.lowTold[dropID] = true
	s.lowDue[dropID] = true
	return true, nil
}

func (s *MemStore) drop(id int64) *core.Drop {
	for i := range s.drops {
		if s.drops[i].ID == id {
			return &s.drops[i]
		}
	}
	return nil
}

func (s *MemStore) link(id int64) *core.MintLink {
	for i := range s.links {
		if s.links[i].ID == id {
			return &s.links[i]
		}
	}
	return nil
}
