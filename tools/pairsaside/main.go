// Command pairsaside reads the runs of a bench routine (two sides, run in
// blocks) and says, for each headline figure, how much it varies from run
// to run within a side (what Welch's unpaired test sees) and how much the
// ratio of the two sides varies from block to block (what the paired test
// sees), and how many runs a side each test needs to detect a 10% change
// of one row (α = 0.05, power 80%, the test's degrees of freedom; the
// gate's Holm correction over many rows asks for more).
//
//	go run ./tools/pairsaside RESULTS_DIR BASELINE CONTENDER
//
// A drift that moves both runs of a block cancels in the ratio: the paired
// spread is then the smaller, and it pays for the paired test's n−1 degrees
// of freedom (Welch's has about 2n−2).
package main

import (
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tsbench/tsbench/internal/headline"
	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/pairsaside RESULTS_DIR BASELINE CONTENDER")
		os.Exit(2)
	}
	recs, errs := record.Store{Dir: os.Args[1]}.List()
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "pairsaside:", err)
	}
	base, cont := os.Args[2], os.Args[3]
	// figure → side → block → value
	vals := map[string]map[string]map[int]float64{}
	var order []string
	for _, r := range recs {
		if r.Routine == nil || r.Status != record.StatusComplete || r.Label != base && r.Label != cont {
			continue
		}
		headline.Each(r, func(name, _ string, v float64) {
			if vals[name] == nil {
				vals[name] = map[string]map[int]float64{base: {}, cont: {}}
				order = append(order, name)
			}
			vals[name][r.Label][r.Routine.Block] = v
		})
	}
	fmt.Printf("Runs of %s and %s in %s, by block: the spread each test sees (α = 0.05, power 80%%, one row)\n\n", base, cont, os.Args[1])
	fmt.Println("| figure | blocks | spread within a side (CV) | spread of the ratio between blocks | detectable at 6 runs a side, unpaired / paired | runs a side for 10%, unpaired / paired |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, name := range order {
		var lb, lc, d []float64
		for blk, b := range vals[name][base] {
			c, ok := vals[name][cont][blk]
			if !ok || b <= 0 || c <= 0 {
				continue
			}
			lb, lc, d = append(lb, math.Log(b)), append(lc, math.Log(c)), append(d, math.Log(c/b))
		}
		if len(d) < 3 {
			continue
		}
		// Pooled within-side spread of the logs (≈ the CV).
		sdu := math.Sqrt((stat.Variance(lb, nil) + stat.Variance(lc, nil)) / 2)
		sdp := stat.StdDev(d, nil)
		fmt.Printf("| %s | %d | %.1f%% | %.1f%% | %s / %s | %s / %s |\n", name, len(d), 100*sdu, 100*sdp,
			pct(unpaired(sdu, 6)), pct(paired(sdp, 6)), need(func(n int) float64 { return unpaired(sdu, n) }), need(func(n int) float64 { return paired(sdp, n) }))
	}
}

// unpaired and paired are the smallest detectable change, in log units.
func unpaired(sd float64, n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(2*n - 2)}
	return (t.Quantile(0.975) + t.Quantile(0.8)) * math.Sqrt(2/float64(n)) * sd
}

func paired(sd float64, n int) float64 {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	return (t.Quantile(0.975) + t.Quantile(0.8)) * sd / math.Sqrt(float64(n))
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*(math.Exp(x)-1)) }

// need is the fewest runs a side (3 to 100) that detect a 10% change.
func need(mde func(int) float64) string {
	for n := 3; n <= 100; n++ {
		if mde(n) <= math.Log(1.1) {
			return fmt.Sprint(n)
		}
	}
	return "> 100"
}
