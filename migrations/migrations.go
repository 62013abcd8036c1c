// Package migrations holds the database schema as plain, numbered SQL files,
// one folder per dialect (postgres/ and sqlite/) with the same numbers in
// both. The storage package applies them in order at start-up.
//
// A file that has shipped is never edited: a change to the schema is a new
// file with the next number, written for both dialects.
package migrations

import "embed"

// FS holds the migration files: postgres/NNNN_name.sql and
// sqlite/NNNN_name.sql, each applied in its own transaction.
//
//go:embed postgres/*.sql sqlite/*.sql
var FS embed.FS
