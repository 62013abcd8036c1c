package discordtest

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// routes registers the REST routes discordgo calls, with any API version.
func (s *Server) routes() {
	s.mux.HandleFunc("GET /ws", s.gateway)
	s.mux.HandleFunc("GET /ws/{$}", s.gateway) // discordgo adds a slash
	s.mux.HandleFunc("GET /api/{v}/gateway", s.gatewayURL)
	s.mux.HandleFunc("GET /api/{v}/gateway/bot", s.authed(s.gatewayURL))
	s.mux.HandleFunc("GET /api/{v}/users/@me", s.authed(s.me))
	s.mux.HandleFunc("GET /api/{v}/oauth2/applications/@me", s.authed(s.application))
	s.mux.HandleFunc("PUT /api/{v}/applications/{app}/commands", s.authed(s.putCommands))
	s.mux.HandleFunc("PUT /api/{v}/applications/{app}/guilds/{guild}/commands", s.authed(s.putCommands))
	s.mux.HandleFunc("POST /api/{v}/interactions/{id}/{token}/callback", s.callback)
	s.mux.HandleFunc("PATCH /api/{v}/webhooks/{app}/{token}/messages/{msg}", s.editMessage)
	s.mux.HandleFunc("DELETE /api/{v}/webhooks/{app}/{token}/messages/{msg}", s.deleteMessage)
	s.mux.HandleFunc("POST /api/{v}/webhooks/{app}/{token}", s.followup)
	s.channelRoutes()
	s.guildRoutes()
	s.dmRoutes()
	s.fileRoutes()
	s.voiceRoutes()
	s.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, 0, "Unknown")
	})
}

// gatewayURL answers GET /gateway and /gateway/bot with the fake's
// websocket.
func (s *Server) gatewayURL(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"url":    "ws" + strings.TrimPrefix(s.URL(), "http") + "/ws",
		"shards": 1,
		"session_start_limit": map[string]any{
			"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1,
		},
	})
}

func (s *Server) me(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"id": s.opts.AppID, "username": "poapbot", "bot": true})
}

func (s *Server) application(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"id": s.opts.AppID, "name": "poapbot"})
}

// putCommands records a bulk overwrite and echoes the commands with ids.
func (s *Server) putCommands(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("app") != s.opts.AppID {
		writeError(w, http.StatusNotFound, 10002, "Unknown Application")
		return
	}
	var cmds []map[string]any
	if err := json.NewDecoder(r.Body).Decode(&cmds); err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	scope := r.PathValue("guild")
	s.mu.Lock()
	raw := make([]json.RawMessage, len(cmds))
	for i, c := range cmds {
		c["id"], c["application_id"], c["version"] = s.newIDLocked(), s.opts.AppID, "1"
		if scope != "" {
			c["guild_id"] = scope
		}
		raw[i], _ = json.Marshal(c)
	}
	s.commands[scope] = raw
	s.notifyLocked()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, cmds)
}

// Commands returns the commands of the last bulk overwrite in a scope:
// "" for the global commands, else a guild id. It returns nil when there
// was none.
func (s *Server) Commands(scope string) []*discordgo.ApplicationCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return decodeCommands(s.commands[scope])
}

// WaitCommands waits for a bulk overwrite in the scope and returns its
// commands.
func (s *Server) WaitCommands(ctx context.Context, scope string) ([]*discordgo.ApplicationCommand, error) {
	var raw []json.RawMessage
	err := s.wait(ctx, func() bool {
		var ok bool
		raw, ok = s.commands[scope]
		return ok
	})
	return decodeCommands(raw), err
}

// File is a file attached to a message, as uploaded.
type File struct {
	Name        string
	ContentType string
	// Size is the length of Data, in bytes.
	Size int
	Data []byte
}

// maxUpload is Discord's upload limit for a bot in a server without
// boosts; larger bodies get 413.
const maxUpload = 10 << 20

// payload reads a JSON body, or the payload_json part of a multipart body
// (messages with files), and the files sent.
func payload(r *http.Request, v any) (files []File, err error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		return nil, json.NewDecoder(r.Body).Decode(v)
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return files, nil
		}
		switch {
		case part.FormName() == "payload_json":
			if err := json.NewDecoder(part).Decode(v); err != nil {
				return files, err
			}
		case part.FileName() != "":
			data, err := io.ReadAll(part)
			if err != nil {
				return files, err
			}
			files = append(files, File{Name: part.FileName(), ContentType: part.Header.Get("Content-Type"), Size: len(data), Data: data})
		}
	}
}

// tooLarge answers 413 when the files exceed the upload limit, as
// Discord does.
func tooLarge(w http.ResponseWriter, files []File) bool {
	total := 0
	for _, f := range files {
		total += f.Size
	}
	if total <= maxUpload {
		return false
	}
	writeError(w, http.StatusRequestEntityTooLarge, 40005, "Request entity too large")
	return true
}

// callbackBody is the body of an interaction callback.
type callbackBody struct {
	Type discordgo.InteractionResponseType `json:"type"`
	Data *messageBody                      `json:"data"`
}

// message returns the callback's message, setting an empty one when the
// callback has none (a deferral) so that it reads as a message without
// content.
func (b *callbackBody) message() *messageBody {
	if b.Data == nil {
		b.Data = &messageBody{}
	}
	return b.Data
}

// message returns b: an edit or a follow-up is a message as a whole.
func (b *messageBody) message() *messageBody { return b }

// messageRequest is a request body that carries a message.
type messageRequest interface {
	message() *messageBody
}

// readMessage reads a callback, edit or follow-up of the interaction named
// by the path's token into v, with its files. When the body is not JSON
// (400), the files exceed the upload limit (413) or Discord would refuse
// the message (400, recorded as kind), it answers so and reports false.
func (s *Server) readMessage(w http.ResponseWriter, r *http.Request, kind Kind, v messageRequest) (files []File, ok bool) {
	files, err := payload(r, v)
	if err != nil {
		writeError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return nil, false
	}
	if tooLarge(w, files) || s.refuse(w, r.PathValue("token"), kind, v.message(), files) {
		return nil, false
	}
	return files, true
}

// callback answers POST /interactions/{id}/{token}/callback.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	var body callbackBody
	files, ok := s.readMessage(w, r, KindCallback, &body)
	if !ok {
		return
	}
	status, code, msg := s.acknowledge(r.PathValue("id"), r.PathValue("token"), body.Type, body.message(), files)
	if status != http.StatusNoContent {
		writeError(w, status, code, msg)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// editMessage answers PATCH /webhooks/{app}/{token}/messages/{msg}.
func (s *Server) editMessage(w http.ResponseWriter, r *http.Request) {
	var body messageBody
	files, ok := s.readMessage(w, r, KindEdit, &body)
	if !ok {
		return
	}
	m, status, code := s.edit(r.PathValue("token"), r.PathValue("msg"), &body, files)
	if status != http.StatusOK {
		writeError(w, status, code, "Unknown Message")
		return
	}
	writeJSON(w, status, m.json(s.opts.AppID))
}

// deleteMessage answers DELETE /webhooks/{app}/{token}/messages/{msg}.
func (s *Server) deleteMessage(w http.ResponseWriter, r *http.Request) {
	if status, code := s.remove(r.PathValue("token"), r.PathValue("msg")); status != http.StatusNoContent {
		writeError(w, status, code, "Unknown Message")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// followup answers POST /webhooks/{app}/{token} (follow-up messages).
func (s *Server) followup(w http.ResponseWriter, r *http.Request) {
	var body messageBody
	files, ok := s.readMessage(w, r, KindFollowup, &body)
	if !ok {
		return
	}
	m, status, code := s.follow(r.PathValue("token"), &body, files)
	if status != http.StatusOK {
		writeError(w, status, code, "Unknown Webhook")
		return
	}
	if r.URL.Query().Get("wait") != "true" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, status, m.json(s.opts.AppID))
}

func decodeCommands(raw []json.RawMessage) []*discordgo.ApplicationCommand {
	if raw == nil {
		return nil
	}
	out := make([]*discordgo.ApplicationCommand, 0, len(raw))
	for _, r := range raw {
		var c discordgo.ApplicationCommand
		_ = json.Unmarshal(r, &c)
		out = append(out, &c)
	}
	return out
}

// refuse answers 400 Invalid Form Body, and records the attempt, when
// Discord would refuse the message.
func (s *Server) refuse(w http.ResponseWriter, token string, kind Kind, b *messageBody, files []File) bool {
	err := validate(b)
	if err == nil {
		return false
	}
	s.mu.Lock()
	if it := s.interactions[token]; it != nil {
		it.record(kind, b.Flags, b, files, http.StatusBadRequest)
		s.notifyLocked()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusBadRequest, map[string]any{
		"message": "Invalid Form Body", "code": codeInvalidForm, "errors": map[string]any{"_errors": []string{err.Error()}},
	})
	return true
}
