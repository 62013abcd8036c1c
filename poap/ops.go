package poap

// Operation names of the issuing service's calls beyond the scans (OpScan,
// OpScanEvent), as the Observer, the debug log and APIError.Operation see
// them. They are metric labels: stable, snake_case, one per upstream
// operation.
const (
	// OpCreateDrop is POST /events (CreateDrop).
	OpCreateDrop = "create_drop"
	// OpEditDrop is PUT /events/{fancyId} (EditDrop).
	OpEditDrop = "edit_drop"
	// OpDrop is GET /events/id/{id} (Drop).
	OpDrop = "drop"
	// OpDropByFancyID is GET /events/{fancyId} (DropByFancyID).
	OpDropByFancyID = "drop_by_fancy_id"
	// OpDrops is GET /paginated-events (Drops).
	OpDrops = "drops"
	// OpTokenInfo is GET /token/{tokenId} (TokenInfo).
	OpTokenInfo = "token"
	// OpHolders is GET /event/{id}/poaps (HoldersPage, Holders).
	OpHolders = "holders"
	// OpMintLinks is POST /event/{id}/qr-codes (MintLinks).
	OpMintLinks = "mint_links"
	// OpValidateEditCode is POST /event/validate (ValidateEditCode).
	OpValidateEditCode = "validate_edit_code"
	// OpClaimStatus is GET /actions/claim-qr (ClaimStatus, and the first
	// step of Mint).
	OpClaimStatus = "claim_status"
	// OpMint is POST /actions/claim-qr (Mint, MintWithSecret).
	OpMint = "mint"
	// OpRequestMintLinks is POST /redeem-requests (RequestMintLinks).
	OpRequestMintLinks = "request_mint_links"
	// OpPendingRequests is GET /redeem-requests/active/count
	// (PendingRequests).
	OpPendingRequests = "pending_requests"
	// OpCreateSecretRequest is POST /secret-requests (CreateSecretRequest).
	OpCreateSecretRequest = "create_secret_request"
	// OpEditSecretRequest is PUT /secret-requests (EditSecretRequest).
	OpEditSecretRequest = "edit_secret_request"
	// OpWebsiteClaim is POST /website/claim (WebsiteClaim).
	OpWebsiteClaim = "website_claim"
	// OpSecret is GET /secret/{secret_word} (Secret).
	OpSecret = "secret"
	// OpCreateDelivery is POST /deliveries (CreateDelivery).
	OpCreateDelivery = "create_delivery"
	// OpClaimDelivery is POST /actions/claim-delivery-v2 (ClaimDelivery).
	OpClaimDelivery = "claim_delivery"
	// OpMintingConfig is POST /drops/{dropId}/minting-config
	// (MintingConfig).
	OpMintingConfig = "minting_config"
	// OpSetMintingNetwork is PATCH /drops/{dropId}/minting-config
	// (SetMintingNetwork).
	OpSetMintingNetwork = "set_minting_network"
	// OpTransactionRequest is GET /transaction-requests/{id}
	// (TransactionRequest).
	OpTransactionRequest = "transaction_request"
)
