package elasticsearch

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/runner"
)

// esPlan is the plan of a whole run against the test Elasticsearch.
func esPlan(t *testing.T, sets ...string) *runner.Plan {
	t.Helper()
	host, port := server(t, "TSBENCH_ES", "scripts/elasticsearch start")
	base := []string{"HOST=" + host, "PORT=" + port, "INIT_WAIT_TIME=0", "RESULTS_DIR=" + t.TempDir()}
	p, err := runner.NewPlan(adaptertest.Load(t, Driver(), append(base, sets...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBulkItemErrorsAreFailedPoints provokes a mapping conflict: the index
// exists with s_1 mapped as a date, so every document whose s_1 is a number
// the date parser refuses fails on its own inside an HTTP 200 bulk. Those
// documents must count as failed points with the server's reason, the
// others as written.
func TestBulkItemErrorsAreFailedPoints(t *testing.T) {
	p := esPlan(t, "DB_NAME=tsbench_conflict", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1", "SENSOR_NUMBER=4", "LOOP=5", "BATCH_SIZE_PER_WRITE=20",
		"INSERT_DATATYPE_PROPORTION=0:0:0:0:1:0:0:0:0:0:0", "IS_DELETE_DATA=false", "CREATE_SCHEMA=false", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0")
	ctx := context.Background()
	a := openClean(t, p, false)
	body := `{"mappings":{"properties":{"device":{"type":"keyword"},"ts":{"type":"long"},"s_0":{"type":"double"},"s_1":{"type":"boolean"},"s_2":{"type":"double"},"s_3":{"type":"double"}}}}`
	if err := a.do(ctx, http.MethodPut, "/"+a.indices[0], []byte(body), nil); err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(ctx, p, ptr(Driver()), runner.Options{})
	if err != nil || res.Stopped != nil {
		t.Fatalf("run: %v %v", err, res.Stopped)
	}
	ing := res.Phases[0].Operations[0]
	total := int64(2 * 5 * 20 * 4)
	if ing.FailPoints == 0 || ing.FailPoints%4 != 0 || ing.OKPoints+ing.FailPoints != total || ing.FailOps == 0 {
		t.Fatalf("INGESTION ok %d failed %d points (%d failed operations), want failed points in whole documents adding up to %d", ing.OKPoints, ing.FailPoints, ing.FailOps, total)
	}
	var reasons []string
	for msg := range ing.Errors {
		reasons = append(reasons, msg)
	}
	if !strings.Contains(strings.Join(reasons, "|"), "parsing_exception") {
		t.Fatalf("the failures do not carry the server's reason: %v", reasons)
	}
	// What was counted as written is what the index holds.
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	held := int64(0)
	for i := range p.Schema.Devices {
		n, err := a.CountPoints(ctx, &p.Schema.Devices[i])
		if err != nil {
			t.Fatal(err)
		}
		held += n
	}
	if held != ing.OKPoints {
		t.Fatalf("the index holds %d points, the run counted %d as written", held, ing.OKPoints)
	}
}

func ptr[T any](v T) *T { return &v }

// TestServerStoppedMidIngest stops the node while ten clients write: the
// run must end within its timeouts with the failed writes counted, not hang.
func TestServerStoppedMidIngest(t *testing.T) {
	if os.Getenv("TSBENCH_ES_MANAGED") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TSBENCH_ES_MANAGED is not set: CI must let the fault test stop and start the server")
		}
		t.Skip("this test stops the server: set TSBENCH_ES_MANAGED=1 for one started with scripts/elasticsearch")
	}
	p := esPlan(t, "DB_NAME=tsbench_fault", "DEVICE_NUMBER=10", "DATA_CLIENT_NUMBER=10", "SENSOR_NUMBER=10", "LOOP=3000", "BATCH_SIZE_PER_WRITE=50",
		"OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "WRITE_OPERATION_TIMEOUT_MS=5000", "TEST_MAX_TIME=60000")
	script := func(args ...string) {
		cmd := exec.Command("bash", append([]string{filepath.Join("..", "..", "scripts", "elasticsearch")}, args...)...)
		cmd.Env = append(os.Environ(), "ES_PORT="+fmt.Sprint(p.Config.Ports[0]))
		if home := os.Getenv("TSBENCH_ES_HOME"); home != "" {
			cmd.Env = append(cmd.Env, "ES_HOME_DIR="+home) // the state folder scripts/test started it in
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("scripts/elasticsearch %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() { script("start") })
	go func() {
		time.Sleep(3 * time.Second)
		script("stop")
	}()
	t0 := time.Now()
	res, err := runner.Run(context.Background(), p, ptr(Driver()), runner.Options{})
	el := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	ing := res.Phases[0].Operations[0]
	t.Logf("run ended after %v: %d ok, %d failed writes; errors %v", el, ing.OKOps, ing.FailOps, ing.Errors)
	if ing.OKOps == 0 || ing.FailOps == 0 || el > 50*time.Second {
		t.Fatalf("want writes that succeeded, then failures counted, and an end well within TEST_MAX_TIME; got %d ok, %d failed in %v", ing.OKOps, ing.FailOps, el)
	}
}
