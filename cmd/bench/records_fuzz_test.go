package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
)

// sampleRecord saves recordtest.Sample in dir, as a run saves its record,
// and returns the file's bytes.
func sampleRecord(tb testing.TB, dir string) []byte {
	tb.Helper()
	path, err := record.Store{Dir: dir}.Save(recordtest.Sample())
	if err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// resultsWith makes a results folder holding the good record and data as
// the file of a later run, and returns the folder and that file.
func resultsWith(t *testing.T, good, data []byte) (dir, bad string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "20261130T090000Z-abc123.json"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	bad = filepath.Join(dir, "20261130T100000Z-ffffff.json")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, bad
}

// FuzzRecords feeds arbitrary bytes as a record file of the results folder,
// beside a good record, through show, list, compare, report and merge in
// process: whatever the file holds, no command panics, and one that is
// not a record is named and left out as a damaged file, not read as zeros.
func FuzzRecords(f *testing.F) {
	good := sampleRecord(f, f.TempDir())
	sample := string(good)
	histogram := regexp.MustCompile(`"latency_histogram": "[^"]*"`)
	for _, seed := range []string{
		sample,
		strings.Replace(sample, `"operations": [`, `"operations": [null, `, 1),
		strings.Replace(sample, `"ok_operations": 4`, `"ok_operations": -4`, 1),
		histogram.ReplaceAllString(sample, `"latency_histogram": "bm90IGEgaGlzdG9ncmFt"`),
		strings.Replace(sample, `"seconds": 1.5`, `"seconds": -1`, 1),
		`{"id": "20261130T090000Z-ffffff", "label": "x", "phases": [{"operations": [null]}]}`,
		`{"id": "20261130T090000Z-ffffff", "phases": null, "verify": {"devices": -1}}`,
		`{}`, `null`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir, bad := resultsWith(t, good, data)
		for _, args := range [][]string{
			{"show", "master-a2b704d"}, {"show", bad, "--format", "json"}, {"show", "20261130T10"},
			{"list"}, {"list", "--format", "csv"},
			{"compare", "master-a2b704d", bad}, {"compare", bad, "master-a2b704d", "--format", "json"},
			{"report", bad, "-o", filepath.Join(dir, "page.html")}, // charts are drawn only for a readable file
			{"merge", bad},
		} {
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- Main(append(args, "--results", dir), &out, &errb) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(20 * time.Second):
				// A record must not hang a command: say where it hangs.
				var stacks bytes.Buffer
				pprof.Lookup("goroutine").WriteTo(&stacks, 2)
				t.Fatalf("bench %v still ran after 20 s on %q\n%s", args, data, stacks.String())
			}
			stderr := errb.String()
			if code == exitBug || strings.Contains(stderr, "goroutine ") {
				t.Fatalf("bench %v: exit %d\n%s", args, code, stderr)
			}
			if code > exitUntested {
				t.Fatalf("bench %v: exit %d, not a status bench gives\n%s", args, code, stderr)
			}
		}
	})
}

// TestMutatedRecords is FuzzRecords' check on 300 records with three
// bytes changed at random (a fixed seed), in every go test: many damaged
// records through the commands without -fuzz. (Under -fuzz, give
// -fuzzminimizetime 10x: the engine minimizes each new input, by default
// for up to a minute, and a record of several kilobytes took all of it, so
// the fuzzer seemed to stop after a dozen inputs.)
func TestMutatedRecords(t *testing.T) {
	good := sampleRecord(t, t.TempDir())
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		data := append([]byte(nil), good...)
		for k := 0; k < 3; k++ {
			data[rng.IntN(len(data))] = byte(rng.IntN(256))
		}
		dir, bad := resultsWith(t, good, data)
		for _, args := range [][]string{{"show", "master-a2b704d"}, {"list"}, {"compare", "master-a2b704d", bad}, {"report", bad, "-o", filepath.Join(dir, "p.html")}, {"merge", bad}} {
			var out, errb bytes.Buffer
			if code := Main(append(args, "--results", dir), &out, &errb); code == exitBug || code > exitUntested {
				t.Fatalf("input %d, bench %v: exit %d\n%s", i, args, code, errb.String())
			}
		}
	}
}
