package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConfigFrom_AsLoadConfig: the tests' configFrom reads what LoadConfig
// (envconfig, the process environment) reads: every variable set, none
// set (the defaults), some set empty, and each malformed value refused
// with the same words. It sets the process environment, so it stays
// sequential.
func TestConfigFrom_AsLoadConfig(t *testing.T) {
	every := map[string]string{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Config]()) {
		name := f.Tag.Get("envconfig")
		if name == "" {
			t.Fatalf("field %s has no envconfig tag", f.Name)
		}
		if _, dup := every[name]; dup {
			t.Fatalf("two fields read %s", name)
		}
		every[name] = map[string]string{"int": "7", "int64": "0x10", "time.Duration": "90s"}[f.Type.String()]
		if every[name] == "" {
			every[name] = "value of " + name
		}
	}
	unset := map[string]string{}
	for _, tt := range []struct {
		name string
		env  map[string]string
	}{
		{"Every", every},
		{"None", unset},
		{"SetEmpty", map[string]string{"LOG_LEVEL": "", "DISCORD_API_URL": ""}},
		{"EmptyNumber", map[string]string{"TELEGRAM_RATE": ""}},
		{"BadNumber", map[string]string{"MOMENT_MAX_BYTES": "100MB"}},
		{"BadDuration", map[string]string{"ATTENDANCE_MAX_LENGTH": "30"}},
		{"EmptyHTTPAddr", map[string]string{"HTTP_ADDR": ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t, tt.env)
			want, wantErr := LoadConfig()
			got, gotErr := configFrom(mapLookup(tt.env))
			if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
				t.Fatalf("configFrom error %v, LoadConfig error %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("configFrom differs from LoadConfig (-LoadConfig +configFrom):\n%s", diff)
			}
			if tt.name == "Every" && !strings.Contains(got.LogLevel, "value of") {
				t.Errorf("LOG_LEVEL = %q, want it read from the variable", got.LogLevel)
			}
		})
	}
}
