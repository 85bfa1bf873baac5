package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it):\n%s", name, got)
	}
}

// sampleRecord is a small run with known numbers: 4 INGESTION operations of
// 1..4 ms and one failed PRECISE_POINT.
func sampleRecord() *Record {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rec := metrics.NewRecorder(t0)
	ing := rec.Op("INGESTION")
	for i := 1; i <= 4; i++ {
		ing.Record(t0.Add(time.Duration(i)*300*time.Millisecond), time.Duration(i)*time.Millisecond, 500, nil)
	}
	q := rec.Op("PRECISE_POINT")
	q.Record(t0, time.Millisecond, 0, os.ErrDeadlineExceeded)
	q.Record(t0, 2*time.Millisecond, 6, nil)
	return &Record{
		SchemaVersion: SchemaVersion, ID: "20261130T090000Z-abc123", Label: "master-a2b704d", Status: StatusComplete,
		Target: Target{DB: "SQLite", Version: "SQLite 3.54.1"}, StartedAt: t0, FinishedAt: t0.Add(2 * time.Second),
		Config: map[string]string{"LOOP": "4", "PASSWORD": config.Mask, "HOST": "127.0.0.1"},
		Steps:  []Step{{Name: "cleanup", Seconds: 0.5}, {Name: "create schema", Skipped: true, Detail: "CREATE_SCHEMA=false"}},
		Phases: []Phase{{Name: "main", Clients: 2, StartedAt: t0, Seconds: 1.5, Operations: rec.Snapshots()}},
		Verify: &Verify{Devices: 2, Expected: 2000, Found: 1990, Mismatches: []Mismatch{{Device: "d_1", Expected: 1000, Found: 990}}},
	}
}

func TestRunGolden(t *testing.T) {
	for _, f := range []string{"text", "markdown", "csv"} {
		var buf bytes.Buffer
		if err := WriteRun(&buf, f, sampleRecord()); err != nil {
			t.Fatal(err)
		}
		golden(t, "run."+f+".golden", buf.Bytes())
	}
}

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := Store{Dir: dir}
	rec := sampleRecord()
	path, err := s.Save(rec)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files after one save: temporary files left behind?", len(entries))
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	WriteRun(&a, "text", rec)
	WriteRun(&b, "text", back)
	if a.String() != b.String() {
		t.Fatalf("a saved and loaded record renders differently:\n%s\nvs\n%s", a.String(), b.String())
	}
	second := sampleRecord()
	second.ID = "20261130T100000Z-def456"
	s.Save(second)
	if got, _, err := s.Find("master-a2b704d"); err != nil || len(got) != 2 {
		t.Fatalf("find by label: %d runs, %v", len(got), err)
	}
	if got, _, err := s.Find("20261130T10"); err != nil || len(got) != 1 || got[0].ID != second.ID {
		t.Fatalf("find by id prefix: %v", err)
	}
	if _, _, err := s.Find("20261130"); err == nil || !strings.Contains(err.Error(), "matches 2 run ids") {
		t.Fatalf("ambiguous prefix: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "junk.json"), []byte("{"), 0o644)
	if recs, errs := s.List(); len(recs) != 2 || len(errs) != 1 {
		t.Fatalf("list with one bad file: %d records, %d errors", len(recs), len(errs))
	}
	newer := sampleRecord()
	newer.SchemaVersion = SchemaVersion + 1
	p, _ := s.Save(newer)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "update tsbench") {
		t.Fatalf("a newer record format must be refused: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	work := []string{"LOOP", "DEVICE_NUMBER"}
	a := &Record{WorkloadKeys: work, Config: map[string]string{"LOOP": "10", "HOST": "a", "PASSWORD": "x", "DEVICE_NUMBER": "5", "COMPRESSOR": "LZ4"}}
	b := &Record{WorkloadKeys: work, Config: map[string]string{"LOOP": "10", "HOST": "b", "PASSWORD": "y", "DEVICE_NUMBER": "5", "COMPRESSOR": "SNAPPY"}}
	if Fingerprint(a.Config, work) != Fingerprint(b.Config, work) {
		t.Fatal("keys outside the workload (hosts, passwords, storage options) must not change the fingerprint")
	}
	if Fingerprint(a.Config, work) != Fingerprint(a.Config, []string{"DEVICE_NUMBER", "LOOP"}) {
		t.Fatal("the order of the workload keys must not matter")
	}
	b.Config["DEVICE_NUMBER"] = "6"
	if Fingerprint(a.Config, work) == Fingerprint(b.Config, work) {
		t.Fatal("DEVICE_NUMBER must change the fingerprint")
	}
	if d := FingerprintDiff(a, b); len(d) != 1 || d[0] != `DEVICE_NUMBER: "5" vs "6"` {
		t.Fatalf("diff %q", d)
	}
	// Records that do not list their workload keys compare every key but secrets.
	a.WorkloadKeys, b.WorkloadKeys = nil, nil
	if d := FingerprintDiff(a, b); len(d) != 3 || strings.Contains(strings.Join(d, " "), "PASSWORD") {
		t.Fatalf("diff of unlisted records %q", d)
	}
}
