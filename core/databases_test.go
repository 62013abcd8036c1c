package core_test

import (
	"context"
	"io"

	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// migrated gives the tests their databases: on SQLite, copies of a file
// storage.Open migrated once (see storagetest.Template); none of these
// tests is about migrating.
var migrated = storagetest.NewTemplate(func(ctx context.Context, databaseURL string) (io.Closer, error) {
	return storage.Open(ctx, databaseURL)
})
