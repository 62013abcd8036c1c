package poap

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/poapbot/poapbot/poap/wire"
)

// States of a transaction request.
const (
	// TxRequestInProcess: the mint is queued or being sent.
	TxRequestInProcess = "IN_PROCESS"
	// TxRequestInProcessWorker: a worker is sending the mint.
	TxRequestInProcessWorker = "IN_PROCESS_WORKER"
	// TxRequestPending: the older name of a mint under way.
	TxRequestPending = "PENDING"
	// TxRequestFinish: the mint is done.
	TxRequestFinish = "FINISH"
	// TxRequestFinishWithError: the mint failed.
	TxRequestFinishWithError = "FINISH_WITH_ERROR"
)

// TransactionRequest is the progress of a mint queued by the service, as
// GET /transaction-requests/{id} returns it.
type TransactionRequest struct {
	// UID is the request's uuid, in older answers only.
	UID string
	// Operation names the queued work ("mintDeliveryTokenV2"...).
	Operation string
	// Status is one of the TxRequest states.
	Status string
	// TxHash is the transaction's hash when the service gives it; it is
	// often absent even once finished.
	TxHash string
}

// UnmarshalJSON reads a transaction request; result may be null or absent.
func (t *TransactionRequest) UnmarshalJSON(b []byte) error {
	var w struct {
		UID       string `json:"uid"`
		Operation string `json:"operation"`
		Status    string `json:"status"`
		Result    *struct {
			TxHash string `json:"tx_hash"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = TransactionRequest{UID: w.UID, Operation: w.Operation, Status: w.Status}
	if w.Result != nil {
		t.TxHash = w.Result.TxHash
	}
	return nil
}

// Done reports whether the request finished, well or not.
func (t TransactionRequest) Done() bool {
	return t.Status == TxRequestFinish || t.Status == TxRequestFinishWithError
}

// Failed reports whether the request finished with an error.
func (t TransactionRequest) Failed() bool { return t.Status == TxRequestFinishWithError }

// TransactionRequest reads the progress of the mint with the given
// transaction request id (MintResult.TransactionRequestID): GET
// /transaction-requests/{id}. Poll it with a growing delay until Done.
// Errors: ErrInvalidInput for an id below 1, ErrNotFound, ErrUnauthorized,
// ErrRateLimited, ErrUnavailable; answers of the service come as *APIError.
func (c *Client) TransactionRequest(ctx context.Context, id int64) (TransactionRequest, error) {
	if err := checkID(wire.OpTransactionRequest, "id", id); err != nil {
		return TransactionRequest{}, err
	}
	var t TransactionRequest
	r := request{
		op: wire.OpTransactionRequest, method: http.MethodGet,
		path: "/transaction-requests/" + strconv.FormatInt(id, 10), idempotent: true,
	}
	if err := c.do(ctx, r, &t); err != nil {
		return TransactionRequest{}, err
	}
	return t, nil
}
