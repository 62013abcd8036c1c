// Package telegramtest is a fake Telegram Bot API for tests. It serves the
// real telegram-bot-api client over loopback HTTP: POST /bot<token>/<method>
// with form, multipart or JSON bodies, answering in the Bot API's shapes
// ({"ok":true,"result":...} or {"ok":false,"error_code":...}).
//
// A test pushes what members do (SendText, PressButton, RequestJoin,
// PushUpdate), reads what the bot sent (Messages, WaitMessage) and which
// methods it called (Calls, WaitCall), and shapes the fake's answers
// (SetAdmins, SetStatus, NeverStarted, Fail, Delay, RefuseURL). Photos
// (sendPhoto) and albums (sendMediaGroup, one message per photo with a
// shared MediaGroupID) are recorded as messages with their Photo. Edits
// (editMessageText, editMessageCaption) of a message the bot sent are
// recorded as messages with its id. Updates are served by long-polling
// getUpdates, or POSTed to the URL given to setWebhook, with its
// secret_token header, once a webhook is set. Messages members send with
// SendText are kept as their chat shows them (MemberMessages);
// deleteMessage marks them deleted, and Fail makes it fail as when the bot
// lacks the right to delete messages.
//
// For gating, the fake keeps chats (SetChat, getChat), the bot's rights in
// them (SetBotRights, ForbidAdmin), members' statuses (SetStatus, Member),
// join requests (RequestJoin, JoinPending) and answers
// createChatInviteLink, approveChatJoinRequest, declineChatJoinRequest,
// banChatMember and unbanChatMember as Telegram does, refusing what the
// bot's rights do not allow; WaitApproved, WaitDeclined and WaitRemoved
// wait for their success.
//
// For Moments, members send media (SendMedia: a photo, video, animation or
// document with a caption; SendAlbum: items sharing a media_group_id;
// ReplyText: a text replying to an earlier message, which the update
// carries whole), and the fake serves the files they name (AddFile,
// getFile, GET /file/bot<token>/<file_path>, large ones generated as they
// are read: GeneratedFile, NewRandom), refusing what the cloud Bot API
// refuses when told to (LimitDownloads). WaitEdits waits for the edits of
// a message the bot sent, in order.
//
// Like the real API, the fake can hold the bot to flood limits
// (Options.Limits, SetLimits; BotAPILimits are Telegram's): a message
// sent faster than they allow is refused with 429 Too Many Requests and
// parameters.retry_after, and kept among the Throttled calls, not the
// Messages. Each message records when it arrived (At), so MaxInWindow
// can check the bot's pace from the fake's record. Limits are off by
// default. A Server is safe for concurrent use.
//
//	tg := telegramtest.NewServer(telegramtest.Options{})
//	defer tg.Close()
//	// TELEGRAM_TOKEN=tg.Token, TELEGRAM_API_URL=tg.URL()
//	alice := telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
//	tg.SendText(telegramtest.PrivateChat(alice), alice, "/help")
//	msg, err := tg.WaitMessage(ctx, telegramtest.To(alice.ID))
package telegramtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultToken    = "123456:TEST-token"
	DefaultUsername = "TestBot"
	DefaultBotID    = 123456
)

// Options configure a Server. The zero value is ready to use.
type Options struct {
	// Token is the only token the fake accepts (default DefaultToken); any
	// other gets 401 Unauthorized, as from the real API.
	Token string
	// Username is the bot's username answered by getMe (default
	// DefaultUsername), BotID its user id (default DefaultBotID).
	Username string
	BotID    int64
	// WebhookClient delivers updates once a webhook is set (default: a
	// client with a 10 s timeout). Give one that trusts your TLS test
	// server to deliver to an https:// webhook.
	WebhookClient *http.Client
	// Limits are the flood limits the fake holds the bot to from the
	// start (default none; see BotAPILimits, SetLimits).
	Limits Limits
}

// Server is a fake Telegram Bot API on a loopback httptest server.
type Server struct {
	// Token, Username and BotID are the bot's credentials and identity.
	Token    string
	Username string
	BotID    int64

	srv           *httptest.Server
	webhookClient *http.Client
	closed        chan struct{}
	closeOnce     sync.Once
	deliveries    sync.WaitGroup

	mu            sync.Mutex
	changed       chan struct{} // closed and replaced on every change
	nextUpdate    int
	nextMessage   int
	nextGroup     int // media groups sent or posted
	pending       []pendingUpdate
	sent          []Message
	incoming      []MemberMessage
	calls         []Call
	abandoned     []Call // calls whose client gave up before the answer
	answered      []Call // calls answered with a result, not an error
	admins        map[int64]map[int64]bool
	statuses      map[int64]map[int64]string
	chats         map[int64]Chat
	botRights     map[int64]BotRights
	forbidden     map[int64]bool
	joins         map[memberKey]bool       // pending join requests
	links         map[int64]map[string]any // last join-request link of each chat
	nextLink      int
	neverStarted  map[int64]bool
	failures      map[string][]Failure
	refused       map[string]bool // URLs the fake cannot fetch
	delays        map[string]time.Duration
	webhook       map[string]string
	delivered     []Delivery
	isClosed      bool            // no new webhook deliveries
	files         map[string]File // by file_id
	downloadLimit int64
	downloads     []string
	memberBodies  map[int]map[string]any // members' messages, for replies
	limits        Limits
	global        []time.Time           // arrivals within limits.Global, oldest first
	perChat       map[int64][]time.Time // arrivals within each chat's window
	throttled     []Call                // calls the limits refused
	now           func() time.Time      // the clock of the limits and Message.At
}

// NewServer starts a fake Bot API. Close it when the test ends.
func NewServer(opts Options) *Server {
	s := &Server{
		Token:         opts.Token,
		Username:      opts.Username,
		BotID:         opts.BotID,
		webhookClient: opts.WebhookClient,
		closed:        make(chan struct{}),
		changed:       make(chan struct{}),
		admins:        map[int64]map[int64]bool{},
		statuses:      map[int64]map[int64]string{},
		chats:         map[int64]Chat{},
		botRights:     map[int64]BotRights{},
		forbidden:     map[int64]bool{},
		joins:         map[memberKey]bool{},
		links:         map[int64]map[string]any{},
		neverStarted:  map[int64]bool{},
		failures:      map[string][]Failure{},
		refused:       map[string]bool{},
		delays:        map[string]time.Duration{},
		files:         map[string]File{},
		memberBodies:  map[int]map[string]any{},
		limits:        opts.Limits,
		perChat:       map[int64][]time.Time{},
		now:           time.Now,
	}
	if s.Token == "" {
		s.Token = DefaultToken
	}
	if s.Username == "" {
		s.Username = DefaultUsername
	}
	if s.BotID == 0 {
		s.BotID = DefaultBotID
	}
	if s.webhookClient == nil {
		s.webhookClient = &http.Client{Timeout: 10 * time.Second}
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the API base to pass as TELEGRAM_API_URL.
func (s *Server) URL() string { return s.srv.URL }

// Close unblocks pending long polls, waits for webhook deliveries and stops
// the server. It may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.isClosed = true
		s.mu.Unlock()
		close(s.closed)
		s.deliveries.Wait()
		s.srv.Close()
	})
}

// Failure is an error answer the fake gives instead of the method's result.
type Failure struct {
	Code        int
	Description string
	// RetryAfter, when set, is sent as parameters.retry_after (429).
	RetryAfter int
}

// Fail makes the next call of method answer f instead of its result. Calls
// queue: Fail twice to fail the next two calls.
func (s *Server) Fail(method string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[method] = append(s.failures[method], f)
}

// Delay makes every later call of method wait d before answering (or until
// the client gives up), to test timeouts. Zero removes the delay.
func (s *Server) Delay(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delays[method] = d
}

// SetAdmins makes userIDs the administrators of chatID for getChatMember;
// everyone else is a plain member. It replaces earlier admins of the chat.
func (s *Server) SetAdmins(chatID int64, userIDs ...int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.admins[chatID] = map[int64]bool{}
	for _, id := range userIDs {
		s.admins[chatID][id] = true
	}
}

// SetStatus sets a user's status in a chat for getChatMember ("member",
// "administrator", "creator", "restricted", "left", "kicked"), over
// SetAdmins; a restricted user is still a member (is_member true).
func (s *Server) SetStatus(chatID, userID int64, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setStatusLocked(chatID, userID, status)
}

// NeverStarted simulates members who never opened the bot's private chat:
// sending them anything fails with 403 "Forbidden: bot can't initiate
// conversation with a user", as the real API answers.
func (s *Server) NeverStarted(userIDs ...int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range userIDs {
		s.neverStarted[id] = true
	}
}

// OpenPrivateChat undoes NeverStarted for a member who pressed Start.
func (s *Server) OpenPrivateChat(userID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.neverStarted, userID)
}

// notifyLocked wakes every waiter; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// serve routes POST /bot<token>/<method> and GET
// /file/bot<token>/<file_path>.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, r, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, method, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || method == "" {
		writeError(w, Failure{Code: http.StatusNotFound, Description: "Not Found"})
		return
	}
	if token != s.Token {
		writeError(w, Failure{Code: http.StatusUnauthorized, Description: "Unauthorized"})
		return
	}
	params, files, err := readParams(r)
	if err != nil {
		writeError(w, Failure{Code: http.StatusBadRequest, Description: "Bad Request: " + err.Error()})
		return
	}
	c := Call{Method: method, Params: params, Files: files}
	s.record(c)
	defer s.finish(r, c)
	if !s.wait(r, method) {
		return
	}
	if f, ok := s.nextFailure(method); ok {
		writeError(w, f)
		return
	}
	at, f := s.admit(c)
	if f != nil {
		writeError(w, *f)
		return
	}
	result, f := s.call(r, c, at)
	if f != nil {
		writeError(w, *f)
		return
	}
	s.answer(c)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

// wait applies the method's delay; false when the client or the server
// gave up first.
func (s *Server) wait(r *http.Request, method string) bool {
	s.mu.Lock()
	d := s.delays[method]
	s.mu.Unlock()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.closed:
	}
	return false
}

func (s *Server) nextFailure(method string) (Failure, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.failures[method]
	if len(q) == 0 {
		return Failure{}, false
	}
	s.failures[method] = q[1:]
	return q[0], true
}

// call runs one method, which arrived at at, and returns its result or a
// failure.
func (s *Server) call(r *http.Request, c Call, at time.Time) (any, *Failure) {
	method, p := c.Method, c.Params
	switch method {
	case "getMe":
		return s.getMe(), nil
	case "getUpdates":
		return s.getUpdates(r, p)
	case "setWebhook":
		return s.setWebhook(p)
	case "deleteWebhook":
		return s.deleteWebhook(p), nil
	case "getWebhookInfo":
		return s.webhookInfo(), nil
	case "setMyCommands", "deleteMyCommands", "answerCallbackQuery":
		return true, nil
	case "deleteMessage":
		return s.deleteMessage(p)
	case "getMyCommands":
		return s.myCommands(), nil
	case "sendMessage", "sendPhoto", "editMessageText", "editMessageCaption":
		return s.send(method, p, at)
	case "sendDocument":
		return s.sendDocument(c, at)
	case "sendMediaGroup":
		return s.sendMediaGroup(c, at)
	case "getChatMember":
		return s.chatMember(p)
	case "getFile":
		return s.getFile(p)
	case "getChat":
		return s.getChat(p)
	case "createChatInviteLink":
		return s.createInviteLink(p)
	case "approveChatJoinRequest", "declineChatJoinRequest":
		return s.joinRequest(method == "approveChatJoinRequest", p)
	case "banChatMember":
		return s.ban(p)
	case "unbanChatMember":
		return s.unban(p)
	}
	return nil, &Failure{Code: http.StatusNotFound, Description: "Not Found: method not found"}
}

func (s *Server) getMe() map[string]any {
	return map[string]any{
		"id": s.BotID, "is_bot": true, "first_name": "Test Bot", "username": s.Username,
		"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false,
	}
}

func writeError(w http.ResponseWriter, f Failure) {
	body := map[string]any{"ok": false, "error_code": f.Code, "description": f.Description}
	if f.RetryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": f.RetryAfter}
	}
	writeJSON(w, f.Code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
