package discordtest

import (
	"encoding/json"
	"net/http"
)

// codeCannotMessageUser is Discord's "Cannot send messages to this user":
// the user closed their DMs to the server's members, or blocked the bot.
const codeCannotMessageUser = 50007

// dmRoutes registers the creation of DM channels; messages in them go
// through the channel message routes.
func (s *Server) dmRoutes() {
	s.mux.HandleFunc("POST /api/{v}/users/@me/channels", s.authed(s.createDM))
}

// DMChannel returns the id of the user's DM channel with the bot: the
// channel of their DM interactions and of the bot's private messages.
func DMChannel(userID string) string {
	if len(userID) < 2 {
		return "5" + userID
	}
	return "5" + userID[1:]
}

// CloseDMs makes messages to the user's DM channel answer 403 with 50007
// Cannot send messages to this user, as when a member closed their DMs.
func (s *Server) CloseDMs(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closedDMs[DMChannel(userID)] = true
}

// DMs returns the messages the bot sent the user in private, in order.
func (s *Server) DMs(userID string) []ChannelMessage {
	return s.ChannelMessages(DMChannel(userID))
}

// createDM answers POST /users/@me/channels with the recipient's DM
// channel, the same one every time.
func (s *Server) createDM(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RecipientID string `json:"recipient_id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.RecipientID == "" {
		writeError(w, http.StatusBadRequest, codeInvalidForm, "Invalid Form Body")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": DMChannel(body.RecipientID), "type": 1, "last_message_id": nil,
		"recipients": []any{map[string]any{"id": body.RecipientID, "username": "user" + body.RecipientID}},
	})
}
