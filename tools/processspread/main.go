// Command processspread measures what restarting the servers trades in a
// routine that restarted them (--restart-every): for every gated row
// tested in pairs, how far a block's log-ratio spreads within one pair of
// server processes and how far the processes' own leans spread between
// pairs (compare.ProcessSpread), and the restart interval that would make
// the row's estimate tightest for the wall time.
//
//	go run ./tools/processspread [-block S] [-restart S] RESULTS_DIR BASELINE CONTENDER
//
// A routine of E processes of K blocks each estimates a row with variance
// (between² + within²/K)/E; with a block taking -block seconds and a
// restart with its warm-up runs -restart seconds, E = T/(K·block+restart)
// for a wall time T, and the variance is least at
// K = (within/between)·√(restart/block). Take -block and -restart from the
// routine's summary (its runs' time over its blocks; its servers' and
// warm-ups' time over its processes).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/stats"
)

func main() {
	block := flag.Float64("block", 25, "seconds a block of runs takes")
	restart := flag.Float64("restart", 80, "seconds a restart takes with its warm-up runs")
	flag.Parse()
	if flag.NArg() != 3 || !(*block > 0) || !(*restart > 0) {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/processspread [-block S] [-restart S] RESULTS_DIR BASELINE CONTENDER")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), []string{flag.Arg(1), flag.Arg(2)}, *block, *restart); err != nil {
		fmt.Fprintln(os.Stderr, "processspread:", err)
		os.Exit(1)
	}
}

func run(dir string, labels []string, block, restart float64) error {
	runs, err := catalog.OpenSides(dir, labels)
	if err != nil {
		return err
	}
	cmp, _, err := compare.Build(labels, runs, nil, compare.Options{Paired: true, MinEffect: 5, MinAbsMS: compare.DefaultMinAbsMS}, false)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s vs %s; a block %g s, a restart with its warm-up %g s\n\n", dir, labels[0], labels[1], block, restart)
	fmt.Println("| row | processes | within a process (SD of a block's log-ratio) | between processes (SD of a process pair's lean) | restart interval that pays most |")
	fmt.Println("|---|---|---|---|---|")
	var ws, bs []float64
	for _, r := range cmp.Rows {
		ch := r.Contender[0]
		if !ch.Gated {
			continue
		}
		w, b, ok := compare.ProcessSpread(r.Baseline, ch)
		if !ok {
			continue
		}
		ws, bs = append(ws, w), append(bs, b)
		fmt.Printf("| %s of %s (%s) | %d | %.2f%% | %.2f%% | %s |\n", r.Key.Metric, r.Key.Op, r.Key.Phase, ch.Processes, 100*math.Sqrt(w), 100*math.Sqrt(max(b, 0)), blocks(best(w, b, block, restart)))
	}
	if len(ws) == 0 {
		return fmt.Errorf("no gated row of %s was tested in pairs over two server processes or more: was the routine run with --restart-every?", dir)
	}
	// One row's between estimate has as many degrees of freedom as the
	// routine had processes less one; their mean over the rows, negative
	// ones included, is the pooled estimate.
	w, b := mean(ws), mean(bs)
	none := 0
	for _, x := range bs {
		if x <= 0 {
			none++
		}
	}
	fmt.Printf("\n%d rows; %d of them spread no more between processes than their blocks would make them. Pooled over the rows: within a process %.2f%%, between processes %.2f%%; the restart interval that pays most for the pooled row: %s.\n",
		len(ws), none, 100*math.Sqrt(w), 100*math.Sqrt(max(b, 0)), blocks(best(w, b, block, restart)))
	return nil
}

func mean(xs []float64) float64 {
	m, _ := stats.MeanVar(xs)
	return m
}

// best is the blocks between restarts that make a row's estimate tightest
// for the wall time, from its within and between variances: +Inf where
// the processes do not differ.
func best(within, between, block, restart float64) float64 {
	if between <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt(within/between) * math.Sqrt(restart/block)
}

func blocks(k float64) string {
	if math.IsInf(k, 1) {
		return "never restart"
	}
	return fmt.Sprintf("%.1f blocks", k)
}
