package sandbox

import "net/http"

// Operation names of the issuing service beyond the scans; they match the
// poap client's names for the same calls.
const (
	// OpCreateDrop is POST /events.
	OpCreateDrop = "create_drop"
	// OpEditDrop is PUT /events/{fancyId}.
	OpEditDrop = "edit_drop"
	// OpDrop is GET /events/id/{id}.
	OpDrop = "drop"
	// OpDropByFancyID is GET /events/{fancyId}.
	OpDropByFancyID = "drop_by_fancy_id"
	// OpDrops is GET /paginated-events.
	OpDrops = "drops"
	// OpEvents is GET /events, the deprecated list of every drop.
	OpEvents = "events"
	// OpTokenInfo is GET /token/{tokenId}.
	OpTokenInfo = "token"
	// OpHolders is GET /event/{id}/poaps.
	OpHolders = "holders"
	// OpMintLinks is POST /event/{id}/qr-codes.
	OpMintLinks = "mint_links"
	// OpValidateEditCode is POST /event/validate.
	OpValidateEditCode = "validate_edit_code"
	// OpClaimStatus is GET /actions/claim-qr.
	OpClaimStatus = "claim_status"
	// OpMint is POST /actions/claim-qr.
	OpMint = "mint"
	// OpTransactions is GET /transactions?qr_hash=, the official SDK's
	// mint-progress read.
	OpTransactions = "transactions"
	// OpTransactionRequest is GET /transaction-requests/{id}.
	OpTransactionRequest = "transaction_request"
	// OpRequestMintLinks is POST /redeem-requests.
	OpRequestMintLinks = "request_mint_links"
	// OpPendingRequests is GET /redeem-requests/active/count.
	OpPendingRequests = "pending_requests"
	// OpCreateSecretRequest is POST /secret-requests.
	OpCreateSecretRequest = "create_secret_request"
	// OpEditSecretRequest is PUT /secret-requests.
	OpEditSecretRequest = "edit_secret_request"
	// OpWebsiteClaim is POST /website/claim.
	OpWebsiteClaim = "website_claim"
	// OpSecret is GET /secret/{secret_word}.
	OpSecret = "secret"
	// OpCreateDelivery is POST /deliveries.
	OpCreateDelivery = "create_delivery"
	// OpClaimDelivery is POST /actions/claim-delivery-v2.
	OpClaimDelivery = "claim_delivery"
	// OpMintingConfig is POST /drops/{dropId}/minting-config.
	OpMintingConfig = "minting_config"
	// OpSetMintingNetwork is PATCH /drops/{dropId}/minting-config.
	OpSetMintingNetwork = "set_minting_network"
	// OpHealthCheck is GET /health-check.
	OpHealthCheck = "health_check"
)

// issuingRoutes registers the issuing service's operations beyond the scans,
// and takes the issuing settings from the Options.
func (s *Server) issuingRoutes() {
	s.reviewDelay, s.txDelay = s.opts.ReviewDelay, s.opts.TxDelay
	s.requireSecret, s.queueUID = s.opts.RequireSecret, s.opts.QueueUID

	s.issuing(OpCreateDrop, "POST /events", keyOnly, s.createDrop)
	s.issuing(OpEditDrop, "PUT /events/{fancyId}", keyOnly, s.editDrop)
	s.issuing(OpDropByFancyID, "GET /events/{fancyId}", keyOnly, s.dropByFancyID)
	s.issuing(OpDrop, "GET /events/id/{id}", keyOnly, s.dropByID)
	s.issuing(OpDrops, "GET /paginated-events", keyOnly, s.listDrops)
	s.issuing(OpEvents, "GET /events", keyOnly, s.listEvents)
	s.issuing(OpTokenInfo, "GET /token/{tokenId}", keyOnly, s.tokenInfo)
	s.issuing(OpHolders, "GET /event/{id}/poaps", keyOnly, s.holders)

	s.issuing(OpMintLinks, "POST /event/{id}/qr-codes", keyAndBearer, s.mintLinks)
	s.issuing(OpValidateEditCode, "POST /event/validate", keyAndBearer, s.validateEditCode)
	s.issuing(OpClaimStatus, "GET /actions/claim-qr", keyAndBearer, s.claimStatus)
	s.issuing(OpMint, "POST /actions/claim-qr", keyAndBearer, s.claimQR)
	s.issuing(OpTransactions, "GET /transactions", keyAndBearer, s.transactions)
	s.issuing(OpTransactionRequest, "GET /transaction-requests/{id}", keyOnly, s.transactionRequest)

	s.issuing(OpRequestMintLinks, "POST /redeem-requests", keyAndBearer, s.requestMintLinks)
	s.issuing(OpPendingRequests, "GET /redeem-requests/active/count", keyOnly, s.pendingRequests)
	s.issuing(OpCreateSecretRequest, "POST /secret-requests", keyOnly, s.createSecretRequest)
	s.issuing(OpEditSecretRequest, "PUT /secret-requests", keyOnly, s.editSecretRequest)
	s.issuing(OpWebsiteClaim, "POST /website/claim", keyOnly, s.websiteClaim)
	s.issuing(OpSecret, "GET /secret/{secret_word}", keyAndBearer, s.secret)

	s.issuing(OpCreateDelivery, "POST /deliveries", keyOnly, s.createDelivery)
	s.issuing(OpClaimDelivery, "POST /actions/claim-delivery-v2", keyOnly, s.claimDelivery)
	s.issuing(OpMintingConfig, "POST /drops/{dropId}/minting-config", keyOnly, s.configure)
	s.issuing(OpSetMintingNetwork, "PATCH /drops/{dropId}/minting-config", keyOnly, s.configure)
	s.issuing(OpHealthCheck, "GET /health-check", keyOnly, healthCheck)
}

// issuing registers h as handle does, behind the planned failures of
// FailNextOp and the review of requests that are due.
func (s *Server) issuing(op, pattern string, acc access, h http.HandlerFunc) {
	s.handle(op, pattern, acc, func(w http.ResponseWriter, r *http.Request) {
		if status := s.takeOpFailure(op); status != 0 {
			writeGatewayError(w, status)
			return
		}
		s.settle()
		h(w, r)
	})
}

// settle approves the requests whose review delay has passed. Reviews are
// settled when the Server is next used rather than by timers, so a test
// clock (Options.Now) drives them.
func (s *Server) settle() {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.review(now)
}

// healthCheck answers GET /health-check as production does.
func healthCheck(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
}
