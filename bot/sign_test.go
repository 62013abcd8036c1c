package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/core"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// fakeSigner signs for coretest.TestAddress only.
type fakeSigner struct{}

func (fakeSigner) Wallets() []string { return []string{coretest.TestAddress} }

func (fakeSigner) Sign(wallet, message string) (string, bool) {
	if !strings.EqualFold(wallet, coretest.TestAddress) {
		return "", false
	}
	return core.PersonalSign(coretest.TestKey, message), true
}

// lineOn runs a line as caller on platform, whose adapter declares a
// rehearsal when it is the console's.
func lineOn(t *testing.T, b *Bot, p core.Platform, caller, line string) string {
	t.Helper()
	req := &Request{Place: core.Place{Platform: p, ExternalID: "dm"}, Chat: Chat{Private: true}, Caps: Capabilities{Rehearsal: p == core.Console},
		Caller: Caller{ExternalID: caller, Name: caller}}
	reply, ok := b.HandleLine(context.Background(), req, line, "")
	if !ok {
		t.Fatalf("HandleLine(%q) says not a command", line)
	}
	return reply.Text
}

func TestSign_Verifies(t *testing.T) {
	eachLinkEnv(t, Options{Signer: fakeSigner{}}, func(t *testing.T, e *linkEnv) { signVerifies(t, e.b) })
}

func signVerifies(t *testing.T, b *Bot) {
	lineOn(t, b, core.Console, "alice", "/link "+coretest.TestAddress)
	if got := lineOn(t, b, core.Console, "alice", "/sign"); !strings.Contains(got, "Verified: ") {
		t.Fatalf("/sign = %q, want the verification", got)
	}
	if got := lineOn(t, b, core.Console, "alice", "/wallet"); !strings.Contains(got, "primary · verified") {
		t.Errorf("/wallet after /sign = %q, want the wallet verified", got)
	}
}

func TestSign_Refusals(t *testing.T) {
	eachLinkEnv(t, Options{Signer: fakeSigner{}}, func(t *testing.T, e *linkEnv) { signRefusals(t, e.b) })
}

func signRefusals(t *testing.T, b *Bot) {
	lineOn(t, b, core.Console, "bob", "/link "+coretest.OtherAddress)
	tests := []struct {
		name     string
		platform core.Platform
		caller   string
		want     string
	}{
		{"OtherWallet", core.Console, "bob", "/sign signs only for the sandbox's demo wallets: `" + coretest.TestAddress +
			"`; sign other wallets in your wallet app and send `/verify <signature>`."},
		{"NoChallenge", core.Console, "carol", "There's no wallet waiting for verification"},
		{"Discord", core.Discord, "bob", "I don't know the command `/sign`"},
		{"Telegram", core.Telegram, "bob", "I don't know the command `/sign`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lineOn(t, b, tt.platform, tt.caller, "/sign"); !strings.Contains(got, tt.want) {
				t.Errorf("/sign = %q, want %q", got, tt.want)
			}
		})
	}
	if got := lineOn(t, b, core.Console, "bob", "/wallet"); strings.Contains(got, "primary · verified") {
		t.Errorf("/wallet after a refused /sign = %q, want nothing verified", got)
	}
}

func TestSign_OnlyWithSigner(t *testing.T) {
	without := newLinkEnv(t, migrated.SQLiteURL(t), Options{}).b
	lineOn(t, without, core.Console, "alice", "/link "+coretest.TestAddress)
	if got := lineOn(t, without, core.Console, "alice", "/sign"); !strings.Contains(got, "I don't know the command `/sign`") {
		t.Errorf("/sign without a signer = %q, want the unknown command", got)
	}
	with := newLinkEnv(t, migrated.SQLiteURL(t), Options{Signer: fakeSigner{}}).b
	for _, tt := range []struct {
		b        *Bot
		platform core.Platform
		listed   bool
	}{{without, core.Console, false}, {with, core.Console, true}, {with, core.Discord, false}, {with, core.Telegram, false}} {
		help := lineOn(t, tt.b, tt.platform, "alice", "/help")
		if got := strings.Contains(help, "`/sign`"); got != tt.listed {
			t.Errorf("/help on %v lists /sign: %v, want %v", tt.platform, got, tt.listed)
		}
	}
	for _, c := range with.Commands() {
		if c.Name == "sign" && !c.Console {
			t.Error("the sign command is not marked Console")
		}
	}
}
