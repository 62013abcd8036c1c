package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// Call is one request the bot made, with its parameters as the Bot API
// reads them: scalars as text, objects and arrays as JSON text (as the
// client sends them in forms).
type Call struct {
	Method string
	Params map[string]string
	// Files are the files uploaded in a multipart body, by parameter name
	// ("document"); their parameter reads "attach:<file name>".
	Files map[string]Document
}

// Document is a file the bot uploaded.
type Document struct {
	Name string
	// Size is the length of Data, in bytes.
	Size int
	Data []byte
}

// Decode JSON-decodes the parameter key (allowed_updates, commands, scope,
// reply_markup, ...) into v.
func (c Call) Decode(key string, v any) error {
	raw, ok := c.Params[key]
	if !ok {
		return fmt.Errorf("telegramtest: %s has no parameter %q", c.Method, key)
	}
	return json.Unmarshal([]byte(raw), v)
}

// Calls returns the calls of method made so far, oldest first; with method
// "" every call.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return filter(s.calls, ofMethod(method))
}

// WaitCall returns the first call of method, waiting for it until ctx is
// done.
func (s *Server) WaitCall(ctx context.Context, method string) (Call, error) {
	c, err := s.waitIn(ctx, func() []Call { return s.calls }, ofMethod(method))
	if err != nil {
		return Call{}, fmt.Errorf("telegramtest: no %s call: %w", method, err)
	}
	return c, nil
}

// WaitCallWhere returns the first call of method that match accepts,
// waiting until ctx is done.
func (s *Server) WaitCallWhere(ctx context.Context, method string, match func(Call) bool) (Call, error) {
	c, err := s.waitIn(ctx, func() []Call { return s.calls }, func(c Call) bool { return ofMethod(method)(c) && match(c) })
	if err != nil {
		return Call{}, fmt.Errorf("telegramtest: no such %s call: %w", method, err)
	}
	return c, nil
}

// WaitCalls returns the calls of method once there are at least n of
// them, waiting until ctx is done.
func (s *Server) WaitCalls(ctx context.Context, method string, n int) ([]Call, error) {
	for {
		s.mu.Lock()
		found := filter(s.calls, ofMethod(method))
		changed := s.changed
		s.mu.Unlock()
		if len(found) >= n {
			return found, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return found, fmt.Errorf("telegramtest: %d %s calls, want %d: %w", len(found), method, n, ctx.Err())
		}
	}
}

// Abandoned returns the calls of method whose client gave up (cancelled
// the request or closed the connection) before the fake had answered,
// oldest first; with method "" every such call.
func (s *Server) Abandoned(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return filter(s.abandoned, ofMethod(method))
}

// WaitAbandoned returns the first call of method whose client gave up
// before the answer, waiting for one until ctx is done: the event that
// shows a bot abandoned a slow call or a long poll instead of waiting it
// out.
func (s *Server) WaitAbandoned(ctx context.Context, method string) (Call, error) {
	c, err := s.waitIn(ctx, func() []Call { return s.abandoned }, ofMethod(method))
	if err != nil {
		return Call{}, fmt.Errorf("telegramtest: no abandoned %s call: %w", method, err)
	}
	return c, nil
}

// ofMethod matches the calls of method; "" matches every method.
func ofMethod(method string) func(Call) bool {
	return func(c Call) bool { return method == "" || c.Method == method }
}

// filter returns the calls among calls that match accepts.
func filter(calls []Call, match func(Call) bool) []Call {
	var out []Call
	for _, c := range calls {
		if match(c) {
			out = append(out, c)
		}
	}
	return out
}

// waitIn returns the first call that match accepts in the list list gives
// (read under s.mu), waiting for a change of the server until ctx is done.
func (s *Server) waitIn(ctx context.Context, list func() []Call, match func(Call) bool) (Call, error) {
	for {
		s.mu.Lock()
		if found := filter(list(), match); len(found) > 0 {
			s.mu.Unlock()
			return found[0], nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Call{}, ctx.Err()
		}
	}
}

// finish records c as abandoned when its client went away before the
// handler was done with it.
func (s *Server) finish(r *http.Request, c Call) {
	if r.Context().Err() == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.abandoned = append(s.abandoned, c)
	s.notifyLocked()
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	s.notifyLocked()
}

// readParams reads a request's parameters from the query, a form, a
// multipart form (uploaded files become "attach:<file name>" and are
// returned by name) or JSON.
func readParams(r *http.Request) (map[string]string, map[string]Document, error) {
	p := map[string]string{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		return p, nil, readJSON(r, p)
	case "multipart/form-data":
		return readMultipart(r, p)
	default:
		if err := r.ParseForm(); err != nil {
			return nil, nil, err
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	}
	return p, nil, nil
}

// readMultipart reads a multipart form into p and returns its files.
func readMultipart(r *http.Request, p map[string]string) (map[string]string, map[string]Document, error) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		return nil, nil, err
	}
	defer r.MultipartForm.RemoveAll()
	for k, v := range r.MultipartForm.Value {
		p[k] = v[0]
	}
	files := map[string]Document{}
	for k, f := range r.MultipartForm.File {
		p[k] = "attach:" + f[0].Filename
		body, err := f[0].Open()
		if err != nil {
			return nil, nil, err
		}
		data, err := io.ReadAll(body)
		body.Close()
		if err != nil {
			return nil, nil, err
		}
		files[k] = Document{Name: f[0].Filename, Size: len(data), Data: data}
	}
	return p, files, nil
}

func readJSON(r *http.Request, p map[string]string) error {
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return fmt.Errorf("can't parse JSON body: %w", err)
	}
	for k, raw := range body {
		var s string
		if strings.HasPrefix(string(raw), `"`) && json.Unmarshal(raw, &s) == nil {
			p[k] = s
			continue
		}
		p[k] = string(raw)
	}
	return nil
}
