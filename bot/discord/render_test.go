package discord

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"

	"github.com/poapbot/poapbot/bot"
)

func TestFit(t *testing.T) {
	long := strings.Repeat("line of text\n", 200)
	fenced := "```\n" + strings.Repeat("0123456789\n", 300) + "```"
	tests := []struct {
		name    string
		in      string
		wantCut bool
	}{
		{"Short", "**POAPs** of `0xabc`", false},
		{"Exact", strings.Repeat("é", maxContent), false},
		{"Long", long, true},
		{"OpenFence", fenced, true},
		{"NoNewline", strings.Repeat("x", 3000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := fit(tt.in, maxContent)
			if cut != tt.wantCut {
				t.Fatalf("fit cut = %v, want %v", cut, tt.wantCut)
			}
			if !cut {
				if got != tt.in {
					t.Errorf("fit changed a short text: %q", got)
				}
				return
			}
			if n := utf8.RuneCountInString(got); n > maxContent {
				t.Errorf("fit = %d characters, want at most %d", n, maxContent)
			}
			if !strings.Contains(got, "…") || strings.Count(got, "```")%2 != 0 {
				t.Errorf("fit = ...%q, want an ellipsis and closed fences", got[max(0, len(got)-40):])
			}
		})
	}
}

func TestComponents(t *testing.T) {
	a := &Adapter{log: slog.New(slog.DiscardHandler)}
	buttons := []bot.Button{
		{Label: "Open", URL: "https://poap.xyz/mint/abc"},
		{Label: "Next", Command: "/poaps wallet:0xabc page:2", Action: "NEXTNEXTNEXTNEXTNEXTNEXTNE"},
		{Label: "Again", Command: "/poaps wallet:0xabc page:2", Action: "NEXTNEXTNEXTNEXTNEXTNEXTNE"}, // same custom_id
		{Label: "Not stored", Command: "/poaps wallet:0xabc page:3"},
		{Label: "", URL: "https://poap.xyz"},
		{Label: "Neither"},
	}
	for i := range 6 {
		buttons = append(buttons, bot.Button{Label: fmt.Sprint("B", i), Command: fmt.Sprint("/help ", i), Action: fmt.Sprint("HELP", i), Public: i == 0})
	}
	got := a.components(buttons)
	want := []discordgo.MessageComponent{
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Open", Style: discordgo.LinkButton, URL: "https://poap.xyz/mint/abc"},
			discordgo.Button{Label: "Next", Style: discordgo.SecondaryButton, CustomID: "b:NEXTNEXTNEXTNEXTNEXTNEXTNE"},
			discordgo.Button{Label: "B0", Style: discordgo.SecondaryButton, CustomID: "B:HELP0"},
			discordgo.Button{Label: "B1", Style: discordgo.SecondaryButton, CustomID: "b:HELP1"},
			discordgo.Button{Label: "B2", Style: discordgo.SecondaryButton, CustomID: "b:HELP2"},
		}},
		discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "B3", Style: discordgo.SecondaryButton, CustomID: "b:HELP3"},
			discordgo.Button{Label: "B4", Style: discordgo.SecondaryButton, CustomID: "b:HELP4"},
			discordgo.Button{Label: "B5", Style: discordgo.SecondaryButton, CustomID: "b:HELP5"},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("components mismatch (-want +got):\n%s", diff)
	}
}

func TestRender(t *testing.T) {
	a := &Adapter{log: slog.New(slog.DiscardHandler)}
	m := a.render(bot.Reply{Text: "", Image: "https://img.test/1.png"})
	if m.content != "Done." {
		t.Errorf("render(empty).content = %q, want Done.", m.content)
	}
	if len(m.embeds) != 1 || m.embeds[0].Thumbnail == nil || m.embeds[0].Thumbnail.URL != "https://img.test/1.png" {
		t.Errorf("render(image).embeds = %+v, want one thumbnail", m.embeds)
	}
	if d := m.response(true); d.Flags != discordgo.MessageFlagsEphemeral || d.AllowedMentions == nil || d.AllowedMentions.Parse == nil {
		t.Errorf("response(personal) = flags %d, mentions %+v; want 64 and none allowed", d.Flags, d.AllowedMentions)
	}
	if d := m.followup(false); d.Flags != 0 {
		t.Errorf("followup(public).Flags = %d, want 0", d.Flags)
	}
}

// picturesOf returns n pictures, captioned "Drop i (#i)".
func picturesOf(n int) []bot.Picture {
	var out []bot.Picture
	for i := range n {
		out = append(out, bot.Picture{URL: fmt.Sprintf("https://assets.test/%d.png?size=small", i), Caption: fmt.Sprintf("Drop %d (#%d)", i, i)})
	}
	return out
}

// pictureEmbeds returns the embeds render makes of picturesOf(n).
func pictureEmbeds(n int) []*discordgo.MessageEmbed {
	var out []*discordgo.MessageEmbed
	for i, p := range picturesOf(n) {
		out = append(out, imageEmbed(p.URL, fmt.Sprintf("Drop %d (#%d)", i, i), ""))
	}
	return out
}

// imageEmbed is the embed render makes of a picture.
func imageEmbed(url, title, link string) *discordgo.MessageEmbed {
	return &discordgo.MessageEmbed{Title: title, URL: link, Image: &discordgo.MessageEmbedImage{URL: url}}
}

// TestRender_Pictures: each picture is an embed with the picture as its
// large image and the caption as its title; at most 10 embeds in all.
func TestRender_Pictures(t *testing.T) {
	a := &Adapter{log: slog.New(slog.DiscardHandler)}
	long := strings.Repeat("é", 300)
	tests := []struct {
		name string
		in   bot.Reply
		want []*discordgo.MessageEmbed
	}{
		{"Ten", bot.Reply{Pictures: picturesOf(10)}, pictureEmbeds(10)},
		{"Twelve", bot.Reply{Pictures: picturesOf(12)}, pictureEmbeds(10)},
		{"LongCaption", bot.Reply{Pictures: []bot.Picture{{URL: "https://assets.test/a.png", Caption: long}}},
			[]*discordgo.MessageEmbed{imageEmbed("https://assets.test/a.png", strings.Repeat("é", maxEmbedTitle-1)+"…", "")}},
		{"Skipped", bot.Reply{Pictures: []bot.Picture{
			{Caption: "No image"},
			{URL: "javascript:alert(1)", Caption: "Not a web address"},
			{URL: "https://assets.test/b.png", Caption: "Linked", Link: "https://poap.gallery/drops/2"},
			{URL: "https://assets.test/c.png", Caption: "Bad link", Link: "ftp://x.test/c"},
		}}, []*discordgo.MessageEmbed{
			imageEmbed("https://assets.test/b.png", "Linked", "https://poap.gallery/drops/2"),
			imageEmbed("https://assets.test/c.png", "Bad link", ""),
		}},
		{"ThumbnailFirst", bot.Reply{Image: "https://assets.test/drop.png", Pictures: picturesOf(10)}, append(
			[]*discordgo.MessageEmbed{{Thumbnail: &discordgo.MessageEmbedThumbnail{URL: "https://assets.test/drop.png"}}},
			pictureEmbeds(9)...)},
		{"None", bot.Reply{Text: "text"}, []*discordgo.MessageEmbed{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := a.render(tt.in)
			if diff := cmp.Diff(tt.want, m.embeds); diff != "" {
				t.Errorf("render(%d pictures).embeds mismatch (-want +got):\n%s", len(tt.in.Pictures), diff)
			}
			// Every way the message goes out carries them.
			if e := m.edit().Embeds; !cmp.Equal(*e, m.embeds) {
				t.Errorf("edit().Embeds = %v, want the message's", *e)
			}
			if !cmp.Equal(m.followup(true).Embeds, m.embeds) || !cmp.Equal(m.response(true).Embeds, m.embeds) {
				t.Errorf("followup or response embeds differ from the message's")
			}
		})
	}
}

// TestRender_Mentions: the reply model's mentions become Discord's.
func TestRender_Mentions(t *testing.T) {
	a := &Adapter{log: slog.New(slog.DiscardHandler)}
	tests := []struct{ in, want string }{
		{"Only for members with " + bot.RoleMention("77") + ".", "Only for members with the role <@&77>."},
		{"Posted in " + bot.ChannelMention("300") + ".", "Posted in <#300>."},
		{"Hello " + bot.MemberMention("400") + "!", "Hello <@400>!"},
		{"No mention: \uE000role:1", "No mention: \uE000role:1"},
	}
	for _, tt := range tests {
		if got := a.render(bot.Reply{Text: tt.in}).content; got != tt.want {
			t.Errorf("render(%q).content = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// recordTransport records the URL each request leaves with.
type recordTransport struct{ got []*url.URL }

func (r *recordTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = append(r.got, req.URL)
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: req}, nil
}

func TestRewriteTransport(t *testing.T) {
	rec := &recordTransport{}
	c := rewriteClient(&http.Client{Transport: rec}, &url.URL{Scheme: "http", Host: "127.0.0.1:9"})
	for _, u := range []string{
		discordgo.EndpointUser("@me") + "?with=1",
		"https://cdn.discordapp.com/attachments/1/2/a.png",
	} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatalf("Get(%s): %v", u, err)
		}
		resp.Body.Close()
	}
	want := []string{"http://127.0.0.1:9/api/v" + discordgo.APIVersion + "/users/@me?with=1", "https://cdn.discordapp.com/attachments/1/2/a.png"}
	var got []string
	for _, u := range rec.got {
		got = append(got, u.String())
	}
	if !cmp.Equal(got, want) {
		t.Errorf("requests went to %v, want %v", got, want)
	}
}

// TestRewriteClient_IdleConnections: the default transport keeps enough
// idle connections for a burst of acknowledgements; a caller's transport
// is used as given.
func TestRewriteClient_IdleConnections(t *testing.T) {
	origin := &url.URL{Scheme: "http", Host: "127.0.0.1:9"}
	base := rewriteClient(nil, origin).Transport.(rewriteTransport).base
	if tr, ok := base.(*http.Transport); !ok || tr == http.DefaultTransport || tr.MaxIdleConnsPerHost != maxIdlePerHost {
		t.Errorf("default base transport = %#v, want a copy of http.DefaultTransport keeping %d idle connections per host", base, maxIdlePerHost)
	}
	rec := &recordTransport{}
	if got := rewriteClient(&http.Client{Transport: rec}, origin).Transport.(rewriteTransport).base; got != rec {
		t.Errorf("base transport = %#v, want the caller's", got)
	}
}

func TestParseOrigin(t *testing.T) {
	for _, ok := range []string{"", "https://discord.com", "http://127.0.0.1:8080/"} {
		if _, err := parseOrigin(ok); err != nil {
			t.Errorf("parseOrigin(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"discord.com", "ftp://discord.com", "https://discord.com/api", "https://u:p@discord.com", "https://discord.com?x=1"} {
		if _, err := parseOrigin(bad); err == nil {
			t.Errorf("parseOrigin(%q) = nil, want an error", bad)
		}
	}
}
