package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/storage/storagetest"
)

// rushMembers is the size of the Telegram rush: 1,000 members.
const rushMembers = 1000

// BenchmarkTelegramRush: 1,000 members of a group send /claim <drop> in
// their private chats with the bot at the same moment. The bot, built as
// the Dockerfile builds it, runs as a process of its own (so that its peak
// RSS is its own), logging at info, long-polling the fake Telegram, which
// enforces the Bot API's flood limits (telegramtest.BotAPILimits: 30
// messages a second in all); the issuing service is a sandbox in this
// process. Every member must get exactly one answer, a mint link of their
// own. It reports the time from the first /claim to the last answer
// against the floor of 1,000 / 30 = 33.3 s, the p50 and p99 of each
// member's wait, the 429s Telegram answered (against the messages sent),
// and the bot's peak RSS. On PostgreSQL when TEST_DATABASE_URL is set,
// else on a SQLite file. Run it with -benchtime=1x: one rush takes over
// half a minute.
func BenchmarkTelegramRush(b *testing.B) {
	for b.Loop() {
		r := telegramRush(b)
		b.ReportMetric(r.last.Seconds(), "last-answer-s")
		b.ReportMetric(r.last.Seconds()/(float64(rushMembers)/30), "x-floor")
		b.ReportMetric(float64(r.p50.Milliseconds()), "p50-ms")
		b.ReportMetric(float64(r.p99.Milliseconds()), "p99-ms")
		b.ReportMetric(float64(r.throttled), "429s")
		b.ReportMetric(float64(r.sends), "sends")
		b.ReportMetric(float64(r.rss)/(1<<20), "peak-RSS-MB")
	}
}

// rushResult is what one rush measured.
type rushResult struct {
	last, p50, p99   time.Duration
	throttled, sends int
	rss              uint64
}

func telegramRush(b *testing.B) rushResult {
	b.Helper()
	const key, clientID, clientSecret = "bench-api-key", "bench-client", "bench-client-secret"
	sb := sandbox.New(sandbox.Options{APIKey: key, ClientID: clientID, ClientSecret: clientSecret,
		Audience: "https://api.poap.tech", MomentsAudience: "https://moments.poap.tech"})
	poapSrv := httptest.NewServer(sb)
	b.Cleanup(poapSrv.Close)
	drop, code := sb.CreateDrop(sandbox.Drop{Name: "Rush"}, rushMembers)
	tg := telegramtest.NewServer(telegramtest.Options{Limits: telegramtest.BotAPILimits})
	b.Cleanup(tg.Close)
	dbURL := storagetest.SQLiteURL(b)
	if base := os.Getenv(storagetest.EnvURL); base != "" {
		dbURL = storagetest.PostgresURL(b, base)
	}
	bot := startBuilt(b, buildBot(b), map[string]string{
		"DATABASE_URL": dbURL, "TELEGRAM_TOKEN": tg.Token, "TELEGRAM_API_URL": tg.URL(), "LOG_LEVEL": "info",
		"POAP_API_KEY": key, "POAP_CLIENT_ID": clientID, "POAP_CLIENT_SECRET": clientSecret,
		"POAP_API_URL": poapSrv.URL, "POAP_AUTH_URL": poapSrv.URL, "POAP_MOMENTS_URL": poapSrv.URL,
		"POAP_COMPASS_URL": poapSrv.URL + "/v1/graphql", "POAP_MINT_URL": poapSrv.URL,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	group, mod := telegramGroup(tg)
	tg.OpenPrivateChat(mod.ID)
	tg.SendText(group, mod, fmt.Sprintf("/drop@%s add %d %s delivery:link", tg.Username, drop.ID, code))
	if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(mod.ID), telegramtest.Contains("is set up here"))); err != nil {
		b.Fatalf("the drop was not set up: %v", err)
	}
	users := telegramMembers(rushMembers)
	openPrivateChats(tg, users)
	before := len(tg.Messages())
	sent := make([]time.Time, len(users))
	start := time.Now()
	atOnce(users, func(i int, u telegramtest.User) {
		sent[i] = time.Now()
		tg.SendText(telegramtest.PrivateChat(u), u, fmt.Sprintf("/claim %d", drop.ID))
	})
	waits := make([]time.Duration, len(users))
	var last time.Time
	for i, u := range users {
		m, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains("/mint/")))
		if err != nil {
			b.Fatalf("member %d got no link: %v", u.ID, err)
		}
		waits[i] = m.At.Sub(sent[i])
		if m.At.After(last) {
			last = m.At
		}
	}
	r := rushResult{last: last.Sub(start), rss: bot.peakRSS(b), throttled: len(tg.Throttled())}
	bot.stop(b)
	answers, links := map[int64]int{}, map[string]int64{}
	for _, m := range tg.Messages()[before:] {
		r.sends++
		answers[m.ChatID]++
		if link := mintLinkRE.FindString(m.Text); link != "" {
			if prev, ok := links[link]; ok && prev != m.ChatID {
				b.Errorf("link %s went to %d and %d", link, prev, m.ChatID)
			}
			links[link] = m.ChatID
		}
	}
	for _, u := range users {
		if answers[u.ID] != 1 {
			b.Errorf("member %d got %d answers, want 1", u.ID, answers[u.ID])
		}
	}
	slices.Sort(waits)
	r.p50, r.p99 = waits[len(waits)/2], waits[len(waits)*99/100]
	b.Logf("rush of %d: last answer after %s (floor %.1f s), p50 %s, p99 %s, %d 429s in %d sends, peak RSS %.1f MB",
		rushMembers, r.last.Round(time.Millisecond), float64(rushMembers)/30, r.p50.Round(time.Millisecond), r.p99.Round(time.Millisecond), r.throttled, r.sends, float64(r.rss)/(1<<20))
	return r
}
