package core

import (
	"bytes"
	"strings"
)

// The MIME types Moments accepts, as SniffMedia names them.
const (
	TypePNG       = "image/png"
	TypeJPEG      = "image/jpeg"
	TypeGIF       = "image/gif"
	TypeWebP      = "image/webp"
	TypeMP4       = "video/mp4"
	TypeQuickTime = "video/quicktime"
	TypeWebM      = "video/webm"
)

// MomentTypes lists the accepted types, for messages.
var MomentTypes = []string{"PNG", "JPEG", "GIF", "WebP", "MP4", "QuickTime (MOV)", "WebM"}

// SniffMedia names the type of a file from its first bytes (at least 16
// are needed; the first few KiB let WebM be told from other Matroska), or
// "" when it is none of the accepted images and videos. The names a
// platform or a file name give are never consulted.
func SniffMedia(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return TypePNG
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return TypeJPEG
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return TypeGIF
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return TypeWebP
	case bytes.HasPrefix(head, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		// EBML: a WebM file names its DocType "webm" in its header;
		// other Matroska files say "matroska".
		if bytes.Contains(head[:min(len(head), 4096)], []byte("webm")) {
			return TypeWebM
		}
		return ""
	}
	return sniffISO(head)
}

// sniffISO tells MP4 from QuickTime by the first box of an ISO base media
// file: an ftyp box with its major brand ("qt  " is QuickTime), or one of
// the boxes an old QuickTime file starts with.
func sniffISO(head []byte) string {
	if len(head) < 12 {
		return ""
	}
	switch box := string(head[4:8]); box {
	case "ftyp":
		switch brand := string(head[8:12]); {
		case brand == "qt  ":
			return TypeQuickTime
		case notVideoBrands[brand], strings.HasPrefix(brand, "3g"):
			// HEIF and AVIF pictures, audio-only MPEG-4, 3GPP: the
			// same box, not a video Moments takes as MP4.
			return ""
		}
		return TypeMP4
	case "moov", "mdat", "wide", "free", "skip", "pnot":
		return TypeQuickTime
	}
	return ""
}

// notVideoBrands are the major brands of ISO base media files that are
// no MP4 video: HEIF and AVIF images, and MPEG-4 audio and books.
var notVideoBrands = map[string]bool{
	"heic": true, "heix": true, "hevc": true, "hevx": true, "heim": true, "heis": true,
	"mif1": true, "msf1": true, "avif": true, "avis": true,
	"M4A ": true, "M4B ": true, "M4P ": true, "F4A ": true, "F4B ": true,
}

// declaredType normalizes the MIME type a platform declared: lower case,
// without parameters, with the aliases some clients send; "" for none or
// for a type that says nothing (application/octet-stream).
func declaredType(t string) string {
	t, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(t)), ";")
	t = strings.TrimSpace(t)
	switch t {
	case "", "application/octet-stream", "binary/octet-stream":
		return ""
	case "image/jpg", "image/pjpeg":
		return TypeJPEG
	case "video/mov", "video/x-quicktime":
		return TypeQuickTime
	case "image/x-png":
		return TypePNG
	}
	return t
}

// typeMatches reports whether the declared type (normalized) agrees with
// the sniffed one. Platforms re-encode some files (a GIF sent as an
// animation becomes an MP4 on Telegram), so a declared type of the same
// family is not enough: it must be the same type, or none.
func typeMatches(declared, sniffed string) bool {
	return declared == "" || declared == sniffed
}
