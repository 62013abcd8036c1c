package telegramtest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
)

const fans = -1001234567890

func chatMember(t *testing.T, api *tgbotapi.BotAPI, chatID, userID int64) tgbotapi.ChatMember {
	t.Helper()
	m, err := api.GetChatMember(tgbotapi.GetChatMemberConfig{ChatConfigWithUser: tgbotapi.ChatConfigWithUser{ChatID: chatID, UserID: userID}})
	if err != nil {
		t.Fatalf("GetChatMember(%d, %d) = %v", chatID, userID, err)
	}
	return m
}

func TestServer_GetChat(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	tg.SetChat(fans, "supergroup", "POAP fans")
	c, err := api.GetChat(tgbotapi.ChatInfoConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: fans}})
	if err != nil || c.Type != "supergroup" || c.Title != "POAP fans" {
		t.Errorf("GetChat(registered) = %+v, %v; want the supergroup POAP fans", c, err)
	}
	c, err = api.GetChat(tgbotapi.ChatInfoConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: alice.ID}})
	if err != nil || c.Type != "private" {
		t.Errorf("GetChat(user id) = %+v, %v; want a private chat", c, err)
	}
	_, err = api.GetChat(tgbotapi.ChatInfoConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: -42}})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Bad Request: chat not found" {
		t.Errorf("GetChat(unknown group) = %d %q, want 400 chat not found", e.Code, e.Message)
	}
	tg.SetBotRights(fans, telegramtest.BotRights{Status: "kicked"})
	_, err = api.GetChat(tgbotapi.ChatInfoConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: fans}})
	if e := apiError(t, err); e.Code != http.StatusForbidden {
		t.Errorf("GetChat(after the bot was kicked) = %d %q, want 403", e.Code, e.Message)
	}
}

func TestServer_BotRights(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	if m := chatMember(t, api, fans, tg.BotID); m.Status != "member" || m.CanInviteUsers {
		t.Errorf("bot by default = %+v, want a plain member", m)
	}
	tg.SetAdmins(fans, tg.BotID)
	if m := chatMember(t, api, fans, tg.BotID); m.Status != "administrator" || !m.CanInviteUsers || !m.CanRestrictMembers || !m.CanDeleteMessages {
		t.Errorf("bot as admin = %+v, want every right", m)
	}
	tg.SetBotRights(fans, telegramtest.BotRights{Status: "administrator", CanInvite: true})
	m := chatMember(t, api, fans, tg.BotID)
	if m.Status != "administrator" || !m.CanInviteUsers || m.CanRestrictMembers || m.CanDeleteMessages || m.User.ID != tg.BotID {
		t.Errorf("bot with SetBotRights = %+v, want an administrator who may only invite", m)
	}
}

func TestServer_CreateChatInviteLink(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	tg.SetChat(fans, "supergroup", "POAP fans")
	cfg := tgbotapi.CreateChatInviteLinkConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: fans}, Name: "POAP gate", CreatesJoinRequest: true}
	_, err = api.Request(cfg)
	if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Bad Request: "+telegramtest.NoRightsToInvite {
		t.Errorf("createChatInviteLink as a member = %d %q, want 400 %s", e.Code, e.Message, telegramtest.NoRightsToInvite)
	}
	tg.SetBotRights(fans, telegramtest.BotRights{Status: "administrator", CanInvite: true})
	resp, err := api.Request(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var link tgbotapi.ChatInviteLink
	if err := json.Unmarshal(resp.Result, &link); err != nil {
		t.Fatal(err)
	}
	if link.InviteLink == "" || !link.CreatesJoinRequest || link.Name != "POAP gate" || link.Creator.ID != tg.BotID {
		t.Errorf("createChatInviteLink = %+v, want a named join-request link created by the bot", link)
	}
}

func TestServer_JoinRequest(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	bob := telegramtest.User{ID: 1002, FirstName: "Bob"}
	tg.SetChat(fans, "supergroup", "POAP fans")
	tg.SetAdmins(fans, tg.BotID)
	tg.RequestJoin(fans, alice)
	tg.RequestJoin(fans, bob)
	updates, err := api.GetUpdates(tgbotapi.UpdateConfig{AllowedUpdates: []string{"chat_join_request"}})
	if err != nil || len(updates) != 2 || updates[0].ChatJoinRequest == nil {
		t.Fatalf("GetUpdates() = %+v, %v; want two join requests", updates, err)
	}
	if r := updates[0].ChatJoinRequest; r.Chat.ID != fans || r.Chat.Title != "POAP fans" || r.From.ID != alice.ID {
		t.Errorf("join request = %+v, want alice's to POAP fans", r)
	}
	if got := tg.Member(fans, alice.ID); got != "left" || !tg.JoinPending(fans, alice.ID) {
		t.Errorf("requester's status %q, pending %v; want left and pending", got, tg.JoinPending(fans, alice.ID))
	}

	approve := tgbotapi.ApproveChatJoinRequestConfig{ChatConfig: tgbotapi.ChatConfig{ChatID: fans}, UserID: alice.ID}
	if _, err := api.Request(approve); err != nil {
		t.Fatalf("approve = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := tg.WaitApproved(ctx, fans, alice.ID); err != nil {
		t.Error(err)
	}
	if got := tg.Member(fans, alice.ID); got != "member" {
		t.Errorf("approved requester's status %q, want member", got)
	}
	_, err = api.Request(approve)
	if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Bad Request: "+telegramtest.RequesterMissing {
		t.Errorf("approve again = %d %q, want 400 %s", e.Code, e.Message, telegramtest.RequesterMissing)
	}

	if _, err := api.Request(tgbotapi.DeclineChatJoinRequest{ChatConfig: tgbotapi.ChatConfig{ChatID: fans}, UserID: bob.ID}); err != nil {
		t.Fatalf("decline = %v", err)
	}
	if err := tg.WaitDeclined(ctx, fans, bob.ID); err != nil {
		t.Error(err)
	}
	if got := tg.Member(fans, bob.ID); got != "left" || tg.JoinPending(fans, bob.ID) {
		t.Errorf("declined requester's status %q, pending %v; want left, not pending", got, tg.JoinPending(fans, bob.ID))
	}
}

func TestServer_BanUnban(t *testing.T) {
	tg := telegramtest.NewServer(telegramtest.Options{})
	defer tg.Close()
	api, err := newClient(t, tg, tg.Token)
	if err != nil {
		t.Fatal(err)
	}
	tg.SetAdmins(fans, tg.BotID)
	tg.SetStatus(fans, alice.ID, "member")
	member := tgbotapi.ChatMemberConfig{ChatID: fans, UserID: alice.ID}
	if _, err := api.Request(tgbotapi.BanChatMemberConfig{ChatMemberConfig: member}); err != nil {
		t.Fatalf("ban = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := tg.WaitRemoved(ctx, fans, alice.ID); err != nil {
		t.Error(err)
	}
	if got := tg.Member(fans, alice.ID); got != "kicked" {
		t.Errorf("banned member's status %q, want kicked", got)
	}
	if _, err := api.Request(tgbotapi.UnbanChatMemberConfig{ChatMemberConfig: member, OnlyIfBanned: true}); err != nil {
		t.Fatalf("unban = %v", err)
	}
	if got := tg.Member(fans, alice.ID); got != "left" {
		t.Errorf("unbanned member's status %q, want left", got)
	}

	tg.SetStatus(fans, alice.ID, "member")
	tg.ForbidAdmin(fans)
	_, err = api.Request(tgbotapi.BanChatMemberConfig{ChatMemberConfig: member})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Bad Request: "+telegramtest.NoRightsToRestrict {
		t.Errorf("ban after ForbidAdmin = %d %q, want 400 %s", e.Code, e.Message, telegramtest.NoRightsToRestrict)
	}
	if got := tg.Member(fans, alice.ID); got != "member" {
		t.Errorf("status after a refused ban %q, want member", got)
	}
}
