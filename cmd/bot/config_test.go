package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestLoadConfigFrom reads every variable of Config through a lookup: each
// field gets the value of the variable its tag names, none is left out,
// and nothing comes from the process environment.
func TestLoadConfigFrom(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	typ := reflect.TypeFor[Config]()
	for _, f := range reflect.VisibleFields(typ) {
		name := f.Tag.Get("env")
		if name == "" {
			t.Fatalf("field %s has no env tag", f.Name)
		}
		if _, dup := env[name]; dup {
			t.Fatalf("two fields read %s", name)
		}
		env[name] = map[string]string{"int": "7", "int64": "0x10", "time.Duration": "90s"}[f.Type.String()]
		if env[name] == "" {
			env[name] = "value of " + name
		}
	}
	c, err := LoadConfigFrom(func(name string) (string, bool) { v, ok := env[name]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(c)
	for i, f := range reflect.VisibleFields(typ) {
		var got string
		switch x := v.Field(i).Interface().(type) {
		case time.Duration:
			got = map[bool]string{true: "90s"}[x == 90*time.Second]
		case int:
			got = map[bool]string{true: "7"}[x == 7]
		case int64:
			got = map[bool]string{true: "0x10"}[x == 16]
		default:
			got = reflect.ValueOf(x).String()
		}
		if want := env[f.Tag.Get("env")]; got != want {
			t.Errorf("%s = %v, want it read from %s=%q", f.Name, v.Field(i), f.Tag.Get("env"), want)
		}
	}
}

// TestLoadConfigFrom_Defaults: a variable not set takes its default, one
// set empty is read as empty (and refused where a value must parse), and
// a malformed value is named with its variable.
func TestLoadConfigFrom_Defaults(t *testing.T) {
	t.Parallel()
	lookup := func(env map[string]string) func(string) (string, bool) {
		return func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	}
	c, err := LoadConfigFrom(lookup(nil))
	if err != nil || c.TelegramRate != 30 || c.GateSyncInterval != time.Hour || c.LogLevel != "info" ||
		c.DiscordAPIURL != "https://discord.com" || c.DiscordToken.Reveal() != "" || c.MomentMaxBytes != 104857600 {
		t.Errorf("LoadConfigFrom(nothing set) = %+v, %v; want the defaults", c, err)
	}
	c, err = LoadConfigFrom(lookup(map[string]string{"LOG_LEVEL": "", "DISCORD_API_URL": ""}))
	if err != nil || c.LogLevel != "" || c.DiscordAPIURL != "" {
		t.Errorf("LoadConfigFrom(set empty) = LOG_LEVEL %q, DISCORD_API_URL %q, %v; want both empty", c.LogLevel, c.DiscordAPIURL, err)
	}
	for _, tt := range []struct{ name, value, want string }{
		{"TELEGRAM_RATE", "", `TELEGRAM_RATE: "" is not a valid whole number`},
		{"MOMENT_MAX_BYTES", "100MB", `MOMENT_MAX_BYTES: "100MB" is not a valid whole number`},
		{"ATTENDANCE_MAX_LENGTH", "30", `ATTENDANCE_MAX_LENGTH: "30" is not a valid duration (like 30m or 1h)`},
		{"HTTP_ADDR", "", "HTTP_ADDR must not be empty"},
	} {
		if _, err := LoadConfigFrom(lookup(map[string]string{tt.name: tt.value})); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadConfigFrom(%s=%q) = %v, want %q", tt.name, tt.value, err, tt.want)
		}
	}
}
