package record_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
)

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := record.Store{Dir: dir}
	rec := recordtest.Sample()
	path, err := s.Save(rec)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files after one save: temporary files left behind?", len(entries))
	}
	back, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(rec)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Fatalf("a saved and loaded record differs:\n%s\nvs\n%s", a, b)
	}
	second := recordtest.Sample()
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
	newer := recordtest.Sample()
	newer.SchemaVersion = record.SchemaVersion + 1
	p, _ := s.Save(newer)
	if _, err := record.Load(p); err == nil || !strings.Contains(err.Error(), "update tsbench") {
		t.Fatalf("a newer record format must be refused: %v", err)
	}
}

func TestFingerprint(t *testing.T) {
	work := []string{"LOOP", "DEVICE_NUMBER"}
	a := &record.Record{WorkloadKeys: work, Config: map[string]string{"LOOP": "10", "HOST": "a", "PASSWORD": "x", "DEVICE_NUMBER": "5", "COMPRESSOR": "LZ4"}}
	b := &record.Record{WorkloadKeys: work, Config: map[string]string{"LOOP": "10", "HOST": "b", "PASSWORD": "y", "DEVICE_NUMBER": "5", "COMPRESSOR": "SNAPPY"}}
	if config.Fingerprint(a.Config, work) != config.Fingerprint(b.Config, work) {
		t.Fatal("keys outside the workload (hosts, passwords, storage options) must not change the fingerprint")
	}
	if config.Fingerprint(a.Config, work) != config.Fingerprint(a.Config, []string{"DEVICE_NUMBER", "LOOP"}) {
		t.Fatal("the order of the workload keys must not matter")
	}
	b.Config["DEVICE_NUMBER"] = "6"
	if config.Fingerprint(a.Config, work) == config.Fingerprint(b.Config, work) {
		t.Fatal("DEVICE_NUMBER must change the fingerprint")
	}
	if d := record.FingerprintDiff(a, b); len(d) != 1 || d[0] != `DEVICE_NUMBER: "5" vs "6"` {
		t.Fatalf("diff %q", d)
	}
	// Records that do not list their workload keys compare every key but secrets.
	a.WorkloadKeys, b.WorkloadKeys = nil, nil
	if d := record.FingerprintDiff(a, b); len(d) != 3 || strings.Contains(strings.Join(d, " "), "PASSWORD") {
		t.Fatalf("diff of unlisted records %q", d)
	}
}

// TestIDsBeforeLabels: a run labelled with another run's id does not
// shadow it; the note says which was meant.
func TestIDsBeforeLabels(t *testing.T) {
	s := record.Store{Dir: t.TempDir()}
	a := recordtest.Sample()
	a.ID, a.Label = "20261130T090000Z-aaaaaa", "first"
	b := recordtest.Sample()
	b.ID, b.Label = "20261130T100000Z-bbbbbb", a.ID // made before labels were checked
	c := recordtest.Sample()
	c.ID, c.Label = "20261130T110000Z-cccccc", "20261130T1"
	for _, r := range []*record.Record{a, b, c} {
		if _, err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := s.Resolve(a.ID)
	if err != nil || len(f.Runs) != 1 || f.Runs[0].ID != a.ID || !strings.Contains(f.Note, "it names the run with that id") {
		t.Fatalf("%s: %+v, %v", a.ID, f, err)
	}
	f, err = s.Resolve("20261130T1")
	if err != nil || len(f.Runs) != 1 || f.Runs[0].ID != c.ID || !strings.Contains(f.Note, "is a label and the start of 2 run ids") {
		t.Fatalf("a label that starts ids: %+v, %v", f, err)
	}
	if f, err := s.Resolve("first"); err != nil || f.Note != "" || f.Runs[0].ID != a.ID {
		t.Fatalf("a plain label: %+v, %v", f, err)
	}
}

func TestCheckLabel(t *testing.T) {
	saved := []record.Ref{{ID: "20261130T090000Z-aaaaaa"}}
	for label, want := range map[string]string{
		"master-a2b704d":          "",
		"":                        "",
		"20261130T090000Z-aaaaaa": "is the start of the id of run 20261130T090000Z-aaaaaa",
		"20261130":                "is the start of the id of run",
		"../../evil":              "holds a path separator",
		"a/b":                     "holds a path separator",
		`a\b`:                     "holds a path separator",
		"two\nlines":              "holds a control character",
		strings.Repeat("x", 600):  "is 600 characters long",
	} {
		err := record.CheckLabel(label, saved)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q refused: %v", label, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", label, err, want)
		}
	}
}
