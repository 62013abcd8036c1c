package discordtest

import (
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// codeInvalidForm is Discord's "Invalid Form Body".
const codeInvalidForm = 50035

// validate checks a message the way Discord refuses one with 400 Invalid
// Form Body: content length, action rows and buttons, embeds (at most 10,
// titles of at most 256 characters, well-formed links and image URLs).
func validate(b *messageBody) error {
	if b.Content != nil && utf8.RuneCountInString(*b.Content) > 2000 {
		return fmt.Errorf("content: must be 2000 or fewer in length")
	}
	if b.Components != nil {
		if err := validateRows(*b.Components); err != nil {
			return err
		}
	}
	if b.Embeds != nil {
		return validateEmbeds(*b.Embeds)
	}
	return nil
}

func validateEmbeds(es []*discordgo.MessageEmbed) error {
	if len(es) > 10 {
		return fmt.Errorf("embeds: must be 10 or fewer in length")
	}
	for _, e := range es {
		if utf8.RuneCountInString(e.Title) > 256 {
			return fmt.Errorf("embeds: title must be 256 or fewer in length")
		}
		if e.URL != "" && !linkURL(e.URL) {
			return fmt.Errorf("embeds: url %q: not a well formed URL", e.URL)
		}
		if e.Thumbnail != nil && !webURL(e.Thumbnail.URL) {
			return fmt.Errorf("embeds: thumbnail url %q: scheme must be http, https or attachment", e.Thumbnail.URL)
		}
		if e.Image != nil && !webURL(e.Image.URL) {
			return fmt.Errorf("embeds: image url %q: scheme must be http, https or attachment", e.Image.URL)
		}
	}
	return nil
}

func validateRows(rows []component) error {
	if len(rows) > 5 {
		return fmt.Errorf("components: must be 5 or fewer in length")
	}
	ids := map[string]bool{}
	for _, row := range rows {
		if row.Type != discordgo.ActionsRowComponent || len(row.Components) == 0 || len(row.Components) > 5 {
			return fmt.Errorf("components: an action row holds 1 to 5 components")
		}
		for _, c := range row.Components {
			if err := validateButton(c); err != nil {
				return err
			}
			if c.CustomID != "" && ids[c.CustomID] {
				return fmt.Errorf("components: custom id %q is duplicated", c.CustomID)
			}
			ids[c.CustomID] = true
		}
	}
	return nil
}

func validateButton(c component) error {
	switch {
	case c.Type != discordgo.ButtonComponent:
		return nil
	case c.Label == "" || utf8.RuneCountInString(c.Label) > 80:
		return fmt.Errorf("button label %q: must be 1 to 80 in length", c.Label)
	case c.Style == discordgo.LinkButton && (c.CustomID != "" || !linkURL(c.URL)):
		return fmt.Errorf("link button %q: needs an http, https or discord url and no custom id", c.Label)
	case c.Style != discordgo.LinkButton && (c.URL != "" || c.CustomID == "" || utf8.RuneCountInString(c.CustomID) > 100):
		return fmt.Errorf("button %q: needs a custom id of 1 to 100 characters and no url", c.Label)
	}
	return nil
}

func webURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "attachment")
}

func linkURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "discord")
}
