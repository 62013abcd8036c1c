package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"

	"github.com/poapbot/poapbot/core"
)

// Config is every environment variable of the bot (see README.md). Names
// are explicit tags: envconfig's split_words mangles acronyms.
type Config struct {
	DatabaseURL  string      `envconfig:"DATABASE_URL"`
	BotSecretKey core.Secret `envconfig:"BOT_SECRET_KEY"`
	// HTTPAddr is empty when HTTP_ADDR is not set: the address is then
	// defaultHTTPAddr, or consoleHTTPAddr under -console (see
	// listenAddrs).
	HTTPAddr  string `envconfig:"HTTP_ADDR"`
	PublicURL string `envconfig:"PUBLIC_URL"`
	// MetricsAddr, when set, serves /metrics (with the probes) on a
	// listener of its own instead of HTTP_ADDR; an address without a host
	// is on loopback.
	MetricsAddr string `envconfig:"METRICS_ADDR"`

	DiscordToken      core.Secret `envconfig:"DISCORD_TOKEN"`
	DiscordGuildID    string      `envconfig:"DISCORD_GUILD_ID"`
	DiscordAPIURL     string      `envconfig:"DISCORD_API_URL" default:"https://discord.com"`
	DiscordShardID    int         `envconfig:"DISCORD_SHARD_ID" default:"0"`
	DiscordShardCount int         `envconfig:"DISCORD_SHARD_COUNT" default:"1"`

	TelegramToken         core.Secret `envconfig:"TELEGRAM_TOKEN"`
	TelegramAPIURL        string      `envconfig:"TELEGRAM_API_URL" default:"https://api.telegram.org"`
	TelegramWebhookURL    string      `envconfig:"TELEGRAM_WEBHOOK_URL"`
	TelegramWebhookSecret core.Secret `envconfig:"TELEGRAM_WEBHOOK_SECRET"`
	TelegramRate          int         `envconfig:"TELEGRAM_RATE" default:"30"`

	POAPAPIKey          core.Secret `envconfig:"POAP_API_KEY"`
	POAPClientID        string      `envconfig:"POAP_CLIENT_ID"`
	POAPClientSecret    core.Secret `envconfig:"POAP_CLIENT_SECRET"`
	POAPAPIURL          string      `envconfig:"POAP_API_URL" default:"https://api.poap.tech"`
	POAPAuthURL         string      `envconfig:"POAP_AUTH_URL" default:"https://auth.accounts.poap.xyz"`
	POAPAudience        string      `envconfig:"POAP_AUDIENCE" default:"https://api.poap.tech"`
	POAPMomentsURL      string      `envconfig:"POAP_MOMENTS_URL" default:"https://moments.poap.tech"`
	POAPMomentsAudience string      `envconfig:"POAP_MOMENTS_AUDIENCE" default:"https://moments.poap.tech"`
	POAPCompassURL      string      `envconfig:"POAP_COMPASS_URL" default:"https://public.compass.poap.tech/v1/graphql"`
	POAPMintURL         string      `envconfig:"POAP_MINT_URL" default:"https://poap.xyz"`
	POAPDeliveryURL     string      `envconfig:"POAP_DELIVERY_URL" default:"https://poap.delivery"`

	// ChainRPCURLs is chainid=url,...: the chains asked about
	// smart-contract wallets' signatures. A URL may carry an API key.
	ChainRPCURLs core.Secret `envconfig:"CHAIN_RPC_URLS"`

	GateSyncInterval time.Duration `envconfig:"GATE_SYNC_INTERVAL" default:"1h"`
	// AttendanceMaxLength is the longest an attendance session lasts
	// (/attendance start): it stops by itself then.
	AttendanceMaxLength time.Duration `envconfig:"ATTENDANCE_MAX_LENGTH" default:"12h"`
	MomentMaxBytes      int64         `envconfig:"MOMENT_MAX_BYTES" default:"104857600"`
	MomentRate          int           `envconfig:"MOMENT_RATE" default:"10"`
	MaxWallets          int           `envconfig:"MAX_WALLETS" default:"10"`
	MaxChallenges       int           `envconfig:"MAX_CHALLENGES" default:"5"`
	LogLevel            string        `envconfig:"LOG_LEVEL" default:"info"`
	LogFormat           string        `envconfig:"LOG_FORMAT" default:"text"`
}

// LoadConfig reads the configuration from the environment. A malformed value
// is reported with the variable's name.
func LoadConfig() (Config, error) {
	var c Config
	if err := envconfig.Process("", &c); err != nil {
		var perr *envconfig.ParseError
		if errors.As(err, &perr) {
			return c, fmt.Errorf("%s: %q is not a valid %s", perr.KeyName, perr.Value, describeType(perr.TypeName))
		}
		return c, err
	}
	// Unset and set empty read alike; only unset means the default.
	if v, set := os.LookupEnv("HTTP_ADDR"); set && v == "" {
		return c, errors.New("HTTP_ADDR must not be empty: unset it for the default (:8080, 127.0.0.1:8080 under -console)")
	}
	return c, nil
}

func describeType(t string) string {
	switch t {
	case "time.Duration":
		return "duration (like 30m or 1h)"
	case "int", "int64":
		return "whole number"
	}
	return t
}

// Validate checks the rules that span fields. sandbox and console are the
// command-line flags. With nothing to run it reports only that, the one
// thing to fix first; otherwise it reports every problem, each naming its
// variable.
func (c *Config) Validate(sandbox, console bool) error {
	if c.DiscordToken.IsZero() && c.TelegramToken.IsZero() && !console {
		return errors.New("nothing to run: set DISCORD_TOKEN or TELEGRAM_TOKEN, or start with -console (add -sandbox to try it without credentials)")
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(c.validateAdapters())
	add(c.validateURLs())
	add(c.validateChains())
	if !sandbox && c.POAPAPIKey.IsZero() {
		add(errors.New("POAP_API_KEY is not set: ask POAP for an API key, or start with -sandbox to use the built-in sandbox"))
	}
	if (c.POAPClientID == "") != c.POAPClientSecret.IsZero() {
		add(errors.New("POAP_CLIENT_ID and POAP_CLIENT_SECRET go together: set both, or neither"))
	}
	if c.AttendanceMaxLength < time.Minute || c.AttendanceMaxLength > 7*24*time.Hour {
		add(fmt.Errorf("ATTENDANCE_MAX_LENGTH must be between 1m and 168h, not %s", c.AttendanceMaxLength))
	}
	if c.GateSyncInterval < time.Minute {
		add(fmt.Errorf("GATE_SYNC_INTERVAL must be at least 1m, not %s", c.GateSyncInterval))
	}
	if c.MomentMaxBytes < 1 {
		add(fmt.Errorf("MOMENT_MAX_BYTES must be at least 1 byte (default 104857600, 100 MiB), not %d", c.MomentMaxBytes))
	}
	if c.TelegramRate < 1 {
		add(fmt.Errorf("TELEGRAM_RATE must be at least 1 message a second (default 30, Telegram's limit), not %d", c.TelegramRate))
	}
	if c.MomentRate < 1 {
		add(fmt.Errorf("MOMENT_RATE must be at least 1 Moment per member per hour (default 10), not %d", c.MomentRate))
	}
	add(c.validateLimits())
	add(oneOf("LOG_LEVEL", c.LogLevel, "debug", "info", "warn", "error"))
	add(oneOf("LOG_FORMAT", c.LogFormat, "text", "json"))
	add(c.validateListeners())
	return errors.Join(errs...)
}

// maxLinkLimit bounds MAX_WALLETS and MAX_CHALLENGES: every verified
// wallet of a member is read from the issuing service for /why, /poaps and
// gating, so a member with hundreds would spend the budget of everyone.
const maxLinkLimit = 100

func (c *Config) validateLimits() error {
	var errs []error
	if c.MaxWallets < 1 || c.MaxWallets > maxLinkLimit {
		errs = append(errs, fmt.Errorf("MAX_WALLETS must be between 1 and %d wallets per member (default 10), not %d", maxLinkLimit, c.MaxWallets))
	}
	if c.MaxChallenges < 1 || c.MaxChallenges > maxLinkLimit {
		errs = append(errs, fmt.Errorf("MAX_CHALLENGES must be between 1 and %d open challenges per member (default 5), not %d", maxLinkLimit, c.MaxChallenges))
	}
	return errors.Join(errs...)
}

// webhookSecret is what Telegram accepts as a secret_token.
var webhookSecret = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

func (c *Config) validateAdapters() error {
	var errs []error
	if c.DiscordShardCount < 1 || c.DiscordShardID < 0 || c.DiscordShardID >= c.DiscordShardCount {
		errs = append(errs, fmt.Errorf("DISCORD_SHARD_ID must be between 0 and DISCORD_SHARD_COUNT-1 (got %d of %d)", c.DiscordShardID, c.DiscordShardCount))
	}
	if c.TelegramWebhookURL != "" && !webhookSecret.MatchString(c.TelegramWebhookSecret.Reveal()) {
		errs = append(errs, errors.New("TELEGRAM_WEBHOOK_SECRET must be set with TELEGRAM_WEBHOOK_URL: 1 to 256 letters, digits, _ or -"))
	}
	return errors.Join(errs...)
}

func (c *Config) validateURLs() error {
	var errs []error
	for _, u := range []struct{ name, value string }{
		{"DISCORD_API_URL", c.DiscordAPIURL},
		{"TELEGRAM_API_URL", c.TelegramAPIURL},
		{"POAP_API_URL", c.POAPAPIURL},
		{"POAP_AUTH_URL", c.POAPAuthURL},
		{"POAP_MOMENTS_URL", c.POAPMomentsURL},
		{"POAP_COMPASS_URL", c.POAPCompassURL},
		{"POAP_MINT_URL", c.POAPMintURL},
		{"POAP_DELIVERY_URL", c.POAPDeliveryURL},
	} {
		if err := checkURL(u.name, u.value, false); err != nil {
			errs = append(errs, err)
		}
	}
	if err := checkURL("PUBLIC_URL", c.PublicURL, true); err != nil {
		errs = append(errs, err)
	}
	if c.TelegramWebhookURL != "" && !strings.HasPrefix(c.TelegramWebhookURL, "https://") {
		errs = append(errs, errors.New("TELEGRAM_WEBHOOK_URL must be an https:// address (Telegram requires it)"))
	}
	return errors.Join(errs...)
}

// checkURL requires an absolute http(s) URL without credentials in it.
func checkURL(name, value string, optional bool) error {
	if value == "" && optional {
		return nil
	}
	u, err := url.Parse(value)
	// The scheme as typed: url.Parse lowers it, but the value is used as
	// written (links are built by appending to it).
	lower := strings.HasPrefix(value, "http://") || strings.HasPrefix(value, "https://")
	if err != nil || !lower || u.Host == "" {
		return fmt.Errorf("%s must be an absolute http:// or https:// address", name)
	}
	if u.User != nil {
		return fmt.Errorf("%s must not carry a user name or password", name)
	}
	// Paths are appended to these addresses: a query or a fragment would
	// swallow them (https://bot.example.org/?a=b/verify/...).
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(value, "#") {
		return fmt.Errorf("%s must not carry a query (?...) or a fragment (#...)", name)
	}
	return nil
}

func oneOf(name, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return fmt.Errorf("%s must be one of %s, not %q", name, strings.Join(allowed, ", "), value)
}
