package poap_test

import (
	"cmp"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/internal/testlog"
	"github.com/poapbot/poapbot/poap"
	"github.com/poapbot/poapbot/poap/auth"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// Credentials of the setup checks; neither may appear in a line or a log.
const (
	checkClientID = "check-client"
	checkSecret   = core.Secret("check-secret-31f6a0")
)

// checkEnv is a sandbox on loopback with a database for the token manager.
type checkEnv struct {
	sb   *sandbox.Server
	url  string
	db   *storage.DB
	logs *testlog.Buffer
}

func newCheckEnv(t *testing.T) *checkEnv {
	t.Helper()
	sb := sandbox.New(sandbox.Options{APIKey: testKey, ClientID: checkClientID, ClientSecret: checkSecret.Reveal()})
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	db, err := storage.Open(t.Context(), migrated.SQLiteURL(t), storage.WithKey(storage.Key{3}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &checkEnv{sb: sb, url: srv.URL, db: db, logs: &testlog.Buffer{}}
}

// checkOptions say how the client of a check is built.
type checkOptions struct {
	key    core.Secret
	url    string      // "" is the sandbox
	secret core.Secret // the client secret given to the token manager; "" for none
	tokens poap.TokenSource
}

// client returns a client of the sandbox built as o says.
func (e *checkEnv) client(t *testing.T, o checkOptions) *poap.Client {
	t.Helper()
	logger := e.logs.Logger()
	tokens := o.tokens
	if !o.secret.IsZero() {
		tk, err := auth.New(auth.Options{AuthURL: e.url, ClientID: checkClientID, ClientSecret: o.secret, Store: e.db, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		tokens = tk
	}
	c, err := poap.NewClient(poap.Options{
		BaseURL: cmp.Or(o.url, e.url), APIKey: o.key, Tokens: tokens, Audience: sandbox.DefaultAudience,
		Retry: noRetry, RateLimit: -1, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// closedURL returns the address of a server that no longer listens.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(nil)
	srv.Close()
	return srv.URL
}

func TestClient_CheckIssuer(t *testing.T) {
	tests := []struct {
		name string
		opts func(t *testing.T) checkOptions
		// want is each line's check and result; fixes name the settings
		// to look at.
		want  []core.SetupLine
		fixes []string
	}{
		{
			name: "OK",
			opts: func(*testing.T) checkOptions { return checkOptions{key: testKey, secret: checkSecret} },
			want: []core.SetupLine{{Check: poap.CheckKey, OK: true}, {Check: poap.CheckCredentials, OK: true}},
		},
		{
			name:  "BadKey",
			opts:  func(*testing.T) checkOptions { return checkOptions{key: "wrong-key", secret: checkSecret} },
			want:  []core.SetupLine{{Check: poap.CheckKey}, {Check: poap.CheckCredentials, OK: true}},
			fixes: []string{"POAP_API_KEY", ""},
		},
		{
			name:  "NoKey",
			opts:  func(*testing.T) checkOptions { return checkOptions{secret: checkSecret} },
			want:  []core.SetupLine{{Check: poap.CheckKey}, {Check: poap.CheckCredentials, OK: true}},
			fixes: []string{"POAP_API_KEY", ""},
		},
		{
			name: "Unreachable",
			opts: func(t *testing.T) checkOptions {
				return checkOptions{key: testKey, url: closedURL(t), secret: checkSecret}
			},
			want:  []core.SetupLine{{Check: poap.CheckUnreachable}, {Check: poap.CheckCredentials, OK: true}},
			fixes: []string{"POAP_API_URL", ""},
		},
		{
			name:  "BadCredentials",
			opts:  func(*testing.T) checkOptions { return checkOptions{key: testKey, secret: "wrong-secret-0e1d"} },
			want:  []core.SetupLine{{Check: poap.CheckKey, OK: true}, {Check: poap.CheckCredentials}},
			fixes: []string{"", "POAP_CLIENT_SECRET"},
		},
		{
			name:  "NoCredentials",
			opts:  func(*testing.T) checkOptions { return checkOptions{key: testKey} },
			want:  []core.SetupLine{{Check: poap.CheckKey, OK: true}, {Check: poap.CheckNoCredentials}},
			fixes: []string{"", "POAP_CLIENT_ID"},
		},
		{
			name:  "TokenBudgetSpent",
			opts:  func(*testing.T) checkOptions { return checkOptions{key: testKey, tokens: spentTokens("")} },
			want:  []core.SetupLine{{Check: poap.CheckKey, OK: true}, {Check: poap.CheckCredentials}},
			fixes: []string{"", "hour"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCheckEnv(t)
			lines := e.client(t, tt.opts(t)).CheckIssuer(t.Context())
			if len(lines) != len(tt.want) {
				t.Fatalf("CheckIssuer() = %+v, want %d lines", lines, len(tt.want))
			}
			for i, l := range lines {
				if l.Check != tt.want[i].Check || l.OK != tt.want[i].OK {
					t.Errorf("CheckIssuer() line %d = %+v, want %q OK=%v", i, l, tt.want[i].Check, tt.want[i].OK)
				}
				if l.OK != (l.Fix == "") {
					t.Errorf("CheckIssuer() line %d = %+v: a fix when it passed, or none when it failed", i, l)
				}
				if !l.OK && !strings.Contains(l.Fix, tt.fixes[i]) {
					t.Errorf("CheckIssuer() line %d fix = %q, want it to name %s", i, l.Fix, tt.fixes[i])
				}
				for _, secret := range []string{testKey, checkSecret.Reveal(), "wrong-key", "wrong-secret", "sbx_"} {
					if strings.Contains(l.Check+l.Fix, secret) {
						t.Errorf("CheckIssuer() line %d = %+v holds a secret", i, l)
					}
				}
			}
			for _, secret := range []string{testKey, checkSecret.Reveal(), "sbx_"} {
				if strings.Contains(e.logs.String(), secret) {
					t.Errorf("the logs hold a secret:\n%s", e.logs)
				}
			}
		})
	}
}

// TestClient_CheckIssuer_StoredToken checks that a check spends no token
// while a valid one is kept, in memory or in the store of another process.
func TestClient_CheckIssuer_StoredToken(t *testing.T) {
	e := newCheckEnv(t)
	for i, c := range []*poap.Client{
		e.client(t, checkOptions{key: testKey, secret: checkSecret}),
		e.client(t, checkOptions{key: testKey, secret: checkSecret}),
	} {
		for range 2 {
			if lines := c.CheckIssuer(t.Context()); !lines[1].OK {
				t.Fatalf("client %d: CheckIssuer() = %+v, want the credentials accepted", i, lines)
			}
		}
	}
	if n := e.sb.TokensIssued(checkClientID); n != 1 {
		t.Errorf("tokens issued = %d after four checks by two clients, want 1", n)
	}
}
