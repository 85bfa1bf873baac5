// Command tailspread reads the runs of a bench routine (two sides, run in
// blocks) and says, for one operation's latency percentiles, how much each
// varies from run to run within a side and how much the ratio of the two
// sides varies from block to block; then whether longer runs would settle a
// percentile sooner: the histograms of m consecutive blocks are merged (a
// run m times as long, made of the same operations) and the ratio's
// variance over them is multiplied by m, the variance per block's worth of
// operations. Where that product stays as it is for m = 1, 2, 4, a run's
// percentile varies by what befalls the run (a stall, a flush), not by how
// few operations lie above it, and longer runs buy nothing per minute.
//
//	go run ./tools/tailspread RESULTS_DIR BASELINE CONTENDER [PHASE [OPERATION]]
//
// PHASE defaults to ingest and OPERATION to INGESTION.
package main

import (
	"fmt"
	"math"
	"os"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) < 4 || len(os.Args) > 6 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/tailspread RESULTS_DIR BASELINE CONTENDER [PHASE [OPERATION]]")
		os.Exit(2)
	}
	phase, operation := "ingest", "INGESTION"
	if len(os.Args) > 4 {
		phase = os.Args[4]
	}
	if len(os.Args) > 5 {
		operation = os.Args[5]
	}
	recs, errs := record.Store{Dir: os.Args[1]}.List()
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "tailspread:", err)
	}
	base, cont := os.Args[2], os.Args[3]
	// side → block → the operation's snapshot
	ops := map[string]map[int]*metrics.Snapshot{base: {}, cont: {}}
	for _, r := range recs {
		if r.Routine == nil || r.Status != record.StatusComplete || r.Label != base && r.Label != cont {
			continue
		}
		for _, ph := range r.Phases {
			if ph.Name != phase {
				continue
			}
			for _, op := range ph.Operations {
				if op.Operation == operation && op.OKOps > 0 {
					ops[r.Label][r.Routine.Block] = op
				}
			}
		}
	}
	var blocks []int
	for b := range ops[base] {
		if _, ok := ops[cont][b]; ok {
			blocks = append(blocks, b)
		}
	}
	slices.Sort(blocks)
	if len(blocks) < 8 {
		fmt.Fprintf(os.Stderr, "tailspread: %d blocks hold %s in phase %s on both sides; 8 are needed\n", len(blocks), operation, phase)
		os.Exit(1)
	}
	n := ops[base][blocks[0]].OKOps
	fmt.Printf("%s in phase %s, %s against %s, %d blocks (about %d operations a run)\n\n", operation, phase, cont, base, len(blocks), n)
	fmt.Println("| percentile | operations above it in a run | baseline's runs (min, median, max) | spread within a side (CV) | spread of the ratio | ratio's variance × m, m = 1 / 2 / 4 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, q := range []float64{50, 90, 95, 99, 99.9} {
		var lb, lc []float64
		var vb []float64
		for _, b := range blocks {
			x, y := ops[base][b].Percentile(q), ops[cont][b].Percentile(q)
			lb, lc, vb = append(lb, math.Log(x)), append(lc, math.Log(y)), append(vb, x)
		}
		slices.Sort(vb)
		sdu := math.Sqrt((stat.Variance(lb, nil) + stat.Variance(lc, nil)) / 2)
		var per []string
		var sdp float64
		for _, m := range []int{1, 2, 4} {
			d := merged(ops, base, cont, blocks, m, q)
			if len(d) < 3 {
				per = append(per, "–")
				continue
			}
			v := stat.Variance(d, nil)
			if m == 1 {
				sdp = math.Sqrt(v)
			}
			per = append(per, fmt.Sprintf("%.3f", v*float64(m)))
		}
		fmt.Printf("| P%g | %.0f | %.3g, %.3g, %.3g ms | %.1f%% | %.1f%% | %s / %s / %s |\n", q, float64(n)*(1-q/100),
			vb[0], vb[len(vb)/2], vb[len(vb)-1], 100*sdu, 100*sdp, per[0], per[1], per[2])
	}
}

// merged is the log-ratio of the sides' q-th percentile over each group of
// m consecutive blocks, their histograms merged.
func merged(ops map[string]map[int]*metrics.Snapshot, base, cont string, blocks []int, m int, q float64) []float64 {
	var d []float64
	for i := 0; i+m <= len(blocks); i += m {
		var a, c [][]*metrics.Snapshot
		for _, b := range blocks[i : i+m] {
			a, c = append(a, []*metrics.Snapshot{ops[base][b]}), append(c, []*metrics.Snapshot{ops[cont][b]})
		}
		d = append(d, math.Log(metrics.Merge(c...)[0].Percentile(q)/metrics.Merge(a...)[0].Percentile(q)))
	}
	return d
}
