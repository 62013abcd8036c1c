// Package chain is a small JSON-RPC client of EVM chains: the few calls
// (eth_chainId, eth_call) the bot needs to check the
// signatures of smart-contract wallets, ERC-1271 and ERC-6492
// (https://ethereum.org/en/developers/docs/apis/json-rpc/). Every call is
// bounded: its time, the size of what it sends and of what it reads, and
// the gas of an eth_call. An endpoint's URL may carry an API key, so no
// error, log line or reply names more of it than its host.
package chain

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/poapbot/poapbot/core"
)

// Bounds of every call.
const (
	// DefaultTimeout bounds one JSON-RPC call unless Options.Timeout says
	// otherwise.
	DefaultTimeout = 5 * time.Second
	// MaxResponseBytes is the largest answer read: a contract's code is at
	// most 24 KiB (EIP-170), 48 KiB in hex.
	MaxResponseBytes = 128 << 10
	// MaxSignatureBytes is the largest signature sent to a chain.
	MaxSignatureBytes = core.MaxContractSignature
	// CallGas is the gas of every eth_call: enough to deploy a wallet
	// through its factory and ask it, far below what nodes allow a call.
	CallGas = 10_000_000
)

// Options configure a Client.
type Options struct {
	// ID is the chain id the operator configured for URL.
	ID int64
	// URL is the JSON-RPC endpoint, http:// or https://.
	URL string
	// Timeout bounds each call; zero is DefaultTimeout.
	Timeout time.Duration
	// HTTPClient defaults to a client of its own.
	HTTPClient *http.Client
}

// Client asks one chain's JSON-RPC endpoint. It is safe for concurrent use.
type Client struct {
	id      int64
	url     string
	host    string
	timeout time.Duration
	http    *http.Client
	seq     atomic.Int64
	// served is the chain id the endpoint answered to eth_chainId, zero
	// until it first answered; it is asked once.
	served atomic.Int64
}

// NewClient returns a client of the endpoint. It returns an error, which
// names no part of the URL, when the URL is not an absolute http(s) one or
// the chain id is not positive.
func NewClient(o Options) (*Client, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("chain %d: the endpoint is not an absolute http:// or https:// URL", o.ID)
	}
	if o.ID <= 0 {
		return nil, fmt.Errorf("chain %d: a chain id is a positive number", o.ID)
	}
	c := &Client{id: o.ID, url: o.URL, host: u.Hostname(), timeout: o.Timeout, http: o.HTTPClient}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	return c, nil
}

// Chain returns the chain id the client was configured with.
func (c *Client) Chain() int64 { return c.id }

// Endpoint names the endpoint without secrets: its host.
func (c *Client) Endpoint() string { return c.host }

// request is a JSON-RPC 2.0 request.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

// response is a JSON-RPC 2.0 answer: a result or an error.
type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call runs one JSON-RPC method and decodes its result into out. Errors
// wrap core.ErrChainUnavailable, a JSON-RPC error object included: what
// the bot calls never reverts on a member's input (see ValidSignature),
// so it is never told apart by its words.
func (c *Client) call(ctx context.Context, out any, method string, params ...any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: c.seq.Add(1), Method: method, Params: params})
	if err != nil {
		return c.unavailable(method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return c.unavailable(method, errors.New("cannot build the request"))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return c.unavailable(method, transportError(ctx, err, c.timeout))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c.unavailable(method, fmt.Errorf("HTTP status %d", resp.StatusCode))
	}
	return c.decode(ctx, resp.Body, method, out)
}

// decode reads at most MaxResponseBytes of a JSON-RPC answer into out.
func (c *Client) decode(ctx context.Context, r io.Reader, method string, out any) error {
	raw, err := io.ReadAll(io.LimitReader(r, MaxResponseBytes+1))
	switch {
	case err != nil:
		return c.unavailable(method, transportError(ctx, err, c.timeout))
	case len(raw) > MaxResponseBytes:
		return c.unavailable(method, fmt.Errorf("answer larger than %d bytes", MaxResponseBytes))
	}
	var resp response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return c.unavailable(method, errors.New("answer is not JSON-RPC"))
	}
	if e := resp.Error; e != nil {
		return c.unavailable(method, fmt.Errorf("JSON-RPC error %d: %s", e.Code, clip(e.Message)))
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return c.unavailable(method, errors.New("unexpected result"))
	}
	return nil
}

// unavailable wraps err as the chain's failure to answer, naming only its
// host.
func (c *Client) unavailable(method string, err error) error {
	return fmt.Errorf("%w: %s on chain %d (%s): %w", core.ErrChainUnavailable, method, c.id, c.host, err)
}

// transportError describes a failed exchange without the URL that
// net/http puts in its errors.
func transportError(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s", timeout)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if errors.Is(err, context.Canceled) {
		return context.Canceled
	}
	return errors.New(redact(err.Error()))
}

// redact cuts anything that looks like a URL out of an error text.
func redact(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		if strings.Contains(f, "://") {
			fields[i] = "[url]"
		}
	}
	return strings.Join(fields, " ")
}

// clip shortens an endpoint's error message for a log line.
func clip(s string) string {
	const most = 200
	if len(s) > most {
		return redact(s[:most]) + "…"
	}
	return redact(s)
}

// ChainID asks the endpoint which chain it serves (eth_chainId), and
// remembers the answer for the checks of signatures. Errors wrap
// core.ErrChainUnavailable.
func (c *Client) ChainID(ctx context.Context) (int64, error) {
	var q string
	if err := c.call(ctx, &q, "eth_chainId"); err != nil {
		return 0, err
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(q, "0x"), 16, 64)
	if err != nil || !strings.HasPrefix(q, "0x") || id <= 0 {
		return 0, c.unavailable("eth_chainId", errors.New("not a chain id"))
	}
	c.served.Store(id)
	return id, nil
}

// serves makes sure the endpoint serves the configured chain, asking it
// the first time only: an answer about a signature from another chain
// would prove a wallet on a chain nobody chose. Errors wrap
// core.ErrChainUnavailable, and core.ErrChainMisconfigured too when the
// endpoint serves another chain.
func (c *Client) serves(ctx context.Context) error {
	id := c.served.Load()
	if id == 0 {
		var err error
		if id, err = c.ChainID(ctx); err != nil {
			return err
		}
	}
	if id != c.id {
		return c.unavailable("eth_chainId", fmt.Errorf("%w: it serves chain %d", core.ErrChainMisconfigured, id))
	}
	return nil
}

// Call runs data against the latest block without a transaction
// (eth_call) with CallGas, and returns what it returned. With to empty the
// data is creation code, run as a contract deployment that is never
// mined. Errors, a call that reverts included, wrap
// core.ErrChainUnavailable.
func (c *Client) Call(ctx context.Context, to string, data []byte) ([]byte, error) {
	tx := map[string]string{"data": "0x" + hex.EncodeToString(data), "gas": "0x" + strconv.FormatUint(CallGas, 16)}
	if to != "" {
		tx["to"] = to
	}
	var out string
	if err := c.call(ctx, &out, "eth_call", tx, "latest"); err != nil {
		return nil, err
	}
	return c.bytes("eth_call", out)
}

// bytes decodes a 0x hex result.
func (c *Client) bytes(method, s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || !strings.HasPrefix(s, "0x") {
		return nil, c.unavailable(method, errors.New("result is not 0x hex"))
	}
	return b, nil
}
