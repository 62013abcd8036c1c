package storage_test

import (
	"github.com/poapbot/poapbot/poap/auth"
	"github.com/poapbot/poapbot/storage"
)

// The database is the poap client's token store.
var _ auth.Store = (*storage.DB)(nil)
