package discordtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// commandData turns a typed line into slash-command data, by the options of
// the registered command (guild commands first, then global ones).
func (s *Server) commandData(ctx context.Context, line, guildID string) (discordgo.ApplicationCommandInteractionData, error) {
	var data discordgo.ApplicationCommandInteractionData
	words, err := splitWords(strings.TrimPrefix(strings.TrimSpace(line), "/"))
	if err != nil || len(words) == 0 {
		return data, fmt.Errorf("discordtest: line %q is not a command", line)
	}
	cmd, err := s.findCommand(ctx, strings.ToLower(words[0]), guildID)
	if err != nil {
		return data, err
	}
	data = discordgo.ApplicationCommandInteractionData{ID: cmd.ID, Name: cmd.Name, CommandType: discordgo.ChatApplicationCommand}
	defs, target, words := cmd.Options, &data.Options, words[1:]
	if len(words) > 0 {
		if sub := findOption(defs, words[0]); sub != nil && sub.Type == discordgo.ApplicationCommandOptionSubCommand {
			so := &discordgo.ApplicationCommandInteractionDataOption{Name: sub.Name, Type: sub.Type}
			data.Options = append(data.Options, so)
			defs, target, words = sub.Options, &so.Options, words[1:]
		}
	}
	given, err := bind(defs, words)
	if err != nil {
		return data, fmt.Errorf("discordtest: %s: %w", line, err)
	}
	res := &discordgo.ApplicationCommandInteractionDataResolved{}
	for _, def := range defs {
		v, ok := given[def.Name]
		if !ok {
			continue
		}
		o, err := s.optionValue(def, v, res)
		if err != nil {
			return data, fmt.Errorf("discordtest: %s: option %s: %w", line, def.Name, err)
		}
		*target = append(*target, o)
	}
	data.Resolved = res
	return data, nil
}

// findCommand waits until a command with that name is registered in the
// guild or globally.
func (s *Server) findCommand(ctx context.Context, name, guildID string) (*discordgo.ApplicationCommand, error) {
	var found *discordgo.ApplicationCommand
	err := s.wait(ctx, func() bool {
		for _, scope := range []string{guildID, ""} {
			for _, c := range decodeCommands(s.commands[scope]) {
				if c.Name == name {
					found = c
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		return nil, fmt.Errorf("discordtest: no command %q registered: %w", name, err)
	}
	return found, nil
}

func findOption(defs []*discordgo.ApplicationCommandOption, name string) *discordgo.ApplicationCommandOption {
	for _, d := range defs {
		if strings.EqualFold(d.Name, name) {
			return d
		}
	}
	return nil
}

// bind assigns words to options: "name:value" by name, the others in
// order; words left over join the last text option.
func bind(defs []*discordgo.ApplicationCommandOption, words []string) (map[string]string, error) {
	given := map[string]string{}
	var positional []string
	for _, w := range words {
		if name, value, ok := strings.Cut(w, ":"); ok {
			if d := findOption(defs, name); d != nil {
				given[d.Name] = value
				continue
			}
		}
		positional = append(positional, w)
	}
	var last *discordgo.ApplicationCommandOption
	for _, d := range defs {
		if _, ok := given[d.Name]; ok || len(positional) == 0 {
			continue
		}
		given[d.Name], positional, last = positional[0], positional[1:], d
	}
	if len(positional) > 0 {
		if last == nil || last.Type != discordgo.ApplicationCommandOptionString {
			return nil, fmt.Errorf("too many words: %s", strings.Join(positional, " "))
		}
		given[last.Name] += " " + strings.Join(positional, " ")
	}
	return given, nil
}

// optionValue converts a word to the option's type, as Discord sends it,
// and fills the resolved users and attachments.
func (s *Server) optionValue(def *discordgo.ApplicationCommandOption, v string, res *discordgo.ApplicationCommandInteractionDataResolved) (*discordgo.ApplicationCommandInteractionDataOption, error) {
	o := &discordgo.ApplicationCommandInteractionDataOption{Name: def.Name, Type: def.Type}
	var err error
	switch def.Type {
	case discordgo.ApplicationCommandOptionInteger:
		o.Value, err = strconv.ParseInt(v, 10, 64)
	case discordgo.ApplicationCommandOptionNumber:
		o.Value, err = strconv.ParseFloat(v, 64)
	case discordgo.ApplicationCommandOptionBoolean:
		o.Value, err = strconv.ParseBool(v)
	case discordgo.ApplicationCommandOptionUser, discordgo.ApplicationCommandOptionMentionable:
		id := strings.Trim(v, "<@!&>")
		if res.Users == nil {
			res.Users = map[string]*discordgo.User{}
		}
		res.Users[id] = &discordgo.User{ID: id, Username: "user" + id}
		o.Value = id
	case discordgo.ApplicationCommandOptionRole:
		o.Value = strings.Trim(v, "<@#&>")
	case discordgo.ApplicationCommandOptionChannel:
		id := strings.Trim(v, "<@#&>")
		o.Value = id
		s.resolveChannel(id, res)
	case discordgo.ApplicationCommandOptionAttachment:
		o.Value = s.attachment(v, res)
	default:
		o.Value = v
	}
	if err != nil {
		return nil, errors.New("not a " + def.Type.String())
	}
	return o, nil
}

// splitWords splits on spaces, keeping double-quoted text together.
func splitWords(s string) ([]string, error) {
	var (
		words          []string
		cur            strings.Builder
		quoted, inWord bool
	)
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("a double quote is not closed")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
