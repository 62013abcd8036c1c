package web

import (
	"fmt"
	"html/template"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// qrSVG returns text as a QR code (error correction level M, about 15 %
// of the code may be lost or dirty) in an inline SVG: one square unit per
// module, the quiet zone of 4 modules included, the dark modules of each
// row drawn as runs. Inline, it costs the page no request, and the CSP
// needs nothing for it (presentation attributes are not inline style).
// It returns an error when text is too long for a QR code.
func qrSVG(text string) (template.HTML, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return "", fmt.Errorf("qr code: %w", err)
	}
	bits := q.Bitmap()
	n := len(bits)
	var d strings.Builder
	for y, row := range bits {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&d, "M%d %dh%dv1h-%dz", x, y, run, run)
			x += run
		}
	}
	// Only numbers and fixed text go in: nothing here needs escaping.
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" `+
		`shape-rendering="crispEdges" role="img" aria-label="QR code of this page's address">`+
		`<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		n, n, n*6, n*6, n, n, d.String())), nil
}
