package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/adapters/sqlite"
)

func TestLifecycleOrderAndRecord(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "steps.log")
	cmd := func(name string) string { return "echo " + name + " >> " + log + "; echo did-" + name }
	p := plan(t, "SQLITE_PATH="+filepath.Join(dir, "l.db"), "OPERATION_PROPORTION=1:1:1:0:0:0:0:0:0:0:0:0:0", "LOOP=9", "QUERY_LOOP=2",
		"QUERY_ROUNDS=2", "RESTART_SCOPE=variant", "FLUSH_COMMAND="+cmd("flush"), "STOP_COMMAND="+cmd("stop"),
		"DROP_CACHES_COMMAND="+cmd("drop"), "START_COMMAND="+cmd("start"))
	drv := sqlite.Driver()
	res, err := Run(context.Background(), p, &drv, Options{})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	b, _ := os.ReadFile(log)
	// Two variants (Q1, Q2), each preceded by the lifecycle; rounds 2 warm.
	if got, want := strings.Fields(string(b)), "flush stop drop start flush stop drop start"; strings.Join(got, " ") != want {
		t.Fatalf("commands ran as %v, want %s", got, want)
	}
	var names []string
	for _, s := range res.Steps {
		if s.Phase != "query" {
			continue
		}
		names = append(names, s.Name+"@"+s.Variant)
		if strings.HasPrefix(s.Name, "flush") && s.Output != "did-flush" {
			t.Errorf("flush output %q not recorded", s.Output)
		}
	}
	want := "flush@PRECISE_POINT stop@PRECISE_POINT drop caches@PRECISE_POINT start@PRECISE_POINT reconnect@PRECISE_POINT flush@TIME_RANGE stop@TIME_RANGE drop caches@TIME_RANGE start@TIME_RANGE reconnect@TIME_RANGE"
	if strings.Join(names, " ") != want {
		t.Fatalf("steps %v\nwant %s", names, want)
	}
	// ingest, then per variant rounds 1 and 2.
	var phases []string
	for _, ph := range res.Phases {
		phases = append(phases, ph.Name+"/"+ph.Variant+"/"+string(rune('0'+ph.Round)))
	}
	if got := strings.Join(phases, " "); got != "ingest//0 query/PRECISE_POINT/1 query/PRECISE_POINT/2 query/TIME_RANGE/1 query/TIME_RANGE/2" {
		t.Fatalf("phases %s", got)
	}
	for _, ph := range res.Phases[1:] {
		if s := ph.Operations[0]; s.OKOps != int64(p.Config.DataClients)*2 || s.FailOps != 0 {
			t.Fatalf("%s round %d: %d ok, %d failed; want QUERY_LOOP × clients", ph.Variant, ph.Round, s.OKOps, s.FailOps)
		}
	}
}

func TestFailingStepStopsTheRun(t *testing.T) {
	for _, key := range []string{"STOP_COMMAND", "START_COMMAND"} {
		dir := t.TempDir()
		p := plan(t, "SQLITE_PATH="+filepath.Join(dir, "l.db"), "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "LOOP=4", "DROP_CACHES_COMMAND=",
			key+"=echo refusing; exit 3")
		drv := sqlite.Driver()
		res, err := Run(context.Background(), p, &drv, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped == nil || !strings.Contains(res.Stopped.Error(), "failed") || !strings.Contains(res.Stopped.Error(), "refusing") {
			t.Fatalf("%s failing: stopped = %v", key, res.Stopped)
		}
		for _, ph := range res.Phases {
			if ph.Name == "query" {
				t.Fatalf("%s failed, yet a query round ran", key)
			}
		}
	}
}

func TestDropCachesNotPermittedIsSkipped(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, "SQLITE_PATH="+filepath.Join(dir, "l.db"), "OPERATION_PROPORTION=1:1:0:0:0:0:0:0:0:0:0:0:0", "LOOP=4", "QUERY_ROUNDS=1",
		"DROP_CACHES_COMMAND=echo 'sh: 1: cannot create /proc/sys/vm/drop_caches: Read-only file system' >&2; exit 2")
	drv := sqlite.Driver()
	var log strings.Builder
	res, err := Run(context.Background(), p, &drv, Options{Log: &log})
	if err != nil || res.Stopped != nil {
		t.Fatal(err, res.Stopped)
	}
	found := false
	for _, s := range res.Steps {
		if s.Name == "drop caches" {
			found = s.Skipped != "" && s.Err == nil
		}
	}
	if !found || !strings.Contains(log.String(), "warning: drop caches skipped: not permitted here") {
		t.Fatalf("steps %+v, log %q", res.Steps, log.String())
	}
}
