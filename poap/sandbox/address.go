package sandbox

import "strings"

// kind is what an {address} path value is.
type kind int

const (
	kindInvalid kind = iota
	kindAddress
	kindENS
	kindEmail
)

// classify says what a lower-case identifier looks like: a 0x address of 40
// hex digits, an e-mail, an ENS name, or none of them (the service's 400
// "Address is not valid").
func classify(s string) kind {
	if isHexAddress(s) {
		return kindAddress
	}
	if local, domain, ok := strings.Cut(s, "@"); ok {
		if local != "" && !strings.ContainsAny(local, " /\\@") && isDomain(domain) {
			return kindEmail
		}
		return kindInvalid
	}
	if isDomain(s) && !strings.HasPrefix(s, "0x") {
		return kindENS
	}
	return kindInvalid
}

// isHexAddress reports whether s is 0x followed by 40 lower-case hex digits.
func isHexAddress(s string) bool {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return false
	}
	for _, c := range s[2:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isDomain reports whether s is two or more dot-separated labels of
// letters, digits, hyphens or non-ASCII letters, none empty.
func isDomain(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return false
		}
		for _, r := range l {
			if !(r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f) {
				return false
			}
		}
	}
	return true
}
