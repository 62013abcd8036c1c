package console

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/poapbot/poapbot/bot"
)

func TestConsole_RenderFile(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	c := New(strings.NewReader(""), &out, false).WithFileDir(dir)
	c.render(bot.Reply{Text: "Export of **Drop**", File: &bot.File{Name: "../drop-1-links.csv", ContentType: "text/csv", Data: []byte("link,member\n")}})
	m := regexp.MustCompile(`Saved drop-1-links\.csv to (\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("output names no saved file:\n%s", out.String())
	}
	if filepath.Dir(m[1]) != dir || !strings.HasSuffix(m[1], ".csv") || !strings.HasPrefix(filepath.Base(m[1]), "drop-1-links-") {
		t.Errorf("saved to %s, want a .csv in %s", m[1], dir)
	}
	data, err := os.ReadFile(m[1])
	if err != nil || string(data) != "link,member\n" {
		t.Errorf("saved file = %q, %v", data, err)
	}
	if info, err := os.Stat(m[1]); err != nil || info.Mode().Perm()&0o077 != 0 {
		t.Errorf("saved file mode = %v, %v, want readable by the owner only", info.Mode(), err)
	}
}

func TestConsole_RenderFile_Error(t *testing.T) {
	var out strings.Builder
	c := New(strings.NewReader(""), &out, false).WithFileDir(filepath.Join(t.TempDir(), "missing"))
	c.render(bot.Reply{Text: "x", File: &bot.File{Name: "a.csv"}})
	if !strings.Contains(out.String(), "The file a.csv could not be saved") {
		t.Errorf("output = %q, want the failure", out.String())
	}
}
