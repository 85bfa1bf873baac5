package adaptertest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

// Distributed is a distributed run made for real: N processes of the bench
// binary, instance i with JOB_COMPLETION_INDEX=i as a Kubernetes Indexed
// Job gives it, one --start-at, against one database; then bench merge.
type Distributed struct {
	Bin     string   // the bench binary
	Dir     string   // working directory of the processes (the repository root)
	Config  string   // config file, relative to Dir
	Sets    []string // KEY=VALUE for every process; BENCHMARK_CLUSTER and BENCHMARK_INSTANCES are added
	N       int      // instances
	Results string   // results folder shared by the instances
	// StartIn is how long after the processes start the measured phase
	// begins: long enough for every instance's schema step.
	StartIn time.Duration
}

// Run cleans the database once (bench clean), runs the instances under
// label, merges them and checks what a merge must hold: every instance
// succeeded; the merged INGESTION points are N times one instance's
// complete workload; every merged histogram counts exactly the operations
// merged into it; bench verify of the whole distributed workload passes.
// It returns the instances' records and the merged one.
func (d Distributed) Run(t testing.TB, label string) ([]*record.Record, *record.Record) {
	t.Helper()
	sets := append([]string{"RESULTS_DIR=" + d.Results, "BENCHMARK_CLUSTER=true", fmt.Sprintf("BENCHMARK_INSTANCES=%d", d.N)}, d.Sets...)
	args := func(cmd string, extra ...string) []string {
		a := []string{cmd, "-c", d.Config}
		for _, s := range sets {
			a = append(a, "--set", s)
		}
		return append(a, extra...)
	}
	if out, code := d.bench(nil, args("clean")...); code != 0 {
		t.Fatalf("bench clean: exit %d\n%s", code, out)
	}
	startAt := time.Now().Add(d.StartIn).UTC().Format(time.RFC3339Nano)
	type proc struct {
		out  string
		code int
	}
	procs := make([]proc, d.N)
	var wg sync.WaitGroup
	for i := range d.N {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, code := d.bench([]string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, args("run", "--label", label, "--start-at", startAt, "--format", "csv")...)
			procs[i] = proc{out, code}
		}()
	}
	wg.Wait()
	for i, p := range procs {
		if p.code != 0 {
			t.Fatalf("instance %d of %d: exit %d\n%s", i, d.N, p.code, p.out)
		}
	}
	store := record.Store{Dir: d.Results}
	instances, _, err := store.Find(label)
	if err != nil || len(instances) != d.N {
		t.Fatalf("%d records labelled %s for %d instances (%v)", len(instances), label, d.N, err)
	}
	if out, code := d.bench(nil, "merge", label, "--results", d.Results); code != 0 {
		t.Fatalf("bench merge %s: exit %d\n%s", label, code, out)
	}
	found, _, err := store.Find(label + "-merged")
	if err != nil || len(found) != 1 {
		t.Fatalf("the merged record of %s: %v", label, err)
	}
	merged := found[0]
	CheckMerged(t, instances, merged)
	out, code := d.bench(nil, args("verify")...)
	if code != 0 || !strings.Contains(out, "every device holds exactly the points the workload writes") || !strings.Contains(out, fmt.Sprintf("all %d instances", d.N)) {
		t.Fatalf("bench verify of the whole distributed workload: exit %d\n%s", code, out)
	}
	return instances, merged
}

// bench runs the binary with extra environment and returns its combined
// output and exit status.
func (d Distributed) bench(env []string, args ...string) (string, int) {
	return RunBench(d.Bin, d.Dir, env, args...)
}

// RunOne runs the binary once from the test's package folder with args
// and the settings sets (KEY=VALUE, RESULTS_DIR among them), fails the test
// unless it exits 0 and leaves exactly one record in results, and returns
// that record and the run's output.
func RunOne(t testing.TB, bin, results string, args []string, sets ...string) (*record.Record, string) {
	t.Helper()
	args = append(slices.Clone(args), "--set", "RESULTS_DIR="+results)
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	out, code := RunBench(bin, ".", nil, args...)
	if code != 0 {
		t.Fatalf("bench exit %d:\n%s", code, out)
	}
	recs, damaged := record.Store{Dir: results}.List()
	if len(damaged) > 0 || len(recs) != 1 {
		t.Fatalf("%d records in %s: %v", len(recs), results, damaged)
	}
	return recs[0], out
}

// RunBench runs bin in dir with extra environment to its end: its combined
// output and exit status (-1 when it could not run).
func RunBench(bin, dir string, env []string, args ...string) (string, int) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		return fmt.Sprintf("%s: %v", filepath.Base(bin), err), -1
	}
	return out.String(), 0
}

// CheckMerged fails the test unless merged is a complete merge of the
// instances: every instance merged; INGESTION points n times one instance's
// VERIFY-expected workload and equal to the instances' sum; every merged
// histogram counting exactly the operations merged into it; VERIFY of the
// whole.
func CheckMerged(t testing.TB, instances []*record.Record, merged *record.Record) {
	t.Helper()
	n := len(instances)
	if merged.Status != record.StatusComplete || merged.Instance == nil || len(merged.Instance.Merged) != n {
		t.Fatalf("merged record: status %s (%s), instance %+v", merged.Status, merged.Error, merged.Instance)
	}
	ingest := func(r *record.Record) (pts int64) {
		for _, p := range r.Phases {
			for _, o := range p.Operations {
				if o.Operation == config.Ingestion {
					pts += o.OKPoints
				}
			}
		}
		return pts
	}
	one := instances[0].Verify
	if one == nil || one.Expected == 0 {
		t.Fatal("the instances ran without VERIFY: nothing says what one instance's workload is")
	}
	var sum int64
	for _, r := range instances {
		sum += ingest(r)
	}
	if got := ingest(merged); got != int64(n)*one.Expected || got != sum {
		t.Errorf("merged INGESTION points %d; %d instances x %d points each = %d; the instances' sum %d", got, n, one.Expected, int64(n)*one.Expected, sum)
	}
	for i, p := range merged.Phases {
		for _, o := range p.Operations {
			var ops int64
			for _, r := range instances {
				for _, q := range r.Phases[i].Operations {
					if q.Operation == o.Operation {
						ops += q.OKOps
					}
				}
			}
			if o.OKOps != ops || o.Count() != ops {
				t.Errorf("%s %s: merged %d operations, histogram counts %d, the instances %d", p.Name, o.Operation, o.OKOps, o.Count(), ops)
			}
		}
	}
	if merged.Verify == nil || !merged.Verify.OK() || merged.Verify.Expected != int64(n)*one.Expected {
		t.Errorf("merged verify %+v, want %d instances' points", merged.Verify, n)
	}
}
