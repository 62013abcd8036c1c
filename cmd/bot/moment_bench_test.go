package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/internal/filegen"
	"github.com/poapbot/poapbot/internal/heapwatch"
	"github.com/poapbot/poapbot/poap/sandbox"
)

// bigMoment is the size of the benchmarks' attachment: 100 MiB, the
// default MOMENT_MAX_BYTES.
const bigMoment = 100 << 20

// bigFile is a fresh reader of a generated 100 MiB PNG (a PNG signature,
// then bytes of seed, so that each run posts a new file).
func bigFile(seed byte) io.ReadSeeker {
	return filegen.WithPrefix([]byte("\x89PNG\r\n\x1a\n"), uint64(seed), bigMoment)
}

// heapPeak is the peak growth of the heap while post runs
// (heapwatch.Measure): the fake platform, the bot and the sandbox all run
// in this process, so all of them count.
func heapPeak(post func()) uint64 {
	peak, _ := heapwatch.Measure(post)
	return peak
}

// manyMoments lifts MOMENT_RATE for the benchmarks' runs.
func manyMoments(m *Main) { m.Config.MomentRate = 1000 }

// BenchmarkMoment100MB_Discord posts a 100 MiB attachment, served by the
// fake Discord over loopback, through the adapter, the bot, the Moments
// service and the client to the sandbox, and reports the worst peak heap
// growth of its runs.
func BenchmarkMoment100MB_Discord(b *testing.B) {
	srv, s := startDiscordB(b)
	ctx := context.Background()
	alice := discordtest.Alice
	drop := benchHolderDrop(b, s)
	linked := benchDiscordAnswer(ctx, b, srv.Command(alice, "/link "+coretest.TestAddress), "Nonce")
	benchDiscordAnswer(ctx, b, srv.Command(alice, "/verify "+coretest.Sign(coretest.TestKey, benchChallenge(b, linked))), "Verified")
	b.SetBytes(bigMoment)
	var worst uint64
	seed := byte(0)
	for b.Loop() {
		seed++
		name := fmt.Sprintf("big%d.png", seed)
		srv.AddFileFunc(name, "image/png", bigMoment, func() io.ReadSeeker { return bigFile(seed) })
		worst = max(worst, heapPeak(func() {
			benchDiscordAnswer(ctx, b, srv.Command(alice, fmt.Sprintf("/moment drop:%d description:big media:%s", drop, name)), "Moment posted")
		}))
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
}

// BenchmarkMoment100MB_Telegram is BenchmarkMoment100MB_Discord through
// the fake Telegram: a document captioned /moment in a group.
func BenchmarkMoment100MB_Telegram(b *testing.B) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	b.Cleanup(tg.Close)
	s := startMainTuned(b, map[string]string{"TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL()}, false, manyMoments)
	ctx := context.Background()
	group, _ := telegramGroup(tg)
	alice := telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
	tg.OpenPrivateChat(alice.ID)
	drop := benchHolderDrop(b, s)
	tg.SendText(telegramtest.PrivateChat(alice), alice, "/link "+coretest.TestAddress)
	linked, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("Nonce")))
	if err != nil {
		b.Fatal(err)
	}
	tg.SendText(telegramtest.PrivateChat(alice), alice, "/verify "+coretest.Sign(coretest.TestKey, benchChallenge(b, linked.Text)))
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(alice.ID), telegramtest.Contains("Verified"))); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(bigMoment)
	var worst uint64
	seed := byte(0)
	for b.Loop() {
		seed++
		id := fmt.Sprintf("big%d", seed)
		tg.AddFile(telegramtest.File{ID: id, Size: bigMoment, Open: func() io.ReadSeeker { return bigFile(seed) }})
		desc := fmt.Sprintf("big %d", seed)
		worst = max(worst, heapPeak(func() {
			tg.SendMedia(group, alice, fmt.Sprintf("/moment@%s %d %s", tg.Username, drop, desc), telegramtest.DocumentMedia(id, id+".png", "image/png", bigMoment))
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.Contains("Moment posted"), telegramtest.Contains(desc))); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
}

// startDiscordB is startDiscord for a benchmark, on SQLite.
func startDiscordB(b *testing.B) (*discordtest.Server, *session) {
	srv := discordtest.NewServer(b, discordtest.Options{})
	s := startMainTuned(b, map[string]string{
		"DISCORD_TOKEN": discordtest.DefaultToken, "DISCORD_API_URL": srv.URL(), "DISCORD_GUILD_ID": srv.GuildID(),
	}, false, manyMoments)
	return srv, s
}

// benchHolderDrop is a sandbox drop held by coretest.TestAddress.
func benchHolderDrop(b *testing.B, s *session) int64 {
	d := s.m.SandboxAPI.AddDrop(sandbox.Drop{Name: "Benchmark Moments"})
	if err := s.m.SandboxAPI.SeedHolders(d.ID, []string{coretest.TestAddress}); err != nil {
		b.Fatal(err)
	}
	return d.ID
}

// benchDiscordAnswer waits for the interaction's message containing want.
func benchDiscordAnswer(ctx context.Context, b *testing.B, it *discordtest.Interaction, want string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	m, err := it.WaitMessage(ctx, func(m discordtest.Message) bool { return strings.Contains(m.Content, want) })
	if err != nil {
		b.Fatalf("waiting for %q: %v", want, err)
	}
	return m.Content
}

// benchChallenge finds the challenge message in a /link reply.
func benchChallenge(b *testing.B, text string) string {
	msg, ok := coretest.FindMessage(text, botName)
	if !ok {
		b.Fatalf("no challenge in %q", text)
	}
	return msg
}
