package report

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
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

func TestRunGolden(t *testing.T) {
	for _, f := range TableFormats.List {
		if f == JSON {
			continue // a run's JSON is its record: package record tests it
		}
		var buf bytes.Buffer
		if err := WriteRun(&buf, f, recordtest.Sample()); err != nil {
			t.Fatal(err)
		}
		golden(t, "run."+string(f)+".golden", buf.Bytes())
	}
}

// TestSavedRecordPrintsTheSame: a record read back from its file (its
// histograms decoded) prints exactly as the one that was saved.
func TestSavedRecordPrintsTheSame(t *testing.T) {
	rec := recordtest.Sample()
	path, err := record.Store{Dir: t.TempDir()}.Save(rec)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	WriteRun(&a, "text", rec)
	WriteRun(&b, "text", back)
	if a.String() != b.String() {
		t.Fatalf("a saved and loaded record renders differently:\n%s\nvs\n%s", a.String(), b.String())
	}
}

// TestNotReportedIsNotZero: a server metric the server did not report is
// printed as "not reported", not as 0.
func TestNotReportedIsNotZero(t *testing.T) {
	rec := &record.Record{ServerMetrics: []record.ServerMetric{{Name: "Heap used for segments", Unit: "MB", NotReported: true}, {Name: "Segment count", Value: 29}}}
	var rows [][]string
	for _, tb := range RunTables(rec) {
		if tb.Title == "Server metrics" {
			rows = tb.Rows
		}
	}
	if len(rows) != 2 || rows[0][1] != "not reported" || rows[1][1] != "29" {
		t.Fatalf("server metric rows %q", rows)
	}
}

// TestRenderASCII: the fast drawing of plain tables is tablewriter's, byte
// for byte, on tables of every shape plainASCII admits.
func TestRenderASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const chars = "abcXYZ019.-_%()[]:/|+ "
		n := rng.IntN(14)
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return strings.TrimSpace(string(b))
	}
	for i := range 500 {
		cols := 1 + rng.IntN(7)
		tb := Table{Title: fmt.Sprint("t", i), LeftColumns: rng.IntN(3)}
		for range cols {
			h := word()
			if h == "" || rng.IntN(5) == 0 {
				h = []string{"Note", "Unit", "Verdict", "ID", "Median"}[rng.IntN(5)]
			}
			tb.Header = append(tb.Header, h)
		}
		for range 1 + rng.IntN(6) {
			var r []string
			for range cols {
				r = append(r, word())
			}
			tb.Rows = append(tb.Rows, r)
		}
		if !plainASCII(tb) {
			t.Fatalf("table %d is not plain: %v", i, tb)
		}
		var fast, slow bytes.Buffer
		if err := renderASCII(&fast, tb); err != nil {
			t.Fatal(err)
		}
		if err := render(&slow, tb, renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})); err != nil {
			t.Fatal(err)
		}
		if fast.String() != slow.String() {
			t.Fatalf("table %d: drawn\n%s\ntablewriter draws\n%s", i, fast.String(), slow.String())
		}
	}
	for _, tb := range []Table{
		{Header: []string{"A"}},
		{Header: []string{"A", "B"}, Rows: [][]string{{"x"}}},
		{Header: []string{"A"}, Rows: [][]string{{" x"}}},
		{Header: []string{"A"}, Rows: [][]string{{"é"}}},
		{Header: []string{"A"}, Rows: [][]string{{"two\nlines"}}},
	} {
		if plainASCII(tb) {
			t.Errorf("%v is taken as plain", tb)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"a bb ccc", 4, "a bb\nccc"},
		{"a bb ccc", 8, "a bb ccc"},
		{"  spaced   out  ", 6, "spaced\nout"},
		{"wordlongerthanwidth x", 5, "wordlongerthanwidth\nx"},
		{"é é é", 3, "é é\né"}, // runes, not bytes
	} {
		if got := Wrap(c.in, c.width); got != c.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}
