package transport

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestStream(t *testing.T) {
	refused := errors.New("refused")
	tests := []struct {
		name       string
		status     int
		body       string
		cut        bool // the connection closes after half the body
		readErr    error
		wantRead   bool // read ran
		wantBody   string
		wantErr    bool
		wantBodyOf bool // the error is a *BodyError
	}{
		{name: "Streamed", status: 200, body: "[1,2]", wantRead: true},
		{name: "Refused", status: 200, body: "[1,2]", readErr: refused, wantRead: true, wantErr: true, wantBodyOf: true},
		{name: "CutShort", status: 200, body: "[1,2,3,4]", cut: true, readErr: refused, wantRead: true, wantErr: true},
		{name: "ErrorReadWhole", status: 404, body: `{"message":"no"}`, wantBody: `{"message":"no"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", strconv.Itoa(len(tc.body)))
				w.WriteHeader(tc.status)
				if tc.cut {
					w.Write([]byte(tc.body[:len(tc.body)/2]))
					return
				}
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			ran := false
			res, err := Stream(srv.Client(), req, func(r io.Reader) error {
				ran = true
				if _, err := io.ReadAll(r); err != nil {
					return err
				}
				return tc.readErr
			})
			var bodyErr *BodyError
			if ran != tc.wantRead || (err != nil) != tc.wantErr || errors.As(err, &bodyErr) != tc.wantBodyOf {
				t.Errorf("Stream() = %v (read ran: %v), want error %v, a *BodyError %v, read ran %v",
					err, ran, tc.wantErr, tc.wantBodyOf, tc.wantRead)
			}
			if err == nil && (res.Status != tc.status || string(res.Body) != tc.wantBody) {
				t.Errorf("Stream() = %d %q, want %d %q", res.Status, res.Body, tc.status, tc.wantBody)
			}
		})
	}
}
