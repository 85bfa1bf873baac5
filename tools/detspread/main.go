// Command detspread measures the A/A spread of the server figures compare
// gates by default (compare.DeterministicFigures): over the runs of one
// build in a results folder (a bench routine --aa), each figure's median,
// its range and its largest deviation from the median, as a Markdown row
// beside the threshold compare holds it to. Used by
// tools/deterministic-spread; docs/weekly-regression.md quotes it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
)

func main() {
	results := flag.String("results", "", "the results folder of the runs")
	label := flag.String("label", "", "the first cell of each Markdown row (the database)")
	flag.Parse()
	recs, err := record.Store{Dir: *results}.List()
	if err != nil || len(recs) == 0 {
		fmt.Fprintf(os.Stderr, "detspread: no runs in %q (%v)\n", *results, err)
		os.Exit(2)
	}
	values := map[string][]float64{}
	unit := map[string]string{}
	for _, r := range recs {
		for _, v := range compare.RunServerValues(r) {
			if v.Source == "server" {
				values[v.Figure] = append(values[v.Figure], v.Value)
				unit[v.Figure] = v.Unit
			}
		}
	}
	for _, d := range compare.DeterministicFigures {
		xs := values[d.Name]
		if len(xs) == 0 {
			fmt.Printf("| %s | %s | not reported | | | | %g%% |\n", *label, d.Name, d.Threshold)
			continue
		}
		slices.Sort(xs)
		med := xs[len(xs)/2]
		if len(xs)%2 == 0 {
			med = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
		}
		dev := 0.0
		for _, x := range xs {
			if med != 0 {
				dev = math.Max(dev, 100*math.Abs(x/med-1))
			}
		}
		fmt.Printf("| %s | %s | %d | %.4g %s | %.4g – %.4g | %.2f%% | %g%% |\n", *label, d.Name, len(xs), med, unit[d.Name], xs[0], xs[len(xs)-1], dev, d.Threshold)
	}
}
