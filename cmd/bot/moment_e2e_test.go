package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poapbot/poapbot/bot/discord/discordtest"
	"github.com/poapbot/poapbot/bot/telegram"
	"github.com/poapbot/poapbot/bot/telegram/telegramtest"
	"github.com/poapbot/poapbot/core/coretest"
	"github.com/poapbot/poapbot/poap/sandbox"
	"github.com/poapbot/poapbot/poap/wire"
)

// pngOf returns a PNG of side×side pixels of noise (seeded): images that
// differ in content, and that do not compress to nothing.
func pngOf(t testing.TB, side int, seed uint64) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.UintN(256))
	}
	img.Set(0, 0, color.White)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeFile writes data to a new file named name in a test directory.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// sha is the hex SHA-256 of b.
func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkMoment checks the sandbox's newest Moment: its author, drop,
// description, and that its files' bytes are files.
func checkMoment(t *testing.T, sb *sandbox.Server, author string, drop int64, description string, files ...[]byte) sandbox.Moment {
	t.Helper()
	ms := sb.Moments()
	if len(ms) == 0 {
		t.Fatal("the sandbox has no Moment")
	}
	m := ms[len(ms)-1]
	if !strings.EqualFold(m.Author, author) || len(m.DropIDs) != 1 || m.DropIDs[0] != drop || m.Description != description {
		t.Errorf("Moment = author %s, drops %v, description %q; want %s, [%d], %q", m.Author, m.DropIDs, m.Description, author, drop, description)
	}
	if len(m.MediaKeys) != len(files) {
		t.Fatalf("Moment has %d files, want %d", len(m.MediaKeys), len(files))
	}
	for i, k := range m.MediaKeys {
		md, ok := sb.Media(k)
		if !ok || md.Hash != sha(files[i]) || md.Size != int64(len(files[i])) {
			t.Errorf("file %d: uploaded %d bytes hashing %s, want %d bytes hashing %s", i+1, md.Size, md.Hash, len(files[i]), sha(files[i]))
		}
	}
	return m
}

// TestMoment_Console: the console posts a Moment from files on disk, with
// every check made before an upload address is asked for.
func TestMoment_Console(t *testing.T) {
	t.Parallel()
	for name, url := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startMainWith(t, map[string]string{"DATABASE_URL": url, "MOMENT_MAX_BYTES": "300000"}, true)
			sb := s.m.SandboxAPI
			drop := gatedDrop(t, s, "Console Moments", coretest.TestAddress)
			other := gatedDrop(t, s, "Nobody's drop")
			photo, second := pngOf(t, 64, 1), pngOf(t, 48, 2)
			photoPath, secondPath := writeFile(t, "booth.png", photo), writeFile(t, "stage.png", second)

			fmt.Fprintf(s.stdin, "/as alice\n/link %s\n", coretest.TestAddress)
			waitOutput(t, s, "Signing is free")
			fmt.Fprintf(s.stdin, "/verify %s\n", coretest.Sign(coretest.TestKey, challengeIn(t, s.out.String())))
			waitOutput(t, s, "Verified")

			fmt.Fprintf(s.stdin, "/moment %d Our booth media:%s,%s\n", drop, photoPath, secondPath)
			waitOutput(t, s, "Moment posted")
			checkMoment(t, sb, coretest.TestAddress, drop, "Our booth", photo, second)

			refusals := []struct{ line, want string }{
				{fmt.Sprintf("/moment %d Again media:%s", drop, writeFile(t, "copy.png", photo)), "posted by you to this drop already"},
				{fmt.Sprintf("/moment %d Not mine media:%s", other, photoPath), "holds a POAP of drop"},
				{fmt.Sprintf("/moment %d %s media:%s", drop, strings.Repeat("x", 601), photoPath), "at most 600 characters"},
				{fmt.Sprintf("/moment %d Text media:%s", drop, writeFile(t, "notes.png", []byte("just some text, not a picture"))), "is not a photo or a video"},
				{fmt.Sprintf("/moment %d Huge media:%s", drop, writeFile(t, "huge.png", pngOf(t, 400, 3))), "the most a Moment's file may be here is 0.3 MB"},
				{fmt.Sprintf("/moment %d Nothing", drop), "Attach a photo or a video"},
			}
			asked := sb.Requests(wire.OpMediaUploadURL)
			for _, r := range refusals {
				before := len(s.out.String())
				fmt.Fprintf(s.stdin, "%s\n", r.line)
				waitOutput(t, s, r.want)
				if strings.Contains(s.out.String()[before:], "Moment posted") {
					t.Errorf("%.40s…: posted", r.line)
				}
			}
			fmt.Fprintf(s.stdin, "/as bob\n/link %s\n", elsewhere)
			waitOutput(t, s, "as your primary wallet")
			fmt.Fprintf(s.stdin, "/moment %d Unverified media:%s\n", drop, photoPath)
			waitOutput(t, s, "isn't verified yet")
			if n := sb.Requests(wire.OpMediaUploadURL); n != asked {
				t.Errorf("refused posts asked for %d upload addresses", n-asked)
			}
			if n := len(sb.Moments()); n != 1 {
				t.Errorf("the sandbox has %d Moments, want 1", n)
			}

			fmt.Fprintf(s.stdin, "/moments %d\n", drop)
			waitOutput(t, s, "Recent Moments")
			waitOutput(t, s, "Our booth")
		})
	}
}

// momentLimit is MOMENT_MAX_BYTES in the platforms' end-to-end tests.
const momentLimit = 300000

// limitMoments sets MOMENT_MAX_BYTES to momentLimit.
func limitMoments(m *Main) { m.Config.MomentMaxBytes = momentLimit }

// TestMoment_Discord: /moment with attachments posts one Moment whose
// author is the member's verified holding address and whose files are the
// attachments' bytes, acknowledged within Discord's 3 s while it uploads;
// the same photo again, a non-holder, an unverified wallet, a text file
// named .png and an over-size file are refused before any upload address
// is asked for; /moments shows the Moment with its picture in an embed.
func TestMoment_Discord(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, s := startDiscord(t, dbURL, limitMoments)
			sb := s.m.SandboxAPI
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			drop := gatedDrop(t, s, "Discord Moments", coretest.TestAddress)
			other := gatedDrop(t, s, "Nobody's drop")
			photo, second := pngOf(t, 64, 1), pngOf(t, 48, 2)
			srv.AddFile("booth.png", "image/png", photo)
			srv.AddFile("stage.png", "image/png", second)
			srv.AddFile("notes.png", "image/png", []byte("just some text, not a picture"))
			srv.AddFile("huge.png", "image/png", pngOf(t, 400, 3))
			alice, bob := discordtest.Alice, discordtest.Bob
			discordVerify(ctx, t, srv, alice, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })

			posted := discordAnswer(ctx, t, srv.Command(alice, fmt.Sprintf("/moment drop:%d description:\"Our booth\" media:booth.png media2:stage.png", drop)), containing("Moment posted"))
			if posted.Ephemeral {
				t.Error("the Moment's reply is ephemeral; a Moment is public")
			}
			checkMoment(t, sb, coretest.TestAddress, drop, "Our booth", photo, second)

			asked := sb.Requests(wire.OpMediaUploadURL)
			refusals := []struct{ line, want string }{
				{fmt.Sprintf("/moment drop:%d description:Again media:booth.png", drop), "posted by you to this drop already"},
				{fmt.Sprintf("/moment drop:%d description:\"Not mine\" media:booth.png", other), "holds a POAP of drop"},
				{fmt.Sprintf("/moment drop:%d description:Text media:notes.png", drop), "is not a photo or a video"},
				{fmt.Sprintf("/moment drop:%d description:Huge media:huge.png", drop), "the most a Moment's file may be here is 0.3 MB"},
			}
			for _, r := range refusals {
				discordAnswer(ctx, t, srv.Command(alice, r.line), containing(r.want))
			}
			discordAnswer(ctx, t, srv.Command(bob, "/link "+elsewhere), containing("Nonce"))
			discordAnswer(ctx, t, srv.Command(bob, fmt.Sprintf("/moment drop:%d description:Unverified media:booth.png", drop)), containing("isn't verified yet"))
			if n := sb.Requests(wire.OpMediaUploadURL); n != asked {
				t.Errorf("refused posts asked for %d upload addresses", n-asked)
			}
			if n := len(sb.Moments()); n != 1 {
				t.Errorf("the sandbox has %d Moments, want 1", n)
			}

			// While a post waits for its processing, other commands are
			// acknowledged in time, and the post's reply shows its progress.
			sb.SetMediaDelay(3 * time.Second)
			srv.AddFile("late.png", "image/png", pngOf(t, 56, 5))
			long := srv.Command(alice, fmt.Sprintf("/moment drop:%d description:Later media:late.png", drop))
			if _, err := long.WaitResponses(ctx, func(rs []discordtest.Response) bool {
				return slices.ContainsFunc(rs, func(r discordtest.Response) bool { return strings.Contains(r.Content, "processing") })
			}); err != nil {
				t.Fatalf("no progress edit saying the file is processing: %v", err)
			}
			discordAnswer(ctx, t, srv.Command(bob, "/help"), containing("/moment"))
			discordAnswer(ctx, t, long, containing("Moment posted"))
			sb.SetMediaDelay(0)

			list := discordAnswer(ctx, t, srv.Command(bob, fmt.Sprintf("/moments drop:%d", drop)), containing("Recent Moments"))
			if len(list.Embeds) == 0 || list.Embeds[0].Image == nil || !strings.Contains(list.Embeds[0].Image.URL, "/media/") {
				t.Errorf("/moments embeds = %+v, want the Moment's picture", list.Embeds)
			}
		})
	}
}

// TestMoment_Telegram: a photo captioned /moment in a group makes a Moment
// with the photo's bytes by the member's verified holding address, edited
// into one reply; an album of two makes one Moment with two files; the same
// photo again makes none; refusals come before any upload address;
// /moments sends the pictures.
func TestMoment_Telegram(t *testing.T) {
	t.Parallel()
	for name, dbURL := range testDatabases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Some thirty messages go to the group within a minute here,
			// more than Telegram's 20: this test is not about that limit.
			tg, s := startTelegram(t, dbURL, func(m *Main) {
				limitMoments(m)
				m.TelegramLimits.Group = telegram.Window{N: 1000, Per: time.Minute}
			})
			sb := s.m.SandboxAPI
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			group, _ := telegramGroup(tg)
			drop := gatedDrop(t, s, "Telegram Moments", coretest.TestAddress)
			other := gatedDrop(t, s, "Nobody's drop")
			alice := telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
			bob := telegramtest.User{ID: 1002, FirstName: "Bob", Username: "bob"}
			tg.OpenPrivateChat(alice.ID)
			tg.OpenPrivateChat(bob.ID)
			telegramVerify(ctx, t, tg, alice, coretest.TestAddress, func(m string) string { return coretest.Sign(coretest.TestKey, m) })
			files := map[string][]byte{"p1": pngOf(t, 64, 1), "p2": pngOf(t, 48, 2), "p3": pngOf(t, 40, 3), "txt": []byte("just some text, not a picture"), "big": pngOf(t, 400, 4)}
			for id, b := range files {
				tg.AddFile(telegramtest.BytesFile(id, b))
			}
			caption := func(d int64, text string) string { return fmt.Sprintf("/moment@%s %d %s", tg.Username, d, text) }
			posted := func(description string) {
				t.Helper()
				if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("Moment posted"), telegramtest.Contains(description))); err != nil {
					t.Fatalf("Moment %q not posted: %v", description, err)
				}
			}

			tg.SendMedia(group, alice, caption(drop, "Our booth"), telegramtest.PhotoMedia("p1", int64(len(files["p1"]))))
			posted("Our booth")
			checkMoment(t, sb, coretest.TestAddress, drop, "Our booth", files["p1"])
			tg.SendAlbum(group, alice, caption(drop, "The stage"), telegramtest.PhotoMedia("p2", int64(len(files["p2"]))), telegramtest.PhotoMedia("p3", int64(len(files["p3"]))))
			posted("The stage")
			checkMoment(t, sb, coretest.TestAddress, drop, "The stage", files["p2"], files["p3"])

			asked := sb.Requests(wire.OpMediaUploadURL)
			refusals := []struct {
				caption string
				media   telegramtest.Media
				want    string
			}{
				{caption(drop, "Again"), telegramtest.PhotoMedia("p1", int64(len(files["p1"]))), "posted by you to this drop already"},
				{caption(other, "Not mine"), telegramtest.PhotoMedia("p1", int64(len(files["p1"]))), "holds a POAP of drop"},
				{caption(drop, strings.Repeat("x", 601)), telegramtest.PhotoMedia("p1", int64(len(files["p1"]))), "at most 600 characters"},
				{caption(drop, "Text"), telegramtest.DocumentMedia("txt", "notes.png", "image/png", int64(len(files["txt"]))), "is not a photo or a video"},
				{caption(drop, "Huge"), telegramtest.DocumentMedia("big", "huge.png", "image/png", int64(len(files["big"]))), "the most a Moment's file may be here is 0.3 MB"},
			}
			for _, r := range refusals {
				tg.SendMedia(group, alice, r.caption, r.media)
				if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains(r.want))); err != nil {
					t.Errorf("%.30s…: no refusal %q: %v", r.caption, r.want, err)
				}
			}
			tg.SendText(telegramtest.PrivateChat(bob), bob, "/link "+elsewhere)
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(bob.ID), telegramtest.Contains("Nonce"))); err != nil {
				t.Fatal(err)
			}
			tg.SendMedia(group, bob, caption(drop, "Unverified"), telegramtest.PhotoMedia("p1", int64(len(files["p1"]))))
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("isn't verified yet"))); err != nil {
				t.Errorf("an unverified wallet's post was not refused: %v", err)
			}
			if n := sb.Requests(wire.OpMediaUploadURL); n != asked {
				t.Errorf("refused posts asked for %d upload addresses", n-asked)
			}
			if n := len(sb.Moments()); n != 2 {
				t.Errorf("the sandbox has %d Moments, want 2", n)
			}

			tg.SendText(group, bob, fmt.Sprintf("/moments@%s %d", tg.Username, drop))
			if _, err := tg.WaitMessage(ctx, telegramtest.All(telegramtest.To(group.ID), telegramtest.Contains("Recent Moments"))); err != nil {
				t.Fatal(err)
			}
			if calls := tg.Calls("sendMediaGroup"); len(calls) == 0 {
				t.Error("/moments sent no media group of the Moments' pictures")
			}
		})
	}
}
