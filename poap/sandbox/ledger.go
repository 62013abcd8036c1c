package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// First ids of the distribution records, in the ranges production uses.
const (
	firstClaimID    = 13800000
	firstTxID       = 1
	firstRequestID  = 48000
	firstSecretID   = 9000
	firstDeliveryID = 300
)

// ledger is the distribution side of the state: mint links and the claims
// made through them, transactions, review requests, website and secret
// claims, deliveries. It is guarded by Server.mu.
type ledger struct {
	links      map[string]*link        // by qr_hash
	dropLinks  map[int64][]*link       // the mint links of a drop, oldest first
	txs        map[string]*txRequest   // by id and by uid
	reviews    []*request              // distribution requests, oldest first
	secrets    map[string]*secretClaim // by lower-case claim name
	deliveries map[int64]*delivery
	rng        *rand.Rand // qr hashes: fixed seed, so runs repeat

	nextClaim, nextTx, nextRequest, nextSecret, nextDelivery int64
}

func newLedger() ledger {
	return ledger{
		links:        map[string]*link{},
		dropLinks:    map[int64][]*link{},
		txs:          map[string]*txRequest{},
		secrets:      map[string]*secretClaim{},
		deliveries:   map[int64]*delivery{},
		rng:          rand.New(rand.NewPCG(0x9a0b, 0x5a4d)),
		nextClaim:    firstClaimID,
		nextTx:       firstTxID,
		nextRequest:  firstRequestID,
		nextSecret:   firstSecretID,
		nextDelivery: firstDeliveryID,
	}
}

// link is a claim record: a mint link of a drop, or the record a website
// claim makes (website set), which is claimed from the start.
type link struct {
	id          int64
	hash        string
	eventID     int64
	created     time.Time
	website     string
	deactivated bool
	claim       *claim // nil until claimed
}

// claim is what a mint left: who asked, the holder, the POAP and its
// transaction (nil for an e-mail reservation, which has none).
type claim struct {
	at          time.Time
	userInput   string
	beneficiary string
	token       Token
	tx          *txRequest
}

// txRequest is a mint's transaction, IN_PROCESS until its delay passes.
type txRequest struct {
	id        int64
	uid       string
	operation string
	created   time.Time
	hash      string
}

// Operations transaction requests name.
const (
	txMint         = "mintToken"
	txMintDelivery = "mintDeliveryTokenV2"
)

// newTx records a transaction of operation made at now.
func (l *ledger) newTx(operation string, now time.Time) *txRequest {
	id := l.nextTx
	l.nextTx++
	tx := &txRequest{
		id:        id,
		uid:       uuidFor("tx", id),
		operation: operation,
		created:   now,
		hash:      "0x" + digest("tx", id),
	}
	l.txs[strconv.FormatInt(id, 10)] = tx
	l.txs[tx.uid] = tx
	return tx
}

// finished reports whether tx has been mined at now, with delay as the time
// it takes.
func (tx *txRequest) finished(now time.Time, delay time.Duration) bool {
	return !now.Before(tx.created.Add(delay))
}

// newHash returns an unused qr_hash: six lower-case letters and digits.
func (l *ledger) newHash() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for {
		b := make([]byte, 6)
		for i := range b {
			b[i] = alphabet[l.rng.IntN(len(alphabet))]
		}
		if _, taken := l.links[string(b)]; !taken {
			return string(b)
		}
	}
}

// newLink stores a claim record of drop eventID with hash, made at now.
func (l *ledger) newLink(eventID int64, hash string, now time.Time) *link {
	lk := &link{id: l.nextClaim, hash: hash, eventID: eventID, created: now}
	l.nextClaim++
	l.links[hash] = lk
	return lk
}

// digest returns the hex SHA-256 of kind and n: stable fake hashes.
func digest(kind string, n int64) string {
	sum := sha256.Sum256([]byte(kind + ":" + strconv.FormatInt(n, 10)))
	return hex.EncodeToString(sum[:])
}

// uuidFor returns a stable UUID-shaped id for kind and n.
func uuidFor(kind string, n int64) string {
	h := digest(kind, n)
	return fmt.Sprintf("%s-%s-4%s-a%s-%s", h[:8], h[8:12], h[13:16], h[17:20], h[20:32])
}
