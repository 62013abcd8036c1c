package core_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/poapbot/poapbot/core"
)

// growing is files whose file grows between the check and the upload: the
// second open hands over more bytes than the first, with no size.
type growing struct {
	files
	opens atomic.Int32
}

func (g *growing) OpenMedia(ctx context.Context, ref string) (io.ReadCloser, int64, error) {
	if g.opens.Add(1) == 1 {
		return g.files.OpenMedia(ctx, ref)
	}
	b := append(bytes.Clone(g.files[ref]), "more"...)
	return io.NopCloser(bytes.NewReader(b)), -1, nil
}

func TestMomentService_Refusals(t *testing.T) {
	t.Run("ChangedWhileUploading", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"] = pngFile(1000, 1)
		e.use(t, &growing{files: e.files})
		_, err := e.post("k", "a")
		var me *core.MediaError
		if !errors.As(err, &me) || me.Problem != core.MediaChanged || !errors.Is(err, core.ErrMediaChanged) || errors.Is(err, core.ErrIssuerUnavailable) {
			t.Fatalf("Post(a file that grows while uploading) = %v, want a MediaChanged MediaError", err)
		}
		if got := e.store.Moments(); len(got) != 1 || got[0].State != core.MomentFailed || got[0].Error != "file 1 changed while it was uploading" {
			t.Errorf("stored = %+v, want one failed as changed while uploading", got)
		}
	})
	t.Run("RefusedByMoments", func(t *testing.T) {
		e := newMomentEnv(t, 10)
		e.files["a"] = pngFile(1000, 1)
		e.issuer.createErr = core.NewIssuerRefusal(400, "body/userTags items must have an address", true)
		_, err := e.post("k", "a")
		if !errors.Is(err, core.ErrIssuerRefused) || errors.Is(err, core.ErrMomentDelayed) {
			t.Fatalf("Post refused by Moments = %v, want the refusal, not delayed", err)
		}
		if got := e.store.Moments(); len(got) != 1 || got[0].State != core.MomentFailed || got[0].Error != "refused by Moments (status 400)" {
			t.Errorf("stored = %+v, want one failed as refused by Moments", got)
		}
	})
}

func TestNewIssuerRefusal(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"Plain", "claim_name is already taken", "claim_name is already taken"},
		{"Controls", "bad\x00 input\x1b[31m\u202e here\n\tnow", "bad input [31m here now"},
		{"Token", "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.abc refused", "token […] refused"},
		{"Long", strings.Repeat("ab ", 100), strings.TrimSpace(strings.Repeat("ab ", 40)) + "…"},
		{"InvalidUTF8", "bad \xff byte", "bad ? byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := core.NewIssuerRefusal(400, tt.in, false)
			if r.Message != tt.want || !errors.Is(r, core.ErrIssuerRefused) {
				t.Errorf("NewIssuerRefusal(%q).Message = %q, want %q", tt.in, r.Message, tt.want)
			}
		})
	}
}
