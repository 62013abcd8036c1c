package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage/storagetest/migrated"
)

// TestSign_Console links a demo wallet under -sandbox on the console and
// has /sign prove it; /sign refuses a wallet that is not a demo wallet.
func TestSign_Console(t *testing.T) {
	t.Parallel()
	s := startMain(t, migrated.SQLiteURL(t))
	fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", sandbox.DemoWallet2)
	waitOutput(t, s, "Signing is free")
	msg := challengeIn(t, s.out.String())
	if framed := bot.CodeBegin + "\n" + msg + "\n" + bot.CodeEnd; !strings.Contains(s.out.String(), framed) {
		t.Errorf("the challenge is not framed by begin and end lines:\n%s", s.out.String())
	}
	fmt.Fprintf(s.stdin, "/sign\n/wallet\n/as bob\n/link %s\n/sign\n", coretest.TestAddress)
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Fatal(err)
	}
	out := s.out.String()
	wallets := out[strings.LastIndex(out, "Your wallets"):]
	if !strings.Contains(out, "Verified: "+sandbox.DemoWallet2) || !strings.Contains(wallets, "primary · verified") {
		t.Errorf("/sign did not verify the demo wallet, or /wallet does not show it:\n%s", out)
	}
	if !strings.Contains(out, "/sign signs only for the sandbox's demo wallets: "+sandbox.DemoWallet) {
		t.Errorf("/sign for another wallet was not refused:\n%s", out)
	}
}
