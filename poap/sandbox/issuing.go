package sandbox

import (
	"net/http"

	"github.com/poapbot/poapbot/poap/wire"
)

// issuingRoutes registers the issuing service's operations beyond the scans,
// and takes the issuing settings from the Options.
func (s *Server) issuingRoutes() {
	s.reviewDelay, s.txDelay = s.opts.ReviewDelay, s.opts.TxDelay
	s.requireSecret, s.queueUID = s.opts.RequireSecret, s.opts.QueueUID
	s.websiteClaims = newBucket(s.opts.WebsiteClaimRate, s.opts.WebsiteClaimBurst)

	s.issuing(wire.OpCreateDrop, "POST /events", keyOnly, s.createDrop)
	s.issuing(wire.OpEditDrop, "PUT /events/{fancyId}", keyOnly, s.editDrop)
	s.issuing(wire.OpDropByFancyID, "GET /events/{fancyId}", keyOnly, s.dropByFancyID)
	s.issuing(wire.OpDrop, "GET /events/id/{id}", keyOnly, s.dropByID)
	s.issuing(wire.OpDrops, "GET /paginated-events", keyOnly, s.listDrops)
	s.issuing(wire.OpEvents, "GET /events", keyOnly, s.listEvents)
	s.issuing(wire.OpTokenInfo, "GET /token/{tokenId}", keyOnly, s.tokenInfo)
	s.issuing(wire.OpHolders, "GET /event/{id}/poaps", keyOnly, s.holders)

	s.issuing(wire.OpMintLinks, "POST /event/{id}/qr-codes", keyAndBearer, s.mintLinks)
	s.issuing(wire.OpValidateEditCode, "POST /event/validate", keyAndBearer, s.validateEditCode)
	s.issuing(wire.OpClaimStatus, "GET /actions/claim-qr", keyAndBearer, s.claimStatus)
	s.issuing(wire.OpMint, "POST /actions/claim-qr", keyAndBearer, s.claimQR)
	s.issuing(wire.OpTransactions, "GET /transactions", keyAndBearer, s.transactions)
	s.issuing(wire.OpTransactionRequest, "GET /transaction-requests/{id}", keyOnly, s.transactionRequest)

	s.issuing(wire.OpRequestMintLinks, "POST /redeem-requests", keyAndBearer, s.requestMintLinks)
	s.issuing(wire.OpPendingRequests, "GET /redeem-requests/active/count", keyOnly, s.pendingRequests)
	s.issuing(wire.OpCreateSecretRequest, "POST /secret-requests", keyOnly, s.createSecretRequest)
	s.issuing(wire.OpEditSecretRequest, "PUT /secret-requests", keyOnly, s.editSecretRequest)
	s.issuing(wire.OpWebsiteClaim, "POST /website/claim", keyOnly, s.websiteClaim)
	s.issuing(wire.OpSecret, "GET /secret/{secret_word}", keyAndBearer, s.secret)

	s.issuing(wire.OpCreateDelivery, "POST /deliveries", keyOnly, s.createDelivery)
	s.issuing(wire.OpDeliveryBySlug, "GET /delivery/slug/{slug}", keyOnly, s.deliveryBySlug)
	s.issuing(wire.OpClaimDelivery, "POST /actions/claim-delivery-v2", keyOnly, s.claimDelivery)
	s.issuing(wire.OpMintingConfig, "POST /drops/{dropId}/minting-config", keyOnly, s.configure)
	s.issuing(wire.OpSetMintingNetwork, "PATCH /drops/{dropId}/minting-config", keyOnly, s.configure)
	s.issuing(wire.OpHealthCheck, "GET /health-check", keyOnly, healthCheck)
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
