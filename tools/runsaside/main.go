// Command runsaside reads the runs of one label (an A/A series: the same
// build and workload, run after run on one machine) and prints how much
// each headline figure varies from run to run and the smallest change a
// comparison with 5 or 10 runs a side can detect: the routine's "how many
// runs a side" question, answered for this machine. tools/es-runs-a-side
// makes the runs.
//
//	go run ./tools/runsaside RESULTS_DIR LABEL
//
// The smallest detectable change is that of a two-sided Welch test at
// α = 0.05 with 80% power, for runs that vary as these did:
// (t(1−α/2) + t(0.8)) · sqrt(2/n) · CV, with 2n−2 degrees of freedom. It is
// for one row; the gate's Holm correction over many rows asks for more.
package main

import (
	"fmt"
	"math"
	"os"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tsbench/tsbench/internal/headline"
	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/runsaside RESULTS_DIR LABEL")
		os.Exit(2)
	}
	recs, errs := record.Store{Dir: os.Args[1]}.List()
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "runsaside:", err)
	}
	type series struct {
		name, unit string
		vals       []float64
	}
	var order []string
	by := map[string]*series{}
	add := func(name, unit string, v float64) {
		s, ok := by[name]
		if !ok {
			s = &series{name: name, unit: unit}
			by[name] = s
			order = append(order, name)
		}
		s.vals = append(s.vals, v)
	}
	runs := 0
	for _, r := range recs {
		if r.Label != os.Args[2] || r.Status != record.StatusComplete {
			continue
		}
		runs++
		headline.Each(r, add)
	}
	if runs < 3 {
		fmt.Fprintf(os.Stderr, "runsaside: %d complete runs labelled %q in %s: need at least 3\n", runs, os.Args[2], os.Args[1])
		os.Exit(1)
	}
	mde := func(cv float64, n int) float64 {
		df := float64(2*n - 2)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
		return (t.Quantile(0.975) + t.Quantile(0.8)) * math.Sqrt(2/float64(n)) * cv
	}
	fmt.Printf("%d runs labelled %s: run-to-run spread and the smallest change a comparison can detect (α = 0.05, power 80%%, one row)\n\n", runs, os.Args[2])
	fmt.Println("| figure | median | min | max | CV | detectable at 5 runs a side | at 10 runs a side |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range order {
		s := by[name]
		if len(s.vals) < 3 {
			continue
		}
		sorted := append([]float64(nil), s.vals...)
		sort.Float64s(sorted)
		mean, sd := stat.MeanStdDev(s.vals, nil)
		cv := 100 * sd / mean
		fmt.Printf("| %s (%s) | %.4g | %.4g | %.4g | %.1f%% | %.0f%% | %.0f%% |\n", s.name, s.unit, stat.Quantile(0.5, stat.Empirical, sorted, nil),
			sorted[0], sorted[len(sorted)-1], cv, mde(cv, 5), mde(cv, 10))
	}
}
