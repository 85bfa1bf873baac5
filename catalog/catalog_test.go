package catalog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
)

func save(t *testing.T, dir string, recs ...*record.Record) {
	t.Helper()
	for _, r := range recs {
		if _, ierr, err := Save(record.Store{Dir: dir}, r); err != nil || ierr != nil {
			t.Fatal(err, ierr)
		}
	}
}

func run(label string, seed uint64) *record.Record {
	r := recordtest.Synthetic(label, seed, map[string]float64{"Q1": 5, "Q2": 0, "INGESTION": 2}, []string{"INGESTION", "Q1", "Q2"})
	r.StartedAt = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC).Add(time.Duration(seed) * time.Hour)
	return r
}

func open(t *testing.T, dir string) *Catalog {
	t.Helper()
	c, err := Open(dir)
	if err != nil || c.Warning != nil {
		t.Fatal(err, c.Warning)
	}
	return c
}

// The index holds what the records say: their fields and the values
// compare reads, the same as from the records themselves.
func TestEntriesAreTheRecords(t *testing.T) {
	dir := t.TempDir()
	recs := []*record.Record{run("master-w01", 1), run("master-w02", 2), run("pr-7", 3)}
	recs[2].Target.Build = "abc123"
	recs[2].Routine = &record.Routine{Side: "pr"}
	save(t, dir, recs...)
	c := open(t, dir)
	if c.Read != 0 || len(c.Entries) != 3 {
		t.Fatalf("read %d records whole, %d entries; want 0 and 3", c.Read, len(c.Entries))
	}
	for i, e := range c.Entries {
		r := recs[i]
		if e.ID != r.ID || e.Label != r.Label || !e.StartedAt.Equal(r.StartedAt) || e.Status != r.Status || e.DB != r.Target.DB || e.Fingerprint != r.Fingerprint || e.Server != r.Target.Identity() || e.BuildKey != r.Target.BuildKey() {
			t.Errorf("entry %+v of record %s", e, r.ID)
		}
		vals, order, err := e.Values()
		if err != nil {
			t.Fatal(err)
		}
		want, wantOrder := compare.RunValues(r)
		if !reflect.DeepEqual(vals, want) || !reflect.DeepEqual(order, wantOrder) {
			t.Errorf("run %s: index values %v in order %v, record %v in order %v", r.ID, vals, order, want, wantOrder)
		}
	}
	if c.Entries[2].Side != "pr" {
		t.Errorf("side %q, want pr", c.Entries[2].Side)
	}
	founds, err := c.Resolve([]string{"master-w02", recs[0].ID[:17]})
	if err != nil {
		t.Fatal(err)
	}
	if len(founds[0].Runs) != 1 || founds[0].Runs[0].ID != recs[1].ID || founds[1].Runs[0].ID != recs[0].ID {
		t.Errorf("resolved %+v", founds)
	}
	if _, err := c.Resolve([]string{"nothing"}); err == nil || !strings.Contains(err.Error(), `no run with id or label "nothing"`) {
		t.Errorf("unknown label: %v", err)
	}
}

// A missing, damaged or stale index is brought back to the records, and
// then read alone.
func TestIndexFollowsTheFolder(t *testing.T) {
	dir := t.TempDir()
	var recs []*record.Record
	for i := range 5 {
		recs = append(recs, run(fmt.Sprintf("w%d", i), uint64(i+1)))
	}
	if _, err := (record.Store{Dir: dir}).Save(recs[0]); err != nil { // saved without the index
		t.Fatal(err)
	}
	save(t, dir, recs[1:]...)
	index := filepath.Join(dir, File)
	steps := []struct {
		name        string
		change      func()
		read, count int
		damaged     int
	}{
		{"a record the index lacks", func() {}, 1, 5, 0},
		{"up to date", func() {}, 0, 5, 0},
		{"index removed", func() { os.Remove(index) }, 5, 5, 0},
		{"a record removed", func() { os.Remove(filepath.Join(dir, recs[4].ID+".json")) }, 0, 4, 0},
		{"a record saved again with another label", func() {
			recs[3].Label = "relabelled"
			if _, err := (record.Store{Dir: dir}).Save(recs[3]); err != nil {
				t.Fatal(err)
			}
		}, 1, 4, 0},
		{"a damaged record", func() { os.WriteFile(filepath.Join(dir, "20261101T000000Z-bad.json"), []byte(`{"id":`), 0o644) }, 0, 4, 1},
		{"the damaged record again", func() {}, 0, 4, 1},
		{"a line cut short by a crash", func() {
			data, _ := os.ReadFile(index)
			os.WriteFile(index, data[:len(data)-40], 0o644)
		}, 1, 4, 1},
		{"a line cut short, then a run saved", func() {
			data, _ := os.ReadFile(index)
			os.WriteFile(index, data[:len(data)-40], 0o644)
			save(t, dir, run("after", 9))
		}, 1, 5, 1},
		{"an index of another version", func() {
			data, _ := os.ReadFile(index)
			os.WriteFile(index, []byte(strings.Replace(string(data), `"tsbench_index":2`, `"tsbench_index":1`, 1)), 0o644)
		}, 5, 5, 1},
	}
	for _, s := range steps {
		s.change()
		c := open(t, dir)
		if c.Read != s.read || len(c.Entries) != s.count || len(c.Damaged) != s.damaged {
			t.Errorf("%s: %d records read whole, %d entries, %d damaged; want %d, %d, %d", s.name, c.Read, len(c.Entries), len(c.Damaged), s.read, s.count, s.damaged)
		}
		recs, damaged := record.Store{Dir: dir}.List()
		if got, want := c.Refs(), record.Refs(recs); !reflect.DeepEqual(got, want) || len(damaged) != len(c.Damaged) {
			t.Errorf("%s: index lists %v, the folder %v", s.name, got, want)
		}
	}
	before, _ := os.Stat(index)
	time.Sleep(10 * time.Millisecond)
	open(t, dir)
	if after, _ := os.Stat(index); !after.ModTime().Equal(before.ModTime()) {
		t.Error("an up-to-date index (but for a damaged record) was written again")
	}
}

// Processes saving into one folder at once lose no entry: the index alone,
// not repaired by a reader, holds every run.
func TestConcurrentSaves(t *testing.T) {
	if dir := os.Getenv("TSBENCH_CATALOG_SAVER"); dir != "" {
		base, _ := strconv.Atoi(os.Getenv("TSBENCH_CATALOG_BASE"))
		for i := range 25 {
			r := run("concurrent", uint64(base+i))
			if _, ierr, err := Save(record.Store{Dir: dir}, r); err != nil || ierr != nil {
				t.Fatal(err, ierr)
			}
		}
		return
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for p := range 4 {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentSaves$")
			cmd.Env = append(os.Environ(), "TSBENCH_CATALOG_SAVER="+dir, fmt.Sprintf("TSBENCH_CATALOG_BASE=%d", 1000*(p+1)))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[p] = fmt.Errorf("saver %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	indexed, clean := readIndex(dir)
	if !clean || len(indexed) != 100 {
		t.Fatalf("the index holds %d entries (whole: %v), want the 100 runs saved", len(indexed), clean)
	}
	if c := open(t, dir); c.Read != 0 || len(c.Entries) != 100 {
		t.Errorf("open read %d records whole and lists %d", c.Read, len(c.Entries))
	}
}

// The server's figures (its metrics and the telemetry) are in the index as
// compare reads them from the record.
func TestServerValues(t *testing.T) {
	dir := t.TempDir()
	base, _ := recordtest.TelemetryRuns()
	metricRuns, _ := recordtest.ServerMetricRuns()
	recs := []*record.Record{base[0], metricRuns[0]}
	save(t, dir, recs...)
	c := open(t, dir)
	for _, e := range c.Entries {
		var rec *record.Record
		for _, r := range recs {
			if r.ID == e.ID {
				rec = r
			}
		}
		got, err := e.ServerValues()
		want := compare.RunServerValues(rec)
		if err != nil || len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("run %s: index %v (%v), record %v", e.ID, got, err, want)
		}
	}
}

// TestSelect: patterns match labels, other arguments name runs as compare
// names them (id, label, the start of an id); each run once, in the
// folder's order; a pattern that matches nothing and a broken one say so.
func TestSelect(t *testing.T) {
	dir := t.TempDir()
	a1, a2, b, pr := run("master-a", 1), run("master-b", 2), run("master-b", 3), run("pr-1", 4)
	save(t, dir, a1, a2, b, pr)
	c := open(t, dir)
	ids := func(es []*Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"master-*"}, []string{a1.ID, a2.ID, b.ID}},
		{[]string{"master-b", "master-*"}, []string{a1.ID, a2.ID, b.ID}},
		{[]string{"pr-1", a1.ID}, []string{a1.ID, pr.ID}},
		{[]string{"master-?"}, []string{a1.ID, a2.ID, b.ID}},
	} {
		got, err := c.Select(tc.args)
		if err != nil || !slices.Equal(ids(got), tc.want) {
			t.Errorf("Select(%q) = %v, %v; want %v", tc.args, ids(got), err, tc.want)
		}
	}
	if _, err := c.Select([]string{"nomatch-*"}); err == nil || !strings.Contains(err.Error(), `has a label that matches "nomatch-*"`) {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
	var pe *PatternError
	if _, err := c.Select([]string{"["}); !errors.As(err, &pe) {
		t.Errorf("a broken pattern: %v", err)
	}
	if _, err := c.Select([]string{"nosuch"}); err == nil || !strings.Contains(err.Error(), `no run with id or label "nosuch"`) {
		t.Errorf("a name of no run: %v", err)
	}
}
