package telegram

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

// TestInbox_MemberOrder: updates are handled from the inbox, several
// members at once, but each member's one after the other in the order
// they were sent, each once.
func TestInbox_MemberOrder(t *testing.T) {
	const each = 20
	// Twenty replies to one private chat take Telegram 20 seconds; this
	// test is not about that limit.
	e := newEnv(t, Options{Limits: Limits{Private: Window{N: 100, Per: time.Second}}})
	var mu sync.Mutex
	seen := map[string][]string{}
	running := map[string]int{}
	overlap := false
	release := make(chan struct{})
	e.withCommand(&bot.Command{
		Name: "note", Public: true,
		Options: []bot.Option{{Name: "drop", Type: bot.String}, {Name: "description", Type: bot.String}},
		Handler: func(_ context.Context, req *bot.Request) (bot.Reply, error) {
			id := req.Caller.ExternalID
			mu.Lock()
			running[id]++
			overlap = overlap || running[id] > 1
			seen[id] = append(seen[id], req.Options["drop"])
			mu.Unlock()
			<-release // holds each handling until every update is stored
			mu.Lock()
			running[id]--
			mu.Unlock()
			return bot.Reply{Text: "noted " + req.Options["drop"]}, nil
		},
	})
	members := []telegramtest.User{alice, bob}
	for i := range each {
		for _, u := range members {
			e.tg.SendText(telegramtest.PrivateChat(u), u, fmt.Sprintf("/note %d", i))
		}
	}
	e.run(t)
	// Both members' first updates run at once; nothing of a member's runs
	// before their previous one ended.
	for range 2 * each {
		release <- struct{}{}
	}
	for _, u := range members {
		if _, err := e.tg.WaitMessage(waitCtx(t), telegramtest.All(telegramtest.To(u.ID), telegramtest.Contains(fmt.Sprintf("noted %d", each-1)))); err != nil {
			t.Fatal(err)
		}
	}
	e.stopped(t)
	mu.Lock()
	defer mu.Unlock()
	if overlap {
		t.Error("two updates of one member were handled at the same time")
	}
	want := make([]string, each)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	for _, u := range members {
		if got := seen[fmt.Sprint(u.ID)]; !slices.Equal(got, want) {
			t.Errorf("member %d's updates handled in the order %v, want %v", u.ID, got, want)
		}
	}
}
