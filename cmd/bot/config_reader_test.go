package main

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/poapbot/poapbot/core"
)

// configFrom reads the configuration as LoadConfig does, through lookup
// instead of the process environment, so that tests running in parallel
// each build their own (envconfig reads only the process environment,
// and t.Setenv rules out t.Parallel). A variable not set takes its
// default; one set empty is read as empty; the first malformed value is
// reported with its variable's name. TestConfigFrom_AsLoadConfig keeps it
// equal to LoadConfig.
func configFrom(lookup func(name string) (string, bool)) (Config, error) {
	var c Config
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name := f.Tag.Get("envconfig")
		value, set := lookup(name)
		if !set {
			if value, set = f.Tag.Lookup("default"); !set {
				continue
			}
		}
		if err := setConfigField(v.Field(i).Addr().Interface(), value); err != nil {
			return c, fmt.Errorf("%s: %q is not a valid %s", name, value, describeType(f.Type.String()))
		}
	}
	if v, set := lookup("HTTP_ADDR"); set && v == "" {
		return c, fmt.Errorf("HTTP_ADDR must not be empty: unset it for the default (:8080, 127.0.0.1:8080 under -console)")
	}
	return c, nil
}

// setConfigField parses value into the field p points to, as envconfig
// does: whole numbers are Go literals (0x10 and 1_000 are whole numbers
// too).
func setConfigField(p any, value string) error {
	var err error
	switch p := p.(type) {
	case *string:
		*p = value
	case *core.Secret:
		*p = core.Secret(value)
	case *int:
		var n int64
		n, err = strconv.ParseInt(value, 0, strconv.IntSize)
		*p = int(n)
	case *int64:
		*p, err = strconv.ParseInt(value, 0, 64)
	case *time.Duration:
		*p, err = time.ParseDuration(value)
	default:
		// A field of a new type needs a case above;
		// TestConfigFrom_AsLoadConfig sets every field, so it fails first.
		err = fmt.Errorf("no reader for a %T", p)
	}
	return err
}

// mapLookup looks variables up in env.
func mapLookup(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) { v, ok := env[name]; return v, ok }
}
