package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
)

type fixture struct {
	cfg    *config.Config
	schema *generator.Schema
	gen    *generator.Generator
	a      *Adapter
}

// load writes every device's rows into a fresh database file.
func load(t testing.TB, rows int64, sets ...string) *fixture {
	t.Helper()
	base := []string{"DEVICE_NUMBER=6", "GROUP_NUMBER=2", "SENSOR_NUMBER=8", "DATA_CLIENT_NUMBER=2", "BATCH_SIZE_PER_WRITE=40",
		"POINT_STEP=1000", "QUERY_INTERVAL=30000", "GROUP_BY_TIME_UNIT=7000", "QUERY_DEVICE_NUM=2", "STEP_SIZE=13",
		"QUERY_LOWER_VALUE=5", "QUERY_SENSOR_NUM=2", "OPERATION_PROPORTION=1:1:1:1:1:1:1:1:1:1:1:1:0", "SQLITE_PATH=" + filepath.Join(t.TempDir(), "t.db")}
	c := adaptertest.Load(t, Driver(), append(base, sets...)...)
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ad, err := Driver().Open(ctx, adapters.Params{Config: c, Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad.Close() })
	a := ad.(*Adapter)
	if err := a.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	g := generator.New(s, c, rows)
	b := g.NewBatch()
	for d := range s.Devices {
		st := g.NewStream(d)
		for st.Next(b) {
			if err := a.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &fixture{c, s, g, a}
}

func newGen(t testing.TB, f *fixture, rows int64) *generator.Generator {
	t.Helper()
	return generator.New(f.schema, f.cfg, rows)
}

// TestConformance runs the suite every adapter passes.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Target{Driver: Driver()})
}

// TestCheck: the driver's own limit comes from the loader, with the
// errors of the keys (the registry is the loader's config.Checker).
func TestCheck(t *testing.T) {
	_, err := adaptertest.Try(Driver(), "SENSOR_NUMBER=2500", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1")
	var errs config.Errors
	if !errors.As(err, &errs) || len(errs) != 1 || !strings.Contains(errs.Error(), "SENSOR_NUMBER=2500: is more than a SQLite table can hold as columns (valid: 1..1998 with DB_SWITCH=SQLite)") {
		t.Fatalf("errors = %v", err)
	}
}

// TestClaimIsExclusive: a second claim of one file is refused, naming the
// holder, until the first is released.
func TestClaimIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	release, err := claim(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := claim(path, false); err == nil && runtime.GOOS != "windows" || err != nil && !strings.Contains(err.Error(), "is in use by bench (pid ") {
		t.Fatalf("second claim: %v", err)
	}
	if _, err := claim(path, true); err == nil && runtime.GOOS != "windows" {
		t.Fatal("an instance of a distributed run took a file a run holds")
	}
	release()
	// The instances of a distributed run share it, and exclude a run.
	a, err := claim(path, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := claim(path, true)
	if err != nil {
		t.Fatalf("a second instance: %v", err)
	}
	if _, err := claim(path, false); err == nil && runtime.GOOS != "windows" || err != nil && !strings.Contains(err.Error(), "is in use by a distributed run's instance") {
		t.Fatalf("a run beside instances: %v", err)
	}
	a()
	b()
	again, err := claim(path, false)
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	again()
}

// TestOwnRequests: a suite's own SQL request that is Q4's statement answers
// Q4's points, through the binary (adaptertest.OwnRequests).
func TestOwnRequests(t *testing.T) {
	adaptertest.OwnRequests{Dir: filepath.Join("..", ".."), Config: "config.properties", Language: "sqlite",
		Sets:    []string{"LOOP=20", "QUERY_LOOP=6", "QUERY_SENSOR_NUM=1", "QUERY_DEVICE_NUM=2", "QUERY_AGGREGATE_FUN=max_value", "QUERY_ROUNDS=2"},
		Request: "SELECT device, {aggregate}({sensor}) FROM {table} WHERE device IN ({devices}) AND ts >= {start} AND ts <= {end} GROUP BY device"}.Run(t)
}

// TestReplay: bench generate's files replayed with FILE_PATH pass VERIFY
// and CHECK_ANSWERS as the generated run does (adaptertest.Replay).
func TestReplay(t *testing.T) {
	adaptertest.Replay{Dir: filepath.Join("..", ".."), Config: "config.properties",
		Sets: []string{"LOOP=20", "QUERY_ROUNDS=1", "QUERY_LOOP=4", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:1:1:1:1:0"}}.Run(t)
}
