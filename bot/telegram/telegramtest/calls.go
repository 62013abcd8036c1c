package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
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
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitCall returns the first call of method, waiting for it until ctx is
// done.
func (s *Server) WaitCall(ctx context.Context, method string) (Call, error) {
	for {
		s.mu.Lock()
		for _, c := range s.calls {
			if c.Method == method {
				s.mu.Unlock()
				return c, nil
			}
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Call{}, fmt.Errorf("telegramtest: no %s call: %w", method, ctx.Err())
		}
	}
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	s.notifyLocked()
}

// readParams reads a request's parameters from the query, a form, a
// multipart form (uploaded files become "attach:<file name>") or JSON.
func readParams(r *http.Request) (map[string]string, error) {
	p := map[string]string{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		return p, readJSON(r, p)
	case "multipart/form-data":
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			return nil, err
		}
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
		for k, f := range r.MultipartForm.File {
			p[k] = "attach:" + f[0].Filename
		}
	default:
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	}
	return p, nil
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
