package discord

import (
	"net/http"
	"net/url"
	"time"

	"github.com/bwmarrin/discordgo"
)

// clientTimeout bounds a REST request made without a context deadline.
const clientTimeout = 20 * time.Second

// maxIdlePerHost is how many idle connections to the API the default
// transport keeps, instead of net/http's 2. Acknowledgements come in bursts
// (every member pressing Claim at once); with 2 kept, nearly every call of
// a burst dialed a new connection over HTTP/1.1. HTTP/2, which Discord
// speaks, multiplexes one connection and is not concerned.
const maxIdlePerHost = 100

// rewriteTransport sends the requests discordgo addresses to Discord's API
// host to another origin, keeping path and query. discordgo builds its
// endpoint strings once, at package init, so changing its package variables
// would be global and racy; a transport on this session's client changes
// only this session. Requests to other hosts (the CDN) pass unchanged.
type rewriteTransport struct {
	from   string // host discordgo sends REST calls to: discord.com
	origin *url.URL
	base   http.RoundTripper
}

// RoundTrip rewrites a clone of r; a RoundTripper must not change r.
func (t rewriteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != t.from {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = t.origin.Scheme, t.origin.Host
	r.Host = ""
	return t.base.RoundTrip(r)
}

// rewriteClient returns a copy of c (or a new client) whose transport
// rewrites discordgo's REST calls to origin. Without a transport of its
// own, the client gets a copy of net/http's default transport that keeps
// maxIdlePerHost idle connections.
func rewriteClient(c *http.Client, origin *url.URL) *http.Client {
	out := &http.Client{Timeout: clientTimeout}
	if c != nil {
		cc := *c
		out = &cc
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
		if t, ok := base.(*http.Transport); ok {
			t = t.Clone()
			t.MaxIdleConnsPerHost = maxIdlePerHost
			base = t
		}
	}
	from := "discord.com"
	if u, err := url.Parse(discordgo.EndpointDiscord); err == nil && u.Host != "" {
		from = u.Host
	}
	out.Transport = rewriteTransport{from: from, origin: origin, base: base}
	return out
}
