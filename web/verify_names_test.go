package web

import (
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

// TestVerificationPage_DirectionControls: a message whose member name
// holds characters that reorder text (a challenge made before names were
// cleaned) is shown without them; the bytes the wallet signs are the
// message's own.
func TestVerificationPage_DirectionControls(t *testing.T) {
	c := testChallenge()
	c.Message = "POAP bot asks you to prove you own this wallet.\n\nMember: Ann\u202Egnp.exe\u202C\u2067 (42)\u2069\u200F\nNonce: " + testNonce
	rec := serveGet(newTestVerification(&fakeVerifier{challenge: c}, "", nil), "/verify/"+testNonce)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET page: status = %d, want 200", rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, "Member: Anngnp.exe (42)\nNonce: ") {
		t.Errorf("GET page: body lacks the cleaned name; body:\n%s", body)
	}
	for _, r := range []string{"\u202E", "\u202C", "\u2067", "\u2069", "\u200F"} {
		if strings.Contains(body, r) {
			t.Errorf("GET page: body holds %U", []rune(r)[0])
		}
	}
	if want := `data-message-hex="0x` + hex.EncodeToString([]byte(c.Message)) + `"`; !strings.Contains(body, want) {
		t.Errorf("GET page: the signed bytes are not the message's own")
	}
}
