package config

import (
	"errors"
	"testing"
)

// FuzzLoad feeds arbitrary files and overrides to the loader: it must never
// panic, and whatever it rejects must be a *Error or Errors (which the CLI
// turns into exit status 2), never some other failure.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"",
		"LOOP=10\nDEVICE_NUMBER=5\nDATA_CLIENT_NUMBER=2",
		"CLIENT_NUMBER: 3\nBATCH_SIZE: 10\nIS_OVERFLOW: true\nOVERFLOW_MODE: 1",
		"OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1",
		"INSERT_DATATYPE_PROPORTION 1:1:1:1:1:1",
		"START_TIME=2018-9-20T00:00:00+08:00\nTIMESTAMP_PRECISION=us",
		"HOST=a,b\nPORT=1,2,3",
		"KEY=${OTHER}\nX=\\u0041",
		"LOOP=1e3",
		"DEVICE_NUMBER=2147483648",
	} {
		f.Add(seed, "LOOP=3")
	}
	f.Fuzz(func(t *testing.T, file, set string) {
		l, err := Load(Source{Data: []byte(file), Sets: []string{set}, NoEnv: true})
		if err != nil {
			var e *Error
			var es Errors
			if !errors.As(err, &e) && !errors.As(err, &es) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if l.Config == nil {
			t.Fatal("nil config without error")
		}
		if errs := Validate(l.Config); len(errs) > 0 {
			t.Fatalf("loaded config does not validate: %v", errs)
		}
	})
}
