// Package chaintest runs a simulated EVM chain (go-ethereum's simulated
// backend) behind a JSON-RPC endpoint on loopback, and deploys on it the
// contract wallets of its testdata (see testdata/README.md), for tests of
// smart-contract wallets' signatures. Only tests import it.
package chaintest

import (
	"context"
	"crypto/ecdsa"
	_ "embed"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
)

// ID is the chain id of every simulated chain.
const ID = 1337

var (
	//go:embed testdata/Wallets_sol_OwnedWallet.bin
	ownedWalletBin string
	//go:embed testdata/Wallets_sol_OwnedWallet.abi
	ownedWalletABI string
	//go:embed testdata/Wallets_sol_WalletFactory.bin
	factoryBin string
	//go:embed testdata/Wallets_sol_WalletFactory.abi
	factoryABI string
	//go:embed testdata/Wallets_sol_WrongMagic.bin
	wrongMagicBin string
)

// Chain is a simulated chain with its JSON-RPC endpoint.
type Chain struct {
	// URL is the JSON-RPC endpoint, on loopback: the simulated node's own
	// HTTP server.
	URL string

	t       testing.TB
	backend *simulated.Backend
	client  simulated.Client
	funder  *ecdsa.PrivateKey
	factory common.Address
}

// startTries is how many free ports Start tries for the node's HTTP
// server: a port found free may be taken by another process before the
// node binds it.
const startTries = 5

// Start starts a chain, its node serving JSON-RPC (the eth namespace)
// over HTTP on loopback, with a WalletFactory deployed, and stops it when
// the test ends.
func Start(t testing.TB) *Chain {
	t.Helper()
	funder, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	alloc := types.GenesisAlloc{crypto.PubkeyToAddress(funder.PublicKey): {Balance: new(big.Int).Exp(big.NewInt(10), big.NewInt(21), nil)}}
	var backend *simulated.Backend
	var port int
	for try := 1; backend == nil; try++ {
		port = freePort(t)
		backend, err = newBackend(alloc, port)
		if err != nil && try == startTries {
			t.Fatalf("chaintest: the simulated node did not start: %v", err)
		}
	}
	c := &Chain{t: t, backend: backend, client: backend.Client(), funder: funder}
	t.Cleanup(func() { _ = backend.Close() })
	c.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	c.factory = c.deploy(mustHex(factoryBin))
	return c
}

// newBackend starts a simulated chain whose node serves the eth namespace
// over HTTP on 127.0.0.1:port, through the node options simulated.NewBackend
// takes. The backend panics when its node does not start (the port was
// taken meanwhile): that comes back as an error.
func newBackend(alloc types.GenesisAlloc, port int) (b *simulated.Backend, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return simulated.NewBackend(alloc, func(nodeConf *node.Config, _ *ethconfig.Config) {
		nodeConf.HTTPHost = "127.0.0.1"
		nodeConf.HTTPPort = port
		nodeConf.HTTPModules = []string{"eth"}
	}), nil
}

// freePort returns a TCP port free on loopback just now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// deploy sends a contract creation and mines it, and returns the
// contract's address.
func (c *Chain) deploy(code []byte) common.Address {
	c.t.Helper()
	receipt := c.send(nil, code)
	if receipt.Status != types.ReceiptStatusSuccessful {
		c.t.Fatalf("chaintest: deployment failed")
	}
	return receipt.ContractAddress
}

// send signs a transaction of the funder, mines it and returns its
// receipt.
func (c *Chain) send(to *common.Address, data []byte) *types.Receipt {
	c.t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(c.funder.PublicKey)
	nonce, err := c.client.PendingNonceAt(ctx, from)
	if err != nil {
		c.t.Fatal(err)
	}
	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID: big.NewInt(ID), Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas:       5_000_000, To: to, Data: data,
	})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(big.NewInt(ID)), c.funder)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.client.SendTransaction(ctx, signed); err != nil {
		c.t.Fatal(err)
	}
	c.backend.Commit()
	receipt, err := c.client.TransactionReceipt(ctx, signed.Hash())
	if err != nil {
		c.t.Fatal(err)
	}
	return receipt
}

// DeployWallet deploys an ERC-1271 wallet of owner's key and returns its
// address in lower case.
func (c *Chain) DeployWallet(owner *ecdsa.PrivateKey) string {
	c.t.Helper()
	args := pack(c.t, ownedWalletABI, "", crypto.PubkeyToAddress(owner.PublicKey))
	return lower(c.deploy(append(mustHex(ownedWalletBin), args...)))
}

// DeployWrongMagic deploys a contract wallet that refuses every signature
// with a wrong magic value, and returns its address in lower case.
func (c *Chain) DeployWrongMagic() string {
	c.t.Helper()
	return lower(c.deploy(mustHex(wrongMagicBin)))
}

// DeployRuntime deploys runtime as a contract's code, whatever it is (a
// tiny creation code copies it), and returns its address in lower case:
// for contracts that misbehave below the ABI, such as one whose every call
// returns its own calldata (EchoRuntime).
func (c *Chain) DeployRuntime(runtime []byte) string {
	c.t.Helper()
	if len(runtime) > 0xff {
		c.t.Fatal("chaintest: DeployRuntime takes at most 255 bytes")
	}
	n := byte(len(runtime))
	// PUSH1 n PUSH1 12 PUSH1 0 CODECOPY PUSH1 n PUSH1 0 RETURN, then the code.
	initCode := []byte{0x60, n, 0x60, 12, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xf3}
	return lower(c.deploy(append(initCode, runtime...)))
}

// Runtime code of contracts that misbehave, for DeployRuntime.
var (
	// EchoRuntime returns its calldata: CALLDATASIZE PUSH1 0 PUSH1 0
	// CALLDATACOPY CALLDATASIZE PUSH1 0 RETURN. Asked isValidSignature,
	// it answers a word that starts with the magic value's 4 bytes.
	EchoRuntime = mustHex("366000600037366000f3")
	// InvalidRuntime hits the invalid opcode 0xfe at once, which uses up
	// all the gas of the call.
	InvalidRuntime = []byte{0xfe}
	// RevertRuntime reverts: PUSH1 0 PUSH1 0 REVERT.
	RevertRuntime = mustHex("60006000fd")
	// BombRuntime answers 1 MiB of zeros: PUSH3 0x100000 PUSH1 0 RETURN.
	BombRuntime = mustHex("621000006000f3")
)

// Counterfactual returns the address of owner's wallet that the factory
// would deploy with salt, not deployed, and the ERC-6492 wrapper's
// factory and calldata that deploy it.
func (c *Chain) Counterfactual(owner *ecdsa.PrivateKey, salt [32]byte) (address string, factory common.Address, calldata []byte) {
	c.t.Helper()
	ownerAddr := crypto.PubkeyToAddress(owner.PublicKey)
	query := pack(c.t, factoryABI, "addressOf", ownerAddr, salt)
	out, err := c.client.CallContract(context.Background(), ethereum.CallMsg{To: &c.factory, Data: query}, nil)
	if err != nil || len(out) != 32 {
		c.t.Fatalf("chaintest: addressOf: %x, %v", out, err)
	}
	return lower(common.BytesToAddress(out)), c.factory, pack(c.t, factoryABI, "deploy", ownerAddr, salt)
}

// Code returns the code at address now, to tell that a check deployed
// nothing.
func (c *Chain) Code(address string) []byte {
	c.t.Helper()
	code, err := c.client.CodeAt(context.Background(), common.HexToAddress(address), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return code
}

// SignHash signs a 32-byte hash with key, raw (no prefix), as r | s | v
// with v 27 or 28: what OwnedWallet accepts from its owner.
func SignHash(t testing.TB, key *ecdsa.PrivateKey, hash []byte) []byte {
	t.Helper()
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// PersonalHash is the EIP-191 personal_sign hash of message.
func PersonalHash(message string) []byte {
	return crypto.Keccak256([]byte("\x19Ethereum Signed Message:\n" + itoa(len(message)) + message))
}

// Wrap6492 wraps sig as ERC-6492 says: abi.encode(factory, calldata, sig)
// followed by the magic suffix.
func Wrap6492(t testing.TB, factory common.Address, calldata, sig []byte) []byte {
	t.Helper()
	addressT, _ := abi.NewType("address", "", nil)
	bytesT, _ := abi.NewType("bytes", "", nil)
	args := abi.Arguments{{Type: addressT}, {Type: bytesT}, {Type: bytesT}}
	out, err := args.Pack(factory, calldata, sig)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, mustHex(strings.Repeat("6492", 16))...)
}

// Key returns a new private key.
func Key(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Hex is b as 0x hex.
func Hex(b []byte) string { return "0x" + hex.EncodeToString(b) }

// Hang starts an endpoint that never answers until the test ends, and
// returns its URL.
func Hang(t testing.TB) string {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() {
		close(stop)
		srv.Close()
	})
	return srv.URL
}

func pack(t testing.TB, abiJSON, method string, args ...any) []byte {
	t.Helper()
	parsed, err := abi.JSON(strings.NewReader(abiJSON))
	if err != nil {
		t.Fatal(err)
	}
	out, err := parsed.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		panic(err)
	}
	return b
}

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

func itoa(n int) string { return big.NewInt(int64(n)).String() }
