// Command warmupspread reads the records of runs with a warm-up and of
// runs without one (scripts/warmup-proof) and prints how much each run's
// P99 latency varies from run to run: the ingest's INGESTION and each
// query class of round 2, with the warm-up's operations left out (what the
// phase's figures, compare and the gate read) and, for runs with a
// warm-up, put back in (the same operations as a run without the key
// would have measured). It also prints the first seconds of each run's
// ingest, warm-up and measured part apart, in points per second.
//
//	go run ./scripts/warmupspread NO_WARMUP_RESULTS WARMUP_RESULTS
package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/warmupspread NO_WARMUP_RESULTS WARMUP_RESULTS")
		os.Exit(2)
	}
	without, with := load(os.Args[1]), load(os.Args[2])
	fmt.Println("## The ingest's first seconds (points/s per one-second window)")
	fmt.Println()
	for _, r := range with {
		for _, p := range r.Phases {
			if p.Name != "ingest" || p.Warmup == nil {
				continue
			}
			fmt.Printf("- %s (%s, block %d): warm-up %.1f s: %s | measured: %s …\n", r.ID, r.Label, block(r), p.Warmup.Seconds,
				windows(p.Warmup.Operations, 12), windows(p.Operations, 6))
		}
	}
	fmt.Println()
	fmt.Println("## Per-run P99 (ms): spread over the runs")
	fmt.Println()
	fmt.Println("| figure | runs | without WARMUP_TIME | with it, warm-up left in | with it, warm-up out |")
	fmt.Println("|---|---|---|---|---|")
	names := figures(without)
	for _, name := range names {
		a := p99s(without, name, false)
		b := p99s(with, name, true)
		c := p99s(with, name, false)
		fmt.Printf("| %s | %d / %d | %s | %s | %s |\n", name, len(a), len(c), spread(a), spread(b), spread(c))
	}
	fmt.Println()
	fmt.Println("Each cell: min–max of the runs' P99, and their coefficient of variation (sd/mean).")
}

func load(dir string) []*record.Record {
	recs, errs := record.Store{Dir: dir}.List()
	if len(errs) > 0 || len(recs) == 0 {
		fmt.Fprintf(os.Stderr, "warmupspread: %s: %d records, %v\n", dir, len(recs), errs)
		os.Exit(1)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].StartedAt.Before(recs[j].StartedAt) })
	return recs
}

func block(r *record.Record) int {
	if r.Routine == nil {
		return 0
	}
	return r.Routine.Block
}

// figures are the ingest and round 2's operations, by name.
func figures(recs []*record.Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		for _, p := range r.Phases {
			if p.Name == "ingest" || p.Round == 2 {
				for _, op := range p.Operations {
					n := p.Group() + " " + op.Operation
					if !seen[n] {
						seen[n] = true
						out = append(out, n)
					}
				}
			}
		}
	}
	return out
}

// p99s is each run's P99 of one figure, with or without its warm-up.
func p99s(recs []*record.Record, name string, warm bool) []float64 {
	var out []float64
	for _, r := range recs {
		for _, p := range r.Phases {
			if !strings.HasPrefix(name, p.Group()+" ") {
				continue
			}
			op := strings.TrimPrefix(name, p.Group()+" ")
			parts := [][]*metrics.Snapshot{pick(p.Operations, op)}
			if warm && p.Warmup != nil {
				parts = append(parts, pick(p.Warmup.Operations, op))
			}
			for _, s := range metrics.Merge(parts...) {
				if s.OKOps > 0 {
					out = append(out, s.Percentile(99))
				}
			}
		}
	}
	return out
}

func pick(ops []*metrics.Snapshot, name string) []*metrics.Snapshot {
	for _, s := range ops {
		if s.Operation == name {
			return []*metrics.Snapshot{s}
		}
	}
	return nil
}

func spread(v []float64) string {
	if len(v) == 0 {
		return "—"
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range v {
		lo, hi, sum = math.Min(lo, x), math.Max(hi, x), sum+x
	}
	mean := sum / float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	cv := 0.0
	if len(v) > 1 && mean > 0 {
		cv = math.Sqrt(ss/float64(len(v)-1)) / mean
	}
	return fmt.Sprintf("%.1f–%.1f, CV %.2f", lo, hi, cv)
}

// windows prints the first n one-second windows of the ingest's writes.
func windows(ops []*metrics.Snapshot, n int) string {
	for _, s := range ops {
		if s.Operation != config.Ingestion {
			continue
		}
		var w []string
		for i, p := range s.PerSecond {
			if i == n {
				break
			}
			w = append(w, fmt.Sprint(p))
		}
		return strings.Join(w, " ")
	}
	return ""
}
