package main

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/pipeline"
)

// freeText are the keys whose every value is valid as the loader reads
// it, each with why: a name, an address, a path or a secret that only the
// database, the file system or the user can judge. Every other key of the
// table refuses a value it cannot use when the configuration loads.
var freeText = map[string]string{
	"HOST":                "an address: the connection judges it",
	"USERNAME":            "a login: the server judges it",
	"PASSWORD":            "a secret: the server judges it",
	"ES_API_KEY":          "a secret: the server judges it",
	"SQLITE_PATH":         "a path: created when the run starts",
	"RESULTS_DIR":         "a path: created when the run saves",
	"TRUST_STORE_PATH":    "a path, read only with USE_SSL=true (then checked at load)",
	"ES_CA_FILE":          "a path, read only with USE_SSL=true (then checked at load)",
	"FLUSH_COMMAND":       "a shell command",
	"STOP_COMMAND":        "a shell command",
	"DROP_CACHES_COMMAND": "a shell command",
	"START_COMMAND":       "a shell command",
	"TEMPLATE_NAME":       "a name the server judges",
	"ES_PIPELINE":         "the name of a pipeline on the server",
	"NULL_TRACE":          "a path: created when the run starts",
}

// roundsOnly are keys that act only in query rounds (the lifecycle before
// them), so they are tried in a run that has some.
var roundsOnly = map[string]bool{"FLUSH_COMMAND": true, "STOP_COMMAND": true, "START_COMMAND": true}

// TestEveryKeyRefusesAnInvalidValue walks the key table of every database
// and gives each key a value that no key means, in a run that only writes
// (a key that judged its value only when a query ran would let it by):
// loading (config, the driver's Check, the plan) must refuse it, naming
// the key, unless the key is free text.
func TestEveryKeyRefusesAnInvalidValue(t *testing.T) {
	const invalid = "tsbench-invalid-value"
	// Writes only, and no query rounds, which a STOP_COMMAND would ask for.
	writesOnly := []string{"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=0"}
	accepted := map[string]bool{}
	seen := map[string]bool{}
	for _, drv := range registry() {
		base := append([]string{"DB_SWITCH=" + drv.Name}, writesOnly...)
		l, err := config.Load(config.Source{Sets: base, NoEnv: true, Catalog: registry()})
		if err != nil {
			t.Fatalf("%s: %v", drv.Name, err)
		}
		for _, k := range l.Config.Keys() {
			if seen[k.Name] {
				continue
			}
			seen[k.Name] = true
			sets := []string{k.Name + "=" + invalid}
			ctx := base
			if roundsOnly[k.Name] {
				ctx = []string{"DB_SWITCH=" + drv.Name, "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "QUERY_ROUNDS=1"}
			}
			for _, b := range ctx {
				if !strings.HasPrefix(b, k.Name+"=") {
					sets = append(sets, b)
				}
			}
			_, err := pipeline.Load("", sets, registry())
			err = exitOf(err)
			if err == nil {
				accepted[k.Name] = true
				if freeText[k.Name] == "" {
					t.Errorf("%s=%s (DB_SWITCH=%s) loads: the key takes any value (valid: %s)", k.Name, invalid, drv.Name, k.Valid)
				}
				continue
			}
			if !strings.Contains(err.Error(), k.Name) {
				t.Errorf("%s=%s is refused without naming the key: %v", k.Name, invalid, err)
			}
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitUsage {
				t.Errorf("%s=%s: %v, want a usage error", k.Name, invalid, err)
			}
		}
	}
	var stale []string
	for k := range freeText {
		if !accepted[k] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("listed as free text but refusing %s: %v", invalid, stale)
	}
	t.Logf("%d keys walked, %d free text", len(seen), len(accepted))
}
