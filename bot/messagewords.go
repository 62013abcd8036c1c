package bot

import (
	"errors"

	"github.com/poapbot/poapbot/core"
)

// messageText words the refusals of a signed message that is not the
// challenge's (core.MessageError): which term differs, and what to do.
// linkText calls it; the verification page has its own words.
func messageText(err error) (string, bool) {
	again := " Run " + codeSpan("/link <wallet>") + " again for a fresh challenge, and sign its message exactly as shown."
	for _, w := range []struct {
		err  error
		text string
	}{
		{core.ErrMessageMalformed, "The signed text is not the sign-in message of your challenge." + again},
		{core.ErrMessageDomain, "The signed message is a sign-in to another site than this bot's verification page, so it proves nothing here. " +
			"If another site asked you to sign it, that site was phishing for your wallet: sign nothing more there." + again},
		{core.ErrMessageURI, "The signed message names another page than your challenge's verification page." + again},
		{core.ErrMessageAddress, "The signed message names another wallet than the one you are verifying." + again},
		{core.ErrMessageNonce, "The signed message belongs to another challenge: its nonce is not this one's." + again},
		{core.ErrMessageChain, "The signed message names another chain or version than your challenge's." + again},
		{core.ErrMessageTime, "The times in the signed message (issued at, expiration) are not your challenge's." + again},
		{core.ErrMessageChanged, "The signed message was changed from your challenge's." + again},
	} {
		if errors.Is(err, w.err) {
			return w.text, true
		}
	}
	return "", false
}
