package adapters

import (
	"testing"

	"github.com/tsbench/tsbench/config"
)

func TestEmbedded(t *testing.T) {
	addr := func(*config.Config) []string { return []string{"127.0.0.1:6667"} }
	file := func(*config.Config) []string { return []string{"results/test.db"} }
	for _, c := range []struct {
		name string
		d    Driver
		want bool
	}{
		{"no address (Null)", Driver{}, true},
		{"a file it discards (SQLite)", Driver{Address: file, Discard: func(*config.Config) error { return nil }}, true},
		{"a server", Driver{Address: addr}, false},
	} {
		if got := c.d.Embedded(); got != c.want {
			t.Errorf("%s: Embedded %v, want %v", c.name, got, c.want)
		}
	}
}
