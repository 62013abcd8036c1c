package discordtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestValidate_Embeds: the fake refuses the embeds Discord refuses.
func TestValidate_Embeds(t *testing.T) {
	img := func(u string) *discordgo.MessageEmbed {
		return &discordgo.MessageEmbed{Image: &discordgo.MessageEmbedImage{URL: u}}
	}
	imgs := func(n int) []*discordgo.MessageEmbed {
		var out []*discordgo.MessageEmbed
		for i := range n {
			out = append(out, img(fmt.Sprintf("https://a.test/%d.png", i)))
		}
		return out
	}
	tests := []struct {
		name   string
		embeds []*discordgo.MessageEmbed
		ok     bool
	}{
		{"Ten", imgs(10), true},
		{"Eleven", imgs(11), false},
		{"Title256", []*discordgo.MessageEmbed{{Title: strings.Repeat("é", 256)}}, true},
		{"Title257", []*discordgo.MessageEmbed{{Title: strings.Repeat("é", 257)}}, false},
		{"Link", []*discordgo.MessageEmbed{{Title: "t", URL: "https://poap.gallery/drops/1"}}, true},
		{"BadLink", []*discordgo.MessageEmbed{{Title: "t", URL: "not a url"}}, false},
		{"BadImage", []*discordgo.MessageEmbed{img("ftp://a.test/0")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validate(&messageBody{Embeds: &tt.embeds})
			if (err == nil) != tt.ok {
				t.Errorf("validate(%d embeds) = %v, want ok %v", len(tt.embeds), err, tt.ok)
			}
		})
	}
}
