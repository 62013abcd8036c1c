package wire

// Operations of the issuing service (https://api.poap.tech). The names in
// parentheses are the poap.Client methods that make the call.
const (
	// OpScan is GET /actions/scan/{address} (Scan).
	OpScan = "scan"
	// OpScanEvent is GET /actions/scan/{address}/{eventId} (ScanEvent).
	OpScanEvent = "scan_event"
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
	// OpEvents is GET /events, the deprecated list of every drop; the
	// client does not call it.
	OpEvents = "events"
	// OpTokenInfo is GET /token/{tokenId} (TokenInfo). Not to be confused
	// with OpAccessToken.
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
	// OpTransactions is GET /transactions?qr_hash=, the official SDK's
	// mint-progress read; the client does not call it.
	OpTransactions = "transactions"
	// OpTransactionRequest is GET /transaction-requests/{id}
	// (TransactionRequest).
	OpTransactionRequest = "transaction_request"
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
	// OpDeliveryBySlug is GET /delivery/slug/{slug} (DeliveryBySlug).
	OpDeliveryBySlug = "delivery_by_slug"
	// OpClaimDelivery is POST /actions/claim-delivery-v2 (ClaimDelivery).
	OpClaimDelivery = "claim_delivery"
	// OpMintingConfig is POST /drops/{dropId}/minting-config
	// (MintingConfig).
	OpMintingConfig = "minting_config"
	// OpSetMintingNetwork is PATCH /drops/{dropId}/minting-config
	// (SetMintingNetwork).
	OpSetMintingNetwork = "set_minting_network"
	// OpHealthCheck is GET /health-check (CheckIssuer).
	OpHealthCheck = "health_check"
	// OpDropArtwork is a GET of a drop's artwork address (its drop_image
	// ORIGINAL, else its image_url), on the image host rather than the
	// issuing service: EditDrop sends the artwork back, as PUT
	// /events/{fancyId} requires.
	OpDropArtwork = "drop_artwork"
)

// OpAccessToken is POST /oauth/token on the token service
// (https://auth.accounts.poap.xyz), the client-credentials grant that
// poap/auth makes.
const OpAccessToken = "access_token"

// Operations of Moments (https://moments.poap.tech) and of its query
// service, Compass.
const (
	// OpMediaUploadURL is POST /moments/media-upload-url (UploadMedia's
	// first step).
	OpMediaUploadURL = "media_upload_url"
	// OpMediaUpload is the PUT of a file to the signed upload address
	// OpMediaUploadURL answers with (UploadMedia's second step).
	OpMediaUpload = "media_upload"
	// OpMediaStatus is GET /media/{key} (Media, WaitForMedia).
	OpMediaStatus = "media_status"
	// OpCreateMoment is POST /moments (CreateMoment).
	OpCreateMoment = "create_moment"
	// OpMomentsQuery is the GraphQL moments query, POST /v1/graphql on
	// Compass (Moments).
	OpMomentsQuery = "moments_query"
	// OpMediaGateway is a GET of a processed file's gateway address
	// (MediaGateway.URL, MomentMedia's gateways), on a public gateway
	// rather than Moments.
	OpMediaGateway = "media_gateway"
)
