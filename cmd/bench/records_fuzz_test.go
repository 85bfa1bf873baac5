package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
)

// FuzzRecords feeds arbitrary bytes as a record file of the results folder,
// beside a good record, through show, list, compare, report and merge in
// process: whatever the file holds, no command panics, and one that is
// not a record is named and left out as a damaged file, not read as zeros.
func FuzzRecords(f *testing.F) {
	seedDir := f.TempDir()
	path, err := record.Store{Dir: seedDir}.Save(recordtest.Sample())
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
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
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "20261130T090000Z-abc123.json"), good, 0o644); err != nil {
			t.Fatal(err)
		}
		bad := filepath.Join(dir, "20261130T100000Z-ffffff.json")
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"show", "master-a2b704d"}, {"show", bad, "--format", "json"}, {"show", "20261130T10"},
			{"list"}, {"list", "--format", "csv"},
			{"compare", "master-a2b704d", bad}, {"compare", bad, "master-a2b704d", "--format", "json"},
			{"report", "master-a2b704d", bad, "-o", filepath.Join(dir, "page.html")},
			{"merge", bad},
		} {
			var out, errb bytes.Buffer
			code := Main(append(args, "--results", dir), &out, &errb)
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
