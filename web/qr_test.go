package web

import (
	"image"
	"image/color"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

var (
	svgViewBox = regexp.MustCompile(`<svg [^>]*viewBox="0 0 (\d+) (\d+)"`)
	svgPath    = regexp.MustCompile(`<path fill="#000" d="([^"]*)"`)
	svgRun     = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)
)

// decodeQRSVG draws the modules of a QR code SVG (as qrSVG writes it,
// found anywhere in page) into an image, 4 pixels a module, and decodes it
// with an independent reader (gozxing).
func decodeQRSVG(t *testing.T, page string) string {
	t.Helper()
	vb := svgViewBox.FindStringSubmatch(page)
	d := svgPath.FindStringSubmatch(page)
	if vb == nil || d == nil || vb[1] != vb[2] {
		t.Fatalf("no QR code SVG in:\n%s", page)
	}
	n, _ := strconv.Atoi(vb[1])
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, n*scale, n*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	runs := svgRun.FindAllStringSubmatch(d[1], -1)
	if len(strings.Join(svgRun.FindAllString(d[1], -1), "")) != len(d[1]) {
		t.Fatalf("path %q holds more than module runs", d[1])
	}
	for _, r := range runs {
		x, _ := strconv.Atoi(r[1])
		y, _ := strconv.Atoi(r[2])
		w, _ := strconv.Atoi(r[3])
		for py := y * scale; py < (y+1)*scale; py++ {
			for px := x * scale; px < (x+w)*scale; px++ {
				img.SetGray(px, py, color.Gray{})
			}
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decode QR code: %v", err)
	}
	return res.GetText()
}

func TestQRSVG(t *testing.T) {
	for _, text := range []string{
		"https://bot.example.org/verify/00112233445566778899aabbccddeeff",
		"http://127.0.0.1:41234/verify/" + strings.Repeat("ab", 64),
	} {
		svg, err := qrSVG(text)
		if err != nil {
			t.Fatalf("qrSVG(%q) = %v", text, err)
		}
		if got := decodeQRSVG(t, string(svg)); got != text {
			t.Errorf("qrSVG(%q) decodes to %q", text, got)
		}
	}
	if _, err := qrSVG(strings.Repeat("x", 5000)); err == nil {
		t.Errorf("qrSVG(5000 bytes) = nil error, want too long")
	}
}
