package core

import (
	"context"
	"errors"
	"fmt"
)

// recentLimit bounds the member's challenges read to tell a signature of
// an older message from a signature by another wallet.
const recentLimit = 20

// Verify completes the member's latest challenge with a signature of its
// message (EIP-191 personal_sign) and returns the wallet, now verified. For
// an ENS name, the recovered address is stored beside the name: the bot
// does not resolve names on chain, so it is the signer that is proven.
// Errors: ErrNoChallenge when the member has none (ErrEmailNotVerifiable
// when they linked only e-mails), ErrChallengeUsed when the latest was used
// already, ErrChallengeExpired, ErrBadSignature for a malformed signature,
// ErrSignatureOldMessage when an earlier challenge's message was signed,
// ErrSignatureAltered when an altered copy was signed, and a
// *SignatureError (ErrSignatureMismatch) naming the recovered address.
// A signature the wallet's key did not make is asked of the configured
// chains, in case the wallet is a smart contract (ERC-1271, ERC-6492): the
// wallet returned then names the chain that accepted it (VerifiedChain). A
// chain that could not be asked, when none accepted it, is a *ChainError
// (ErrChainUnavailable), which counts for nothing; without chains, a
// mismatch comes with ErrChainsNotConfigured too, and a signature shaped
// like a contract's is ErrChainsNotConfigured alone, which counts for
// nothing.
// A malformed signature and a mismatch are counted against the challenge:
// the one that reaches MaxWrongSignatures, and any signature after it,
// right or wrong, gets ErrChallengeLocked (the first wrapping the reason
// too). A signature of an earlier message or of an altered copy is the
// wallet's own key at work, its owner's mistake rather than a guess, and
// counts for nothing.
func (s *WalletService) Verify(ctx context.Context, m Member, signature string) (Wallet, error) {
	user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return Wallet{}, ErrNoChallenge
	}
	if err != nil {
		return Wallet{}, wrap("verify", err)
	}
	recent, err := s.wallets.RecentChallenges(ctx, user.ID, recentLimit)
	if err != nil {
		return Wallet{}, wrap("verify", err)
	}
	if len(recent) == 0 {
		return Wallet{}, s.noChallenge(ctx, user.ID)
	}
	// /verify carries only the signature: the signed text is the stored
	// message, which prove still holds to the challenge.
	return s.prove(ctx, recent[0], recent[1:], "", signature)
}

// Pending returns the member's latest challenge, the one Verify completes,
// for a signer that needs its message (the sandbox's /sign). It may be
// used, locked or expired already: Verify says so. Errors: ErrNoChallenge
// when the member has none (ErrEmailNotVerifiable when they linked only
// e-mails).
func (s *WalletService) Pending(ctx context.Context, m Member) (Challenge, error) {
	user, err := s.members.FindUser(ctx, m.Platform, m.ExternalID)
	if errors.Is(err, ErrNotFound) {
		return Challenge{}, ErrNoChallenge
	}
	if err != nil {
		return Challenge{}, wrap("pending challenge", err)
	}
	recent, err := s.wallets.RecentChallenges(ctx, user.ID, 1)
	if err != nil {
		return Challenge{}, wrap("pending challenge", err)
	}
	if len(recent) == 0 {
		return Challenge{}, s.noChallenge(ctx, user.ID)
	}
	return recent[0], nil
}

// Challenge returns the challenge with that nonce, for the verification
// page. A challenge that can no longer be signed comes back with
// ErrChallengeUsed, ErrChallengeLocked or ErrChallengeExpired, so the page
// can still say what it was for. An unknown or malformed nonce is
// ErrNoChallenge.
func (s *WalletService) Challenge(ctx context.Context, nonce string) (Challenge, error) {
	if !validNonce(nonce) {
		return Challenge{}, ErrNoChallenge
	}
	c, err := s.wallets.ChallengeByNonce(ctx, nonce)
	if errors.Is(err, ErrNotFound) {
		return Challenge{}, ErrNoChallenge
	}
	if err != nil {
		return Challenge{}, wrap("challenge", err)
	}
	return c, s.usable(c)
}

// VerifyChallenge completes the challenge with that nonce, for the
// verification page, with the checks and errors of Verify.
func (s *WalletService) VerifyChallenge(ctx context.Context, nonce, signature string) (Wallet, error) {
	return s.VerifyMessage(ctx, nonce, "", signature)
}

// VerifyMessage is VerifyChallenge told the text that was signed, as the
// verification page knows it (empty when unknown). A text other than the
// challenge's message is refused, before its signature is looked at and
// without counting against the challenge, with ErrMessageMalformed or a
// *MessageError naming the first term that differs (ErrMessageDomain,
// ErrMessageURI, ErrMessageAddress, ErrMessageNonce, ErrMessageChain,
// ErrMessageTime, ErrMessageChanged).
func (s *WalletService) VerifyMessage(ctx context.Context, nonce, message, signature string) (Wallet, error) {
	c, err := s.Challenge(ctx, nonce)
	if err != nil {
		return Wallet{}, err
	}
	recent, err := s.wallets.RecentChallenges(ctx, c.UserID, recentLimit)
	if err != nil {
		return Wallet{}, wrap("verify", err)
	}
	others := make([]Challenge, 0, len(recent))
	for _, o := range recent {
		if o.ID != c.ID {
			others = append(others, o)
		}
	}
	return s.prove(ctx, c, others, message, signature)
}

// prove checks the signature against challenge c and, if it holds, uses
// the challenge; if it does not, it counts the wrong signature. others are
// the member's other recent challenges; signed is the text the member
// signed, when known (see checkMessage).
func (s *WalletService) prove(ctx context.Context, c Challenge, others []Challenge, signed, signature string) (_ Wallet, err error) {
	defer func() { s.count(ActVerification, c.Platform, verifyOutcome(err)) }()
	if err := s.usable(c); err != nil {
		return Wallet{}, err
	}
	if err := s.checkMessage(c, signed); err != nil {
		return Wallet{}, err
	}
	address, chain, err := s.signedBy(ctx, c, others, signature)
	if errors.Is(err, ErrSignatureOldMessage) || errors.Is(err, ErrSignatureAltered) || errors.Is(err, ErrChainUnavailable) {
		return Wallet{}, err // the right key, another text, or no answer: no guess
	}
	if errors.Is(err, ErrChainsNotConfigured) && !errors.Is(err, ErrSignatureMismatch) {
		return Wallet{}, err // a contract's signature, and no chain to ask: not judged
	}
	if err != nil {
		return Wallet{}, s.wrongSignature(ctx, c, err)
	}
	v, err := s.wallets.UseChallenge(ctx, c.Nonce, address, chain, s.clock.Now())
	if err != nil {
		return Wallet{}, wrap("verify", err)
	}
	s.log.InfoContext(ctx, "wallet verified", "user", v.User.ID, "wallet", v.Wallet.ID, "moved", len(v.Moved), "chain", chain)
	s.events.WalletVerified(ctx, v.User, v.Wallet, v.Moved)
	v.Wallet.VerifiedChain = chain
	return v.Wallet, nil
}

// signedBy returns the address that signed c's message and, when a
// smart-contract wallet's contract accepted the signature rather than a
// key, the chain it did so on (zero for a key's signature). A signature
// that is not the wallet key's is asked of the configured chains
// (contractSigner).
func (s *WalletService) signedBy(ctx context.Context, c Challenge, others []Challenge, signature string) (string, int64, error) {
	sig, err := parseSignature(signature)
	if err == nil {
		var address string
		if address, err = signer(c, others, sig); err == nil {
			return address, 0, nil
		}
	}
	var mismatch *SignatureError
	if errors.Is(err, ErrBadSignature) || errors.As(err, &mismatch) {
		return s.contractSigner(ctx, c, signature, err)
	}
	return "", 0, err
}

// usable says why challenge c can no longer be signed, if it cannot.
func (s *WalletService) usable(c Challenge) error {
	switch {
	case c.UsedAt != nil:
		return ErrChallengeUsed
	case !s.clock.Now().Before(c.ExpiresAt):
		return ErrChallengeExpired
	case c.WrongSignatures >= MaxWrongSignatures:
		return ErrChallengeLocked
	}
	return nil
}

// wrongSignature counts a signature that did not prove c, then returns
// why (reason), with ErrChallengeLocked too when that was the last one c
// takes. The count is stored before the member hears anything, so that a
// stream of wrong signatures locks the challenge even when they arrive
// side by side: if it cannot be stored, the member gets the store's error
// instead of another try.
func (s *WalletService) wrongSignature(ctx context.Context, c Challenge, reason error) error {
	n, err := s.wallets.FailChallenge(ctx, c.Nonce)
	switch {
	case errors.Is(err, ErrNotFound):
		// Used meanwhile, by the right signature sent beside this one.
		return reason
	case err != nil:
		return wrap("verify", err)
	case n >= MaxWrongSignatures:
		s.log.InfoContext(ctx, "challenge locked", "user", c.UserID, "wallet", c.WalletID, "wrong", n)
		return fmt.Errorf("%w: %w", ErrChallengeLocked, reason)
	}
	return reason
}

// signer returns the address that signed c's message, or says what was
// signed instead.
func signer(c Challenge, others []Challenge, sig []byte) (string, error) {
	recovered, err := recoverAddress(c.Message, sig)
	if err != nil {
		return "", err
	}
	if c.Address != "" && recovered == c.Address {
		return recovered, nil
	}
	if err := otherText(c, others, sig); err != nil {
		return "", err
	}
	if c.Address == "" {
		// An ENS name: whoever signed is the owner proven.
		return recovered, nil
	}
	return "", &SignatureError{Recovered: recovered, Want: c.Address}
}

// otherText reports ErrSignatureOldMessage when sig is a good signature of
// an earlier challenge's message, and ErrSignatureAltered when it is a
// good signature of an altered copy of c's message. Neither can be told
// for an ENS name, whose address is not known before it signs.
func otherText(c Challenge, others []Challenge, sig []byte) error {
	for _, o := range others {
		if o.Address == "" {
			continue
		}
		if r, err := recoverAddress(o.Message, sig); err == nil && r == o.Address {
			return ErrSignatureOldMessage
		}
	}
	if c.Address == "" {
		return nil
	}
	for _, text := range alteredCopies(c.Message) {
		if r, err := recoverAddress(text, sig); err == nil && r == c.Address {
			return ErrSignatureAltered
		}
	}
	return nil
}

// noChallenge is the error for a member without challenges: they may have
// linked only e-mails, which cannot sign.
func (s *WalletService) noChallenge(ctx context.Context, userID int64) error {
	wallets, err := s.members.Wallets(ctx, userID)
	if err != nil || len(wallets) == 0 {
		return ErrNoChallenge
	}
	for _, w := range wallets {
		if w.Kind != KindEmail {
			return ErrNoChallenge
		}
	}
	return ErrEmailNotVerifiable
}
