package iotdb

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbench/tsbench/queries"
	"github.com/tsbench/tsbench/runner"
)

// cluster returns the HOST and PORT lists of the local cluster that
// scripts/iotdb-cluster starts (TSBENCH_IOTDB_CLUSTER, set by scripts/test:
// its DataNodes' addresses, comma-separated). In CI a missing cluster
// fails the tests; elsewhere they skip and say how to start one.
func cluster(t *testing.T) (hosts, ports string) {
	t.Helper()
	list := os.Getenv("TSBENCH_IOTDB_CLUSTER")
	if list == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TSBENCH_IOTDB_CLUSTER is not set: CI must start the cluster with scripts/iotdb-cluster start (scripts/test does)")
		}
		t.Skip("no IoTDB cluster: run scripts/iotdb-cluster start, then TSBENCH_IOTDB_CLUSTER=127.0.0.1:6671,127.0.0.1:6672,127.0.0.1:6673 go test ./adapters/iotdb -run Cluster")
	}
	var hs, ps []string
	for _, addr := range strings.Split(list, ",") {
		h, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("TSBENCH_IOTDB_CLUSTER=%s: %v", list, err)
		}
		hs, ps = append(hs, h), append(ps, p)
	}
	return strings.Join(hs, ","), strings.Join(ps, ",")
}

// clusterScript runs scripts/iotdb-cluster on the cluster scripts/test
// started (its state folder is TSBENCH_IOTDB_CLUSTER_HOME).
func clusterScript(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join("..", "..", "scripts", "iotdb-cluster")}, args...)...)
	cmd.Env = append(os.Environ(), "IOTDB_HOME_DIR="+os.Getenv("TSBENCH_IOTDB_CLUSTER_HOME"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/iotdb-cluster %v: %v\n%s", args, err, out)
	}
}

func clusterPlan(t *testing.T, sets ...string) *runner.Plan {
	t.Helper()
	hosts, ports := cluster(t)
	base := []string{"HOST=" + hosts, "PORT=" + ports, "DB_NAME=tsbench_cluster",
		"DEVICE_NUMBER=12", "GROUP_NUMBER=3", "SENSOR_NUMBER=8", "DATA_CLIENT_NUMBER=3", "BATCH_SIZE_PER_WRITE=50", "POINT_STEP=1000",
		"QUERY_INTERVAL=60000", "GROUP_BY_TIME_UNIT=7000", "QUERY_DEVICE_NUM=2", "QUERY_SENSOR_NUM=3",
		"WRITE_OPERATION_TIMEOUT_MS=10000", "READ_OPERATION_TIMEOUT_MS=10000"}
	return planOf(t, append(base, sets...)...)
}

func TestCluster(t *testing.T) {
	t.Run("IngestAndQueries", func(t *testing.T) {
		p := clusterPlan(t, "LOOP=60", "OPERATION_PROPORTION=4:1:1:1:1:1:1:1:1:1:1:1:0", "VERIFY=true")
		drv := Driver()
		res, err := runner.Run(context.Background(), p, &drv, runner.Options{})
		if err != nil || res.Stopped != nil {
			t.Fatal(err, res.Stopped)
		}
		for _, op := range res.Phases[len(res.Phases)-1].Operations {
			if op.OKOps == 0 || op.FailOps > 0 {
				t.Errorf("%s: %d ok, %d failed %v", op.Operation, op.OKOps, op.FailOps, op.Errors)
			}
		}
		if res.VerifyFailed() {
			t.Fatal("VERIFY found points missing on the cluster")
		}
		// The answers are the model's, read through every DataNode.
		ad := openAfter(t, p)
		answersAreTheModels(t, ad, p, queries.Families...)
		// Writes follow IoTDB's redirections to the leaders of the devices'
		// regions, which the three DataNodes share.
		b := p.Generator.NewBatch()
		for d := range p.Schema.Devices {
			st := p.Generator.NewStream(d)
			st.Next(b)
			for range 2 {
				if err := ad.Write(context.Background(), b); err != nil {
					t.Fatal(err)
				}
			}
		}
		leaders := map[string]int{}
		ad.route.to.Range(func(_, addr any) bool {
			leaders[addr.(string)]++
			return true
		})
		t.Logf("leaders learned from redirections: %v", leaders)
		if len(leaders) < 2 {
			t.Fatalf("redirections named %v: the regions' leaders should spread over the DataNodes", leaders)
		}
	})
	t.Run("Telemetry", func(t *testing.T) {
		// Each DataNode's Prometheus reporter and the ConfigNode's, where
		// scripts/iotdb-cluster puts them.
		p := clusterPlan(t, "LOOP=200", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "VERIFY=false", "SERVER_METRICS_INTERVAL=0.5",
			"IOTDB_METRICS_PORT=9191,9192,9193", "IOTDB_CONFIGNODE_METRICS_PORT=9190")
		drv := Driver()
		res, err := runner.Run(context.Background(), p, &drv, runner.Options{})
		if err != nil || res.Stopped != nil {
			t.Fatal(err, res.Stopped)
		}
		ph := res.Phases[0]
		var written int64
		for _, op := range ph.Operations {
			written += op.OKPoints
		}
		var nodes []string
		var points float64
		for _, src := range ph.Server {
			if !strings.HasPrefix(src.Name, "IoTDB ") {
				continue
			}
			nodes = append(nodes, src.Name)
			if len(src.At) < 2 || src.Missed > 0 {
				t.Errorf("%s: %d samples, %d missed (%s)", src.Name, len(src.At), src.Missed, src.Error)
			}
			for _, su := range src.Summaries() {
				if su.Name == "points written" {
					t.Logf("%s: %.0f points written", src.Name, su.Total)
					if su.Total <= 0 {
						t.Errorf("%s wrote no points: every DataNode holds replicas", src.Name)
					}
					points += su.Total
				}
			}
		}
		want := []string{"IoTDB DataNode 127.0.0.1:9191", "IoTDB DataNode 127.0.0.1:9192", "IoTDB DataNode 127.0.0.1:9193", "IoTDB ConfigNode 127.0.0.1:9190"}
		if strings.Join(nodes, "|") != strings.Join(want, "|") {
			t.Errorf("sources %q, want %q (notes %q)", nodes, want, res.Notes)
		}
		// Replicated twice: every point is written on two DataNodes; a
		// follower applies its leader's writes a moment later, so the last
		// sample may miss a few.
		t.Logf("the run wrote %d points; the DataNodes counted %.0f", written, points)
		if points < 0.99*2*float64(written) || points > 2*float64(written)+300 {
			t.Errorf("the DataNodes counted %.0f points, want twice the %d written (data replication 2)", points, written)
		}
		if fp := res.Footprint; fp == nil || fp.Bytes <= 0 || !strings.Contains(fp.Where, "127.0.0.1:9193") {
			t.Errorf("footprint %+v: want the TsFiles on every DataNode (notes %q)", fp, res.Notes)
		}
	})
	t.Run("DataNodeStopsMidIngest", func(t *testing.T) {
		if os.Getenv("TSBENCH_IOTDB_CLUSTER_HOME") == "" {
			if os.Getenv("CI") != "" {
				t.Fatal("TSBENCH_IOTDB_CLUSTER_HOME is not set: CI must let the failure test stop a DataNode")
			}
			t.Skip("the failure test stops a DataNode: set TSBENCH_IOTDB_CLUSTER_HOME to the state folder of scripts/iotdb-cluster")
		}
		// Bounded: 20 s of writes at most, whatever the cluster does.
		p := clusterPlan(t, "DB_NAME=tsbench_failover", "LOOP=1000000", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "TEST_MAX_TIME=20000", "VERIFY=false")
		t.Cleanup(func() { clusterScript(t, "start-node", "2") })
		// The node stops 4 s into the ingest, however long the steps
		// before it took (create schema waits until the databases take
		// writes).
		stopped := make(chan struct{})
		var once sync.Once
		ingest := func(ctx context.Context, step string) error {
			once.Do(func() {
				go func() {
					defer close(stopped)
					time.Sleep(4 * time.Second)
					clusterScript(t, "stop-node", "2")
				}()
			})
			return nil
		}
		drv := Driver()
		start := time.Now()
		res, err := runner.Run(context.Background(), p, &drv, runner.Options{Together: ingest})
		took := time.Since(start)
		once.Do(func() { close(stopped) })
		<-stopped
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Phases) == 0 {
			t.Fatalf("the run measured no phase (notes %q)", res.Notes)
		}
		if took > 45*time.Second {
			t.Fatalf("the run took %v: TEST_MAX_TIME=20 s and 10 s timeouts should end it sooner", took)
		}
		s := res.Phases[0].Operations[0]
		t.Logf("with DataNode 2 stopped after 4 s: %d writes ok (%d points), %d failed (%d points) in %v; errors %v", s.OKOps, s.OKPoints, s.FailOps, s.FailPoints, took.Round(time.Millisecond), s.Errors)
		if s.OKOps == 0 {
			t.Fatal("no write succeeded")
		}
		// Every acknowledged point is on the surviving replicas; a failed
		// write may or may not have been stored.
		a := openAfter(t, p)
		var found int64
		for i := range p.Schema.Devices {
			n, err := a.CountPoints(context.Background(), &p.Schema.Devices[i])
			if err != nil {
				t.Fatalf("count %s with a DataNode down: %v", p.Schema.Devices[i].Name, err)
			}
			found += n
		}
		t.Logf("points found with DataNode 2 down: %d", found)
		if found < s.OKPoints || found > s.OKPoints+s.FailPoints {
			t.Fatalf("found %d points; the acknowledged writes hold %d, the failed ones %d more", found, s.OKPoints, s.FailPoints)
		}
	})
}
