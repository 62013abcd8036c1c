package storage

// SQLitePath returns the file a SQLite DATABASE_URL names (bot.db when it
// is empty), for what the program keeps beside the database; ok is false
// for PostgreSQL and for a URL Open refuses.
func SQLitePath(databaseURL string) (path string, ok bool) {
	t, err := parseDatabaseURL(databaseURL)
	if err != nil || t.dialect != DialectSQLite {
		return "", false
	}
	return t.path, true
}
