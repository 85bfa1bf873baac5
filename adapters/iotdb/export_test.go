package iotdb

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/export"
	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
)

// TestExportToIoTDB: runs exported into the test suite's IoTDB through the
// binary (bench export, and RESULTS_STORE as a run is saved) are there,
// queried back by the IoTDB client: every value compare reads from a
// record on its device at the run's start, the run's id and label beside
// them; a second export of the same runs writes the same points again. It
// lives here, not in cmd/bench, because this package's restart tests stop
// the server (Go runs packages in parallel: in CI on 2026-12-03 the export
// beside them met a server that was starting).
func TestExportToIoTDB(t *testing.T) {
	host, port := server(t)
	dir := t.TempDir()
	bin := adaptertest.Binary(t, dir)
	bench := func(args ...string) (string, int) {
		return adaptertest.RunBench(bin, filepath.Join("..", ".."), nil, args...)
	}
	nullRun := func(label string) {
		t.Helper()
		args := []string{"run", "-c", "examples/weekly-iotdb.properties", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false",
			"--set", "LOOP=30", "--set", "NULL_DELAY_MS=1", "--set", "RESULTS_DIR=" + dir, "--label", label}
		if out, code := bench(args...); code != 0 {
			t.Fatalf("bench %v: exit %d\n%s", args, code, out)
		}
	}
	byLabel := func() map[string]*record.Record {
		t.Helper()
		recs, damaged := record.Store{Dir: dir}.List()
		if len(damaged) > 0 {
			t.Fatal(damaged)
		}
		m := map[string]*record.Record{}
		for _, r := range recs {
			m[r.Label] = r
		}
		return m
	}
	path := fmt.Sprintf("root.tsbench_export_%d", time.Now().UnixNano()%1e9)
	// want holds a record's values by the device and field export writes them to.
	want := func(rec *record.Record) map[string]map[string]float64 {
		vals, _ := compare.RunValues(rec)
		out := map[string]map[string]float64{}
		for k, v := range vals {
			dev := export.IoTDBDevice(path, rec.Target.DB, k.Phase, k.Op)
			if out[dev] == nil {
				out[dev] = map[string]float64{}
			}
			out[dev][export.Field(k.Metric)] = v
		}
		return out
	}

	nullRun("export-a")
	nullRun("export-b")
	s := client.NewSession(&client.Config{Host: host, Port: port, UserName: "root", Password: "root"})
	if err := s.Open(false, 10000); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer s.ExecuteNonQueryStatement("DROP DATABASE " + path)
	to := fmt.Sprintf("iotdb://root:root@%s:%s/%s", host, port, path)
	for range 2 {
		out, code := bench("export", "export-*", "--results", dir, "--to", to)
		if code != 0 || !strings.Contains(out, "exported 2 runs to iotdb://root:xxxxx@") || strings.Contains(out, "root:root@") {
			t.Fatalf("export: exit %d\n%s", code, out)
		}
	}
	timeout := int64(30000)
	checked, total := 0, 0
	runs := byLabel()
	for _, label := range []string{"export-a", "export-b"} {
		rec := runs[label]
		for dev, fields := range want(rec) {
			total += len(fields)
			ds, err := s.ExecuteQueryStatement(fmt.Sprintf("SELECT * FROM %s WHERE time = %d", dev, rec.StartedAt.UnixMilli()), &timeout)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := ds.Next(); !ok || err != nil {
				t.Fatalf("%s holds no point at %d (%v)", dev, rec.StartedAt.UnixMilli(), err)
			}
			for _, col := range ds.GetColumnNames() {
				field := strings.TrimPrefix(col, dev+".")
				switch field {
				case "Time", "version", "fingerprint", "status":
				case "run_id", "label":
					got, _ := ds.GetString(col)
					if field == "run_id" && got != rec.ID || field == "label" && got != rec.Label {
						t.Errorf("%s %s = %q", dev, field, got)
					}
				default:
					if null, _ := ds.IsNull(col); null {
						continue
					}
					got, err := ds.GetDouble(col)
					w, ok := fields[field]
					if err != nil || !ok || got != w {
						t.Errorf("%s.%s = %v (%v), the record says %v (%v)", dev, field, got, err, w, ok)
					}
					checked++
				}
			}
			if more, _ := ds.Next(); more {
				t.Errorf("%s has two points at one time", dev)
			}
			ds.Close()
		}
	}
	if checked != total || total == 0 {
		t.Errorf("%d values read back, the records have %d", checked, total)
	}
	ds, err := s.ExecuteQueryStatement("SELECT count(run_id) FROM "+path+".** ALIGN BY DEVICE", &timeout)
	if err != nil {
		t.Fatal(err)
	}
	devs := 0
	for ok, _ := ds.Next(); ok; ok, _ = ds.Next() {
		if n, _ := ds.GetLong("count(run_id)"); n != 2 {
			dev, _ := ds.GetString("Device")
			t.Errorf("%s has %d points after two exports of two runs, want 2", dev, n)
		}
		devs++
	}
	ds.Close()
	if devs != 23 {
		t.Errorf("%d devices, want 23 (the ingest and eleven families in two rounds)", devs)
	}

	// RESULTS_STORE exports a run as it is saved.
	out, code := bench("run", "-c", "examples/weekly-iotdb.properties", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "LOOP=30",
		"--set", "RESULTS_DIR="+dir, "--set", "RESULTS_STORE="+to, "--label", "export-c")
	if code != 0 || !strings.Contains(out, "Exported to iotdb://root:xxxxx@") || strings.Contains(out, "root:root@") {
		t.Fatalf("RESULTS_STORE: exit %d\n%s", code, out)
	}
	rec := byLabel()["export-c"]
	dev := export.IoTDBDevice(path, "Null", "ingest", "INGESTION")
	ds, err = s.ExecuteQueryStatement(fmt.Sprintf("SELECT throughput, label FROM %s WHERE time = %d", dev, rec.StartedAt.UnixMilli()), &timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	ok, _ := ds.Next()
	got, _ := ds.GetDouble(dev + ".throughput")
	label, _ := ds.GetString(dev + ".label")
	if w := want(rec)[dev]["throughput"]; !ok || got != w || label != "export-c" {
		t.Errorf("RESULTS_STORE's point: %v %v %q, want %v of export-c", ok, got, label, w)
	}
	// A store that cannot be reached is a warning: the run stands.
	out, code = bench("run", "-c", "examples/weekly-iotdb.properties", "--set", "DB_SWITCH=Null", "--set", "VERIFY=false", "--set", "LOOP=30",
		"--set", "RESULTS_DIR="+dir, "--set", "RESULTS_STORE=iotdb://root:hunter2@127.0.0.1:1", "--label", "export-d")
	if code != 0 || !strings.Contains(out, "warning: RESULTS_STORE: the run was not exported to iotdb://root:xxxxx@127.0.0.1:1") || strings.Contains(out, "hunter2") {
		t.Errorf("an unreachable RESULTS_STORE: exit %d\n%s", code, out)
	}
}
