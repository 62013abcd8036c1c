package core

import "strings"

// StripDirectionControls returns s without the characters that change the
// direction of the text around them: the embeddings and overrides U+202A
// to U+202E, the isolates U+2066 to U+2069, and the marks U+200E, U+200F
// and U+061C. It is applied to the names platforms give (a member's, a
// group's, a server's, a role's) before they go into a challenge message,
// a page or a reply: a name with an override (U+202E) reads backwards
// wherever it is shown, and so does what follows it, such as the member's
// id after their name in a challenge. The marks go too: they are
// invisible, carry no letter and only move the neutral characters around
// them (the brackets of "name (id)"), and the options members type refuse
// them already. Every other character is kept.
func StripDirectionControls(s string) string {
	if !strings.ContainsFunc(s, IsDirectionControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if IsDirectionControl(r) {
			return -1
		}
		return r
	}, s)
}

// IsDirectionControl reports whether r embeds, overrides or isolates the
// direction of text, or is a direction mark (see StripDirectionControls).
func IsDirectionControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}
