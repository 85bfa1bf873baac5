package adaptertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/record"
)

// Replay proves FILE_PATH on a database through the bench binary: bench
// generate writes the config's data (out-of-order rows included); a run
// that replays the files and a run that generates the data each pass
// VERIFY and CHECK_ANSWERS (every answer equal to the model's, which the
// generator computes: the replayed points are the generated ones), write
// the same points, share one fingerprint and compare. A data set of
// another workload is refused (exit 2); files that are not the workload's
// generated points run under a fingerprint of their own, which compare
// does not match with the generated runs.
type Replay struct {
	Dir    string   // working directory (the repository root)
	Config string   // config file, relative to Dir
	Sets   []string // KEY=VALUE for every run: the server, DB_NAME, a small workload with query rounds
}

// Run runs the cases.
func (r Replay) Run(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	bin := Binary(t, tmp)
	data, results := filepath.Join(tmp, "data"), filepath.Join(tmp, "results")
	args := func(cmd string, extra ...string) []string {
		a := []string{cmd, "-c", r.Config}
		for _, s := range append(append([]string{"IS_OUT_OF_ORDER=true", "OUT_OF_ORDER_RATIO=0.2"}, r.Sets...), extra...) {
			a = append(a, "--set", s)
		}
		return a
	}
	bench := func(a ...string) (string, int) { return RunBench(bin, r.Dir, nil, a...) }
	// The data go when the test ends: a server's regions and indices are
	// shared by the package's tests.
	t.Cleanup(func() { bench(args("clean")...) })

	out, code := bench(append(args("generate"), "--out", data)...)
	if code != 0 || !strings.Contains(out, "wrote ") || !strings.Contains(out, "replay them with FILE_PATH="+data) {
		t.Fatalf("bench generate: exit %d\n%s", code, out)
	}
	if out, code := bench(append(args("generate"), "--out", data)...); code != 2 || !strings.Contains(out, "holds a data set already") {
		t.Errorf("a second generate into %s: exit %d, want 2\n%s", data, code, out)
	}
	check := []string{"VERIFY=true", "CHECK_ANSWERS=true", "RESULTS_DIR=" + results}
	if out, code := bench(append(args("run", check...), "--label", "generated")...); code != 0 {
		t.Fatalf("the generated run: exit %d\n%s", code, out)
	}
	out, code = bench(append(args("run", append(check, "FILE_PATH="+data)...), "--label", "replayed")...)
	if code != 0 || !strings.Contains(out, "the writes send the data set FILE_PATH="+data+", bench generate's files of this workload") {
		t.Fatalf("the replay: exit %d\n%s", code, out)
	}
	recs := map[string]*record.Record{}
	all, damaged := record.Store{Dir: results}.List()
	if len(damaged) > 0 {
		t.Fatal(damaged)
	}
	for _, rec := range all {
		recs[rec.Label] = rec
	}
	gen, rep := recs["generated"], recs["replayed"]
	if gen == nil || rep == nil {
		t.Fatalf("records %v", recs)
	}
	if gen.Fingerprint != rep.Fingerprint {
		t.Errorf("fingerprints differ: generated %s, replayed %s", gen.Fingerprint, rep.Fingerprint)
	}
	for _, rec := range []*record.Record{gen, rep} {
		if rec.Status != record.StatusComplete || rec.Verify == nil || !rec.Verify.OK() {
			t.Errorf("%s: status %s, verify %+v", rec.Label, rec.Status, rec.Verify)
		}
		checked := int64(0)
		for _, ph := range rec.Phases {
			for _, op := range ph.Operations {
				checked += op.AnswersChecked
				if op.AnswersWrong != 0 || op.FailOps != 0 {
					t.Errorf("%s %s %s: %d wrong answers, %d failed", rec.Label, ph.Group(), op.Operation, op.AnswersWrong, op.FailOps)
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no answer was checked", rec.Label)
		}
	}
	if g, p := gen.Phases[0].Operations[0], rep.Phases[0].Operations[0]; g.Operation != "INGESTION" || g.OKPoints != p.OKPoints || g.OKOps != p.OKOps {
		t.Errorf("ingest: generated %s %d ops %d points, replayed %s %d ops %d points", g.Operation, g.OKOps, g.OKPoints, p.Operation, p.OKOps, p.OKPoints)
	} else {
		t.Logf("ingest: %d batches, %d points each way", g.OKOps, g.OKPoints)
	}
	if out, code := bench("compare", "generated", "replayed", "--results", results); code == 2 {
		t.Errorf("compare of the generated and the replayed run refused:\n%s", out)
	}

	// Another workload's files.
	other := filepath.Join(tmp, "other")
	if out, code := bench(append(args("generate", "DEVICE_NUMBER=2", "GROUP_NUMBER=1", "DATA_CLIENT_NUMBER=1", "QUERY_DEVICE_NUM=1"), "--out", other)...); code != 0 {
		t.Fatalf("generate another workload: exit %d\n%s", code, out)
	}
	if out, code := bench(args("run", "FILE_PATH="+other, "RESULTS_DIR="+results)...); code != 2 || !strings.Contains(out, "FILE_PATH="+other+": the data set in "+other+" has no device") {
		t.Errorf("another workload's files: exit %d, want 2\n%s", code, out)
	}

	// Files this workload's generator did not make (info.txt names no
	// fingerprint, as iot-benchmark's do not): their own fingerprint.
	if err := os.WriteFile(filepath.Join(data, "info.txt"), []byte("made elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = bench(append(args("run", "FILE_PATH="+data, "RESULTS_DIR="+results), "--label", "foreign")...)
	if code != 0 || !strings.Contains(out, "files of other data than this workload's generator makes (DATA_SET=sha256:") {
		t.Fatalf("foreign files: exit %d\n%s", code, out)
	}
	if out, code := bench("compare", "generated", "foreign", "--results", results); code != 2 || !strings.Contains(out, "DATA_SET") {
		t.Errorf("compare of generated and foreign files: exit %d, want 2 naming DATA_SET\n%s", code, out)
	}
}
