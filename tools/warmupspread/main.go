// Command warmupspread reads the records of runs without a warm-up and of
// runs with one (tools/warmup-proof) and prints how much each run's
// latency percentiles vary from run to run: the ingest's INGESTION and each
// query class of round 2, at P99, P99.9 and the maximum, with the warm-up's
// operations left out (what the phase's figures, compare and the gate read)
// and, for runs with a warm-up, put back in (the operations a run without
// the key measures). It also prints the first seconds of each run's ingest,
// warm-up and measured part apart, in points per second.
//
//	go run ./tools/warmupspread NO_WARMUP_RESULTS WARMUP_RESULTS...
package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/warmupspread NO_WARMUP_RESULTS WARMUP_RESULTS...")
		os.Exit(2)
	}
	without := load(os.Args[1])
	var with [][]*record.Record
	for _, dir := range os.Args[2:] {
		with = append(with, load(dir))
	}
	fmt.Println("## The ingest's first seconds (points/s per one-second window)")
	fmt.Println()
	for _, recs := range with {
		for _, r := range recs {
			for _, p := range r.Phases {
				if p.Name != "ingest" || p.Warmup == nil {
					continue
				}
				fmt.Printf("- %s (%s): warm-up %.1f s: %s | measured: %s …\n", r.ID, r.Label, p.Warmup.Seconds,
					windows(p.Warmup.Operations, 12), windows(p.Operations, 6))
			}
		}
	}
	fmt.Println()
	fmt.Println("## Per-run latency (ms): spread over the runs")
	fmt.Println()
	head := "| figure | without a warm-up |"
	rule := "|---|---|"
	for _, dir := range os.Args[2:] {
		name := filepath.Base(filepath.Clean(dir))
		head += fmt.Sprintf(" %s, warm-up left in | %s, warm-up out |", name, name)
		rule += "---|---|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	for _, name := range figures(without) {
		for _, q := range []float64{99, 99.9, 100} {
			row := fmt.Sprintf("| %s %s | %s |", name, pname(q), spread(values(without, name, q, false)))
			for _, recs := range with {
				row += fmt.Sprintf(" %s | %s |", spread(values(recs, name, q, true)), spread(values(recs, name, q, false)))
			}
			fmt.Println(row)
		}
	}
	fmt.Println()
	fmt.Println("Each cell: the runs' lowest–highest figure, their coefficient of variation (sd/mean), and how many runs measured it.")
}

func pname(q float64) string {
	if q == 100 {
		return "max"
	}
	return fmt.Sprintf("P%g", q)
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

// values is each run's percentile q (100: the maximum) of one figure,
// with or without its warm-up.
func values(recs []*record.Record, name string, q float64, warm bool) []float64 {
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
				switch {
				case s.OKOps == 0:
				case q == 100:
					out = append(out, s.Latency().Max)
				default:
					out = append(out, s.Percentile(q))
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
	return fmt.Sprintf("%.1f–%.1f, CV %.2f (%d)", lo, hi, cv, len(v))
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
