package storage_test

import (
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/storage"
)

// The database is the poap client's token store.
var _ poap.TokenStore = (*storage.DB)(nil)
