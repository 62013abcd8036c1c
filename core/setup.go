package core

// SetupLine is one line of /setup check: a check, whether it passed, and
// how to fix it when it did not.
type SetupLine struct {
	Check string
	OK    bool
	Fix   string
}
