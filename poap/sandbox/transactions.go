package sandbox

import (
	"net/http"
	"strings"
)

// txRequestJSON is the answer of GET /transaction-requests/{id}.
type txRequestJSON struct {
	Operation string        `json:"operation"`
	Status    string        `json:"status"`
	Result    *txResultJSON `json:"result"`
}

// txResultJSON is a finished transaction's hash.
type txResultJSON struct {
	TxHash string `json:"tx_hash"`
}

// transactionRequest answers GET /transaction-requests/{id}, where id is a
// transaction_request_id or a queue_uid: IN_PROCESS with a null result
// until Options.TxDelay has passed, then FINISH with the tx hash.
func (s *Server) transactionRequest(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	tx := s.txs[r.PathValue("id")]
	if tx == nil {
		writeError(w, http.StatusNotFound, "Transaction request not found")
		return
	}
	j := txRequestJSON{Operation: tx.operation, Status: "IN_PROCESS"}
	if tx.finished(now, s.txDelay) {
		j.Status, j.Result = "FINISH", &txResultJSON{TxHash: tx.hash}
	}
	writeJSON(w, http.StatusOK, j)
}

// transactionsJSON is the answer of GET /transactions?qr_hash=.
type transactionsJSON struct {
	Total        int        `json:"total"`
	Transactions []txStatus `json:"transactions"`
}

// txStatus is one transaction of a claim.
type txStatus struct {
	TxHash string `json:"tx_hash"`
	Status string `json:"status"`
}

// transactions answers GET /transactions?qr_hash=: the claim's
// transaction, pending (without hash) until it passes; none for an
// unclaimed link or an e-mail reservation.
func (s *Server) transactions(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	lk := s.links[strings.TrimSpace(r.URL.Query().Get("qr_hash"))]
	if lk == nil {
		writeError(w, http.StatusNotFound, msgQRNotFound)
		return
	}
	out := transactionsJSON{Transactions: []txStatus{}}
	if lk.claim != nil && lk.claim.tx != nil {
		st := txStatus{Status: "pending"}
		if lk.claim.tx.finished(now, s.txDelay) {
			st = txStatus{TxHash: lk.claim.tx.hash, Status: "passed"}
		}
		out = transactionsJSON{Total: 1, Transactions: []txStatus{st}}
	}
	writeJSON(w, http.StatusOK, out)
}
