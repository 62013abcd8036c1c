package poap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/poap/wire"
)

// secretNotRequired is what the status read now returns in place of a mint
// secret: the service stopped checking it (the official SDK stopped sending
// it in 0.20), so it must not be sent back as if it were one.
const secretNotRequired = "NOT_REQUIRED_ANYMORE"

// Claim is a mint link's claim record, as GET /actions/claim-qr and POST
// /website/claim return it: whether the link was used, by whom, its
// transaction and its drop. Every field may be absent.
type Claim struct {
	ID     int64
	QRHash string
	// EventID is the drop's id; Event the drop itself.
	EventID int64
	Event   Drop
	// Claimed says the link was used; Mint refuses it with ErrQRClaimed.
	Claimed bool
	// IsActive false means the link expired; Mint refuses it with
	// ErrQRExpired.
	IsActive bool
	// Beneficiary is the address or e-mail the token went to, UserInput
	// what the collector typed (address, ENS or e-mail), Signer the
	// address that signed the mint.
	Beneficiary string
	UserInput   string
	Signer      string
	// TxHash and TxStatus ("waiting_tx", "pending", "passed", "failed",
	// "bumped", or "") follow the mint's transaction.
	TxHash   string
	TxStatus string
	// TokenID is the minted token's id once indexed (the record's
	// result.token), or "".
	TokenID     string
	ClaimedDate time.Time
	CreatedDate time.Time
	// Secret is the mint secret the service returned, redacted when
	// printed; empty when it is not a real value (absent or
	// "NOT_REQUIRED_ANYMORE"). MintWithSecret takes it.
	Secret core.Secret
}

// claimJSON is a claim record as the service writes it.
type claimJSON struct {
	ID          int64     `json:"id"`
	QRHash      string    `json:"qr_hash"`
	EventID     int64     `json:"event_id"`
	Event       Drop      `json:"event"`
	Claimed     bool      `json:"claimed"`
	IsActive    bool      `json:"is_active"`
	Beneficiary string    `json:"beneficiary"`
	UserInput   string    `json:"user_input"`
	Signer      string    `json:"signer"`
	TxHash      string    `json:"tx_hash"`
	TxStatus    string    `json:"tx_status"`
	ClaimedDate timestamp `json:"claimed_date"`
	CreatedDate timestamp `json:"created_date"`
	Secret      string    `json:"secret"`
	Result      *struct {
		Token flexString `json:"token"`
	} `json:"result"`
}

// UnmarshalJSON reads a claim record in the service's format.
func (cl *Claim) UnmarshalJSON(b []byte) error {
	var w claimJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*cl = Claim{
		ID: w.ID, QRHash: w.QRHash, EventID: w.EventID, Event: w.Event, Claimed: w.Claimed, IsActive: w.IsActive,
		Beneficiary: w.Beneficiary, UserInput: w.UserInput, Signer: w.Signer, TxHash: w.TxHash, TxStatus: w.TxStatus,
		ClaimedDate: w.ClaimedDate.Time, CreatedDate: w.CreatedDate.Time,
	}
	if realSecret(w.Secret) {
		cl.Secret = core.Secret(strings.TrimSpace(w.Secret))
	}
	if w.Result != nil {
		cl.TokenID = string(w.Result.Token)
	}
	return nil
}

// realSecret reports whether s is a mint secret worth sending back.
func realSecret(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && !strings.EqualFold(s, secretNotRequired)
}

// ClaimStatus reads the claim record of the mint link qrHash: GET
// /actions/claim-qr?qr_hash=, a protected read. It is also how a caller
// finds out whether a mint whose answer was lost went through. Errors:
// ErrNotFound for an unknown link (the service answers 404, or 400 "Qr
// Claim not found"), ErrInvalidInput for an empty hash, ErrUnauthorized (also
// without client credentials), ErrRateLimited, ErrUnavailable; answers of
// the service come as *APIError.
func (c *Client) ClaimStatus(ctx context.Context, qrHash string) (Claim, error) {
	if err := checkRequired(wire.OpClaimStatus, "qr_hash", qrHash); err != nil {
		return Claim{}, err
	}
	var cl Claim
	r := request{
		op:         wire.OpClaimStatus,
		method:     http.MethodGet,
		path:       "/actions/claim-qr",
		query:      url.Values{"qr_hash": {strings.TrimSpace(qrHash)}},
		access:     keyAndBearer,
		audience:   c.audience,
		idempotent: true,
	}
	if err := c.do(ctx, r, &cl); err != nil {
		return Claim{}, err
	}
	return cl, nil
}

// MintInput is a mint through a mint link.
type MintInput struct {
	// QRHash is the link's six-character code.
	QRHash string
	// Address receives the token: a 0x address, an ENS name or an e-mail
	// (the token is then reserved for it).
	Address string
	// SendEmail asks the service to e-mail the collector; the official
	// SDK sets it for e-mail reservations only.
	SendEmail bool
}

// MintResult is the service's answer to a mint: the claim record without
// its transaction, plus the id to follow the mint with.
type MintResult struct {
	ID          int64
	QRHash      string
	EventID     int64
	Event       Drop
	Beneficiary string
	UserInput   string
	Signer      string
	Claimed     bool
	IsActive    bool
	ClaimedDate time.Time
	CreatedDate time.Time
	// TransactionRequestID is the id for TransactionRequest, in current
	// answers; zero when absent.
	TransactionRequestID int64
	// QueueUID is the queue id of older answers, or "".
	QueueUID string
}

// UnmarshalJSON reads a mint answer: transaction_request_id (a number) in
// current answers, queue_uid (a string, or a number in old examples) before.
func (m *MintResult) UnmarshalJSON(b []byte) error {
	var w struct {
		claimJSON
		TransactionRequestID flexInt    `json:"transaction_request_id"`
		QueueUID             flexString `json:"queue_uid"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = MintResult{
		ID: w.ID, QRHash: w.QRHash, EventID: w.EventID, Event: w.Event, Beneficiary: w.Beneficiary,
		UserInput: w.UserInput, Signer: w.Signer, Claimed: w.Claimed, IsActive: w.IsActive,
		ClaimedDate: w.ClaimedDate.Time, CreatedDate: w.CreatedDate.Time,
		TransactionRequestID: int64(w.TransactionRequestID), QueueUID: string(w.QueueUID),
	}
	return nil
}

// Mint mints the POAP of mint link in.QRHash to in.Address in two steps, as
// the service expects: it reads the claim status (ClaimStatus), refuses
// locally a link already claimed (ErrQRClaimed) or inactive (ErrQRExpired)
// without sending the mint, then sends POST /actions/claim-qr with the
// secret the status returned (MintWithSecret).
//
// A mint is never retried by the client. When Mint fails with
// ErrUnavailable or a timeout, the mint may or may not have happened: call
// ClaimStatus before anything else, and treat the link as minted when it is
// claimed for the same beneficiary. When the error also matches ErrNotSent
// (the status read failed, no access token could be had...), the mint never
// left and nothing happened.
//
// Errors: ErrQRClaimed, ErrQRExpired, ErrAlreadyMinted (the address holds
// this drop already), ErrInvalidAddress (also for an empty address, before
// sending), ErrNotFound for an unknown link, ErrUnauthorized,
// ErrRateLimited, ErrUnavailable, ErrNotSent with the failure before the
// mint; answers of the service come as *APIError.
func (c *Client) Mint(ctx context.Context, in MintInput) (MintResult, error) {
	if err := in.validate(); err != nil {
		return MintResult{}, err
	}
	status, err := c.ClaimStatus(ctx, in.QRHash)
	switch {
	case errors.Is(err, ErrNotSent):
		return MintResult{}, err
	case err != nil:
		// The status read failed; the mint itself never left.
		return MintResult{}, fmt.Errorf("poap: %s: %w: %w", wire.OpMint, err, ErrNotSent)
	}
	switch {
	case status.Claimed:
		return MintResult{}, fmt.Errorf("poap: %s: %w", wire.OpMint, ErrQRClaimed)
	case !status.IsActive:
		return MintResult{}, fmt.Errorf("poap: %s: %w", wire.OpMint, ErrQRExpired)
	}
	return c.MintWithSecret(ctx, in, status.Secret)
}

// MintWithSecret sends the mint alone: POST /actions/claim-qr with
// {address, qr_hash, secret, sendEmail}, a protected write. secret is the
// one ClaimStatus returned; it is sent only when it is a real value, never
// empty nor "NOT_REQUIRED_ANYMORE", since the service stopped requiring it.
// It is for callers that read the status themselves, such as after a lost
// answer; Mint does both steps. Errors: those of Mint, without the local
// status checks.
func (c *Client) MintWithSecret(ctx context.Context, in MintInput, secret core.Secret) (MintResult, error) {
	if err := in.validate(); err != nil {
		return MintResult{}, err
	}
	payload := struct {
		Address   string `json:"address"`
		QRHash    string `json:"qr_hash"`
		Secret    string `json:"secret,omitempty"`
		SendEmail bool   `json:"sendEmail"`
	}{Address: strings.TrimSpace(in.Address), QRHash: strings.TrimSpace(in.QRHash), SendEmail: in.SendEmail}
	if realSecret(secret.Reveal()) {
		payload.Secret = strings.TrimSpace(secret.Reveal())
	}
	body, err := jsonBody(payload)
	if err != nil {
		return MintResult{}, err
	}
	var res MintResult
	r := request{
		op: wire.OpMint, method: http.MethodPost, path: "/actions/claim-qr",
		access: keyAndBearer, audience: c.audience, body: body, contentType: "application/json",
		idempotent: false, // a blind retry could mint twice; callers reconcile with ClaimStatus
		secrets:    []string{payload.Secret},
	}
	if err := c.do(ctx, r, &res); err != nil {
		return MintResult{}, err
	}
	return res, nil
}

// validate checks a mint's input before anything is sent.
func (in MintInput) validate() error {
	if strings.TrimSpace(in.Address) == "" {
		return fieldError(wire.OpMint, "address", "it is required")
	}
	return checkRequired(wire.OpMint, "qr_hash", in.QRHash)
}
