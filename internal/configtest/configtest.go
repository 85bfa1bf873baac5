// Package configtest builds configurations for tests, the one way they are
// built outside package config: from KEY=VALUE lines as --set gives them,
// with the environment ignored, through the loader and its checks.
package configtest

import (
	"testing"

	"github.com/tsbench/tsbench/config"
)

// Load reads a configuration from KEY=VALUE lines with the keys of the
// databases cat knows (nil: the shared keys only); an error fails the test.
// adaptertest.Load is the same for one driver's database.
func Load(t testing.TB, cat config.Catalog, sets ...string) *config.Config {
	t.Helper()
	l, err := Try(cat, sets...)
	if err != nil {
		t.Fatal(err)
	}
	return l.Config
}

// Try is Load for the tests of refusals: the loader's error is returned.
func Try(cat config.Catalog, sets ...string) (*config.Loaded, error) {
	return config.Load(config.Source{Sets: sets, NoEnv: true, Catalog: cat})
}
