package telegramtest

import "strconv"

// Media is a file a member's message carries (see SendMedia). Its FileID
// is what the bot downloads: register the content with AddFile.
type Media struct {
	// Kind is "photo", "video", "animation" or "document".
	Kind   string
	FileID string
	// FileName and MimeType are what the sender's app declares; Telegram
	// gives neither for a photo.
	FileName string
	MimeType string
	// Size is file_size, left out when 0.
	Size int64
}

// PhotoMedia returns a photo of size bytes. Its message carries three
// sizes, smallest first as Telegram sends them: two thumbnails
// ("<fileID>-s", "<fileID>-m") and the photo itself, fileID, the largest.
func PhotoMedia(fileID string, size int64) Media {
	return Media{Kind: "photo", FileID: fileID, Size: size}
}

// VideoMedia returns a video.
func VideoMedia(fileID, name, mimeType string, size int64) Media {
	return Media{Kind: "video", FileID: fileID, FileName: name, MimeType: mimeType, Size: size}
}

// AnimationMedia returns an animation (a GIF or a silent MP4). Its
// message also carries it as a document, as Telegram does.
func AnimationMedia(fileID, name, mimeType string, size int64) Media {
	return Media{Kind: "animation", FileID: fileID, FileName: name, MimeType: mimeType, Size: size}
}

// DocumentMedia returns a file sent as a document.
func DocumentMedia(fileID, name, mimeType string, size int64) Media {
	return Media{Kind: "document", FileID: fileID, FileName: name, MimeType: mimeType, Size: size}
}

// SendMedia pushes a message update: from posts m in chat with caption
// (none when ""); a caption starting with "/" carries a bot_command
// entity. It returns the message's id, for a reply to it (ReplyText).
func (s *Server) SendMedia(chat Chat, from User, caption string, m Media) int {
	id, _ := s.sendMedia(chat, from, caption, m, "")
	return id
}

// SendAlbum pushes one message update per item, as Telegram delivers an
// album: every item shares a media_group_id, and only the first carries
// the caption. It returns the media_group_id and the messages' ids, in
// order.
func (s *Server) SendAlbum(chat Chat, from User, caption string, items ...Media) (group string, ids []int) {
	s.mu.Lock()
	s.nextGroup++
	group = strconv.Itoa(s.nextGroup)
	s.mu.Unlock()
	for i, m := range items {
		if i > 0 {
			caption = ""
		}
		id, _ := s.sendMedia(chat, from, caption, m, group)
		ids = append(ids, id)
	}
	return group, ids
}

// ReplyText pushes a message update: from writes text in chat in reply to
// message replyTo, which the update carries whole (its media included),
// as Telegram does. It returns the message's id.
func (s *Server) ReplyText(chat Chat, from User, replyTo int, text string) int {
	id := s.newMessageID()
	msg := memberMessage(id, chat, from)
	msg["text"] = text
	addEntities(msg, "entities", text)
	s.mu.Lock()
	if body := s.memberBodies[replyTo]; body != nil {
		msg["reply_to_message"] = body
	}
	s.mu.Unlock()
	s.keep(MemberMessage{MessageID: id, ChatID: chat.ID, From: from, Text: text, ReplyTo: replyTo}, msg)
	s.PushUpdate(map[string]any{"message": msg})
	return id
}

// sendMedia keeps and pushes one media message, of album group when not
// "", and returns its id and update id.
func (s *Server) sendMedia(chat Chat, from User, caption string, m Media, group string) (id, update int) {
	id = s.newMessageID()
	msg := memberMessage(id, chat, from)
	addMedia(msg, m)
	if caption != "" {
		msg["caption"] = caption
		addEntities(msg, "caption_entities", caption)
	}
	if group != "" {
		msg["media_group_id"] = group
	}
	s.keep(MemberMessage{MessageID: id, ChatID: chat.ID, From: from, Text: caption, Media: &m, MediaGroupID: group}, msg)
	return id, s.PushUpdate(map[string]any{"message": msg})
}

// addMedia puts m in a message body as the Bot API shapes it.
// See https://core.telegram.org/bots/api#message.
func addMedia(msg map[string]any, m Media) {
	file := func(id string, size int64) map[string]any {
		f := map[string]any{"file_id": id, "file_unique_id": "u-" + id}
		if size > 0 {
			f["file_size"] = size
		}
		return f
	}
	if m.Kind == "photo" {
		sizes := []map[string]any{file(m.FileID+"-s", m.Size/16), file(m.FileID+"-m", m.Size/4), file(m.FileID, m.Size)}
		for i, side := range []int{90, 320, 1280} {
			sizes[i]["width"], sizes[i]["height"] = side, side
		}
		msg["photo"] = sizes
		return
	}
	f := file(m.FileID, m.Size)
	if m.FileName != "" {
		f["file_name"] = m.FileName
	}
	if m.MimeType != "" {
		f["mime_type"] = m.MimeType
	}
	if m.Kind == "video" || m.Kind == "animation" {
		f["width"], f["height"], f["duration"] = 1280, 720, 5
	}
	msg[m.Kind] = f
	if m.Kind == "animation" {
		msg["document"] = f
	}
}
