package discord

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/core"
)

// TestAdapter_File checks that a reply's file arrives as an attachment of
// the ephemeral message the member reads, however the reply is delivered,
// and that a file over Discord's limit becomes a note in the text.
func TestAdapter_File(t *testing.T) {
	t.Parallel()
	csv := []byte("link,member,wallet,state,time\nhttps://poap.xyz/mint/abc,m1,,handed_out,2026-01-01T00:00:00Z\n")
	export := bot.Reply{Text: "Export of the drop", Personal: true, File: &bot.File{Name: "drop-1-links.csv", ContentType: "text/csv", Data: csv}}
	tests := []struct {
		name string
		// deliver answers the interaction with the reply.
		deliver func(a *Adapter, raw *discordgo.Interaction)
	}{
		{"Respond", func(a *Adapter, raw *discordgo.Interaction) {
			a.respond(context.Background(), a.session, raw, export)
		}},
		{"Edit", func(a *Adapter, raw *discordgo.Interaction) {
			if err := a.deferReply(context.Background(), a.session, raw, true); err == nil {
				a.complete(context.Background(), a.session, raw, export, true)
			}
		}},
		{"Followup", func(a *Adapter, raw *discordgo.Interaction) {
			if err := a.deferReply(context.Background(), a.session, raw, false); err == nil {
				a.complete(context.Background(), a.session, raw, export, false)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake, a := fileRig(t)
			it, raw, err := fake.Build(discordtest.InteractionSpec{Data: &discordgo.ApplicationCommandInteractionData{Name: "help"}})
			if err != nil {
				t.Fatal(err)
			}
			tt.deliver(a, raw)
			msgs := it.Messages()
			if len(msgs) != 1 || !msgs[0].Ephemeral || msgs[0].Content != export.Text {
				t.Fatalf("messages = %+v, want one ephemeral message %q", msgs, export.Text)
			}
			files := msgs[0].Files
			if len(files) != 1 || files[0].Name != "drop-1-links.csv" || files[0].Size != len(csv) ||
				files[0].ContentType != "text/csv" || !bytes.Equal(files[0].Data, csv) {
				t.Errorf("files = %+v, want drop-1-links.csv, text/csv, %d bytes", files, len(csv))
			}
		})
	}
	t.Run("TooLarge", func(t *testing.T) {
		t.Parallel()
		fake, a := fileRig(t)
		it, raw, err := fake.Build(discordtest.InteractionSpec{Data: &discordgo.ApplicationCommandInteractionData{Name: "help"}})
		if err != nil {
			t.Fatal(err)
		}
		big := export
		big.File = &bot.File{Name: "drop-1-links.csv", ContentType: "text/csv", Data: make([]byte, maxUpload+1)}
		a.respond(context.Background(), a.session, raw, big)
		msgs := it.Messages()
		if len(msgs) != 1 || len(msgs[0].Files) != 0 || !msgs[0].Ephemeral ||
			!strings.HasPrefix(msgs[0].Content, export.Text) || !strings.Contains(msgs[0].Content, "10 MiB") {
			t.Errorf("messages = %+v, want the text with a note on the 10 MiB limit and no file", msgs)
		}
	})
}

// fileRig returns a fake Discord and an adapter whose REST calls go to it,
// for tests that deliver replies directly.
func fileRig(t *testing.T) (*discordtest.Server, *Adapter) {
	t.Helper()
	fake := discordtest.NewServer(t, discordtest.Options{})
	a, err := newAdapter(plainBot(), Options{Token: core.Secret(fake.Token()), APIURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return fake, a
}
