package iotdb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
)

// cpuAt is a process's CPU seconds (user + system) at a moment, read from
// /proc/PID/stat by hand: apart from the procfs library tsbench uses.
type cpuAt struct {
	at  time.Time
	cpu float64
}

func readCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v %v", pid, err1, err2)
	}
	return (u + s) / 100, nil
}

// interpolate is the polled CPU at t, linear between the two polls around it.
func interpolate(polls []cpuAt, t time.Time) float64 {
	for i := 1; i < len(polls); i++ {
		if a, b := polls[i-1], polls[i]; !t.After(b.at) {
			span := b.at.Sub(a.at).Seconds()
			if span <= 0 {
				return b.cpu
			}
			return a.cpu + (b.cpu-a.cpu)*t.Sub(a.at).Seconds()/span
		}
	}
	return polls[len(polls)-1].cpu
}

// TestServerTelemetryThroughTheBinary: an ingest against the real IoTDB,
// through the bench binary, samples the DataNode (found by the port it
// listens on) and the machine; the DataNode's CPU over the phase agrees
// within 10% with /proc/PID/stat polled by this test every 20 ms (the pid
// from scripts/iotdb's own file); its memory, threads and bytes written
// are a server's.
func TestServerTelemetryThroughTheBinary(t *testing.T) {
	host, port := server(t)
	// The state folder scripts/test started the server in, or scripts/iotdb's own.
	home := os.Getenv("TSBENCH_IOTDB_HOME")
	if home == "" {
		home = filepath.Join(provision.DefaultCache(), "iotdb-run")
	}
	pidFile := filepath.Join(home, "datanode.pid")
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		if os.Getenv("TSBENCH_IOTDB_MANAGED") != "" {
			t.Fatalf("scripts/iotdb started the server but %s cannot be read (TSBENCH_IOTDB_HOME names its state folder): %v", pidFile, err)
		}
		t.Skipf("the DataNode's pid is not in %s (a server scripts/iotdb did not start): nothing to check the samples against", pidFile)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("%s: %v", pidFile, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	polled := make(chan []cpuAt)
	go func() {
		var polls []cpuAt
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if c, err := readCPU(pid); err == nil {
				polls = append(polls, cpuAt{time.Now(), c})
			}
			select {
			case <-ctx.Done():
				polled <- polls
				return
			case <-tick.C:
			}
		}
	}()
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	results := filepath.Join(dir, "results")
	// Bounded: 6 s of ingest at most (TEST_MAX_TIME), 20 M points at most.
	out, code := adaptertest.RunBench(bin, ".", nil, "-c", "../../examples/iotdb.properties", "--set", "HOST="+host, "--set", "PORT="+port,
		"--set", "DB_NAME=tsbench_telemetry", "--set", "RESULTS_DIR="+results, "--set", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0",
		"--set", "DEVICE_NUMBER=20", "--set", "GROUP_NUMBER=2", "--set", "LOOP=1000", "--set", "TEST_MAX_TIME=6000", "--set", "INIT_WAIT_TIME=0",
		"--set", "VERIFY=false", "--set", "SERVER_METRICS_INTERVAL=0.5")
	cancel()
	polls := <-polled
	if code != 0 {
		t.Fatalf("bench exit %d:\n%s", code, out)
	}
	recs, damaged := record.Store{Dir: results}.List()
	if len(damaged) > 0 || len(recs) != 1 {
		t.Fatalf("%d records: %v", len(recs), damaged)
	}
	ph := recs[0].Phases[0]
	want := fmt.Sprintf("process %d (java, port %s)", pid, port)
	var names []string
	for _, src := range ph.Server {
		names = append(names, src.Name)
		if src.Name != want {
			continue
		}
		if len(src.At) < 5 {
			t.Fatalf("%d samples of the DataNode over a %.1f s phase at 0.5 s", len(src.At), ph.Seconds)
		}
		from, to := src.Started.Add(time.Duration(src.At[0])*time.Millisecond), src.Started.Add(time.Duration(src.At[len(src.At)-1])*time.Millisecond)
		if len(polls) < 10 || polls[0].at.After(from) || polls[len(polls)-1].at.Before(to) {
			t.Fatalf("%d polls do not span the sampling %v .. %v", len(polls), from, to)
		}
		independent := interpolate(polls, to) - interpolate(polls, from)
		sums := map[string]float64{}
		maxes := map[string]float64{}
		for _, su := range src.Summaries() {
			sums[su.Name], maxes[su.Name] = su.Total, su.Max
		}
		sampled := sums["CPU user"] + sums["CPU system"]
		t.Logf("DataNode over the %s phase (%.1f s): CPU sampled %.2f s, polled %.2f s; %.0f MiB resident, %.0f threads, %.1f MiB written",
			ph.Name, ph.Seconds, sampled, independent, maxes["resident memory"]/(1<<20), maxes["threads"], sums["disk written"]/(1<<20))
		if independent < 0.5 || sampled < independent*0.9-0.02 || sampled > independent*1.1+0.02 {
			t.Errorf("the DataNode's CPU: %.2f s sampled, %.2f s by /proc polled every 20 ms: not within 10%%", sampled, independent)
		}
		if maxes["resident memory"] < 100<<20 || maxes["threads"] < 20 || sums["disk written"] <= 0 {
			t.Errorf("not a server's figures: %v %v", sums, maxes)
		}
		if !strings.Contains(out, "Server ("+ph.Name+")") || !strings.Contains(out, "| "+want+" | CPU user ") {
			t.Errorf("the run's output has no Server table naming %s", want)
		}
		return
	}
	t.Fatalf("no source %q among %q", want, names)
}
