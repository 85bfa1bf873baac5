// Command aabias reads bench compare --format json of an A/A comparison on
// its standard input and says whether the contender sits on one side of
// the baseline more often than chance allows: the per-class ratios of a
// metric (default the median latency), their median, how many lie above
// and below 1, and the two-sided sign test over the classes. Used by
// tools/routine-aa.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/routine"
	"github.com/tsbench/tsbench/stats"
)

func main() {
	metric := flag.String("metric", "50th percentile latency", "the rows to read")
	label := flag.String("label", "", "the first cell of the Markdown row")
	records := flag.String("records", "", "measure the drift over the runs in this results folder instead")
	fixed := flag.Int("fixed-seed", 0, "print an --order-seed whose order of this many runs a side is the fixed rhythm A B, B A, A B, B A, …")
	flag.Parse()
	if *fixed > 0 {
		fmt.Println(fixedSeed(*fixed))
		return
	}
	if *records != "" {
		drift(*records, *label)
		return
	}
	var cmp struct {
		Rows []struct {
			Metric     string `json:"metric"`
			Operation  string `json:"operation"`
			Contenders []struct {
				Ratio *float64 `json:"ratio"`
			} `json:"contenders"`
		} `json:"rows"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&cmp); err != nil {
		fmt.Fprintf(os.Stderr, "aabias: read the comparison: %v\n", err)
		os.Exit(2)
	}
	var ratios []float64
	for _, r := range cmp.Rows {
		if r.Metric != *metric || len(r.Contenders) == 0 || r.Contenders[0].Ratio == nil {
			continue
		}
		if x := *r.Contenders[0].Ratio; x > 0 && !math.IsInf(x, 0) {
			ratios = append(ratios, x)
		}
	}
	if len(ratios) == 0 {
		fmt.Fprintf(os.Stderr, "aabias: no %q rows with a ratio\n", *metric)
		os.Exit(2)
	}
	above, below := 0, 0
	for _, x := range ratios {
		switch {
		case x > 1:
			above++
		case x < 1:
			below++
		}
	}
	sort.Float64s(ratios)
	med := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		med = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	// Sign test: under no bias each class is above 1 with probability 1/2.
	n := above + below
	k := min(above, below)
	p := 1.0
	if n > 0 {
		p = math.Min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(k)))
	}
	fmt.Printf("| %s | %d | %.3f | %d | %d | %.3g |\n", *label, len(ratios), med, above, below, p)
}

// drift prints a Markdown row: the runs' slowness in start order and its
// slope in percent a run.
func drift(dir, label string) {
	recs, errs := record.Store{Dir: dir}.List()
	if len(errs) > 0 || len(recs) < 2 {
		fmt.Fprintf(os.Stderr, "aabias: %s: %d runs, %v\n", dir, len(recs), errs)
		os.Exit(2)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].StartedAt.Before(recs[j].StartedAt) })
	per := make([]map[string]float64, len(recs))
	sum := map[string]float64{}
	count := map[string]int{}
	for i, r := range recs {
		per[i] = map[string]float64{}
		for pi := range r.Phases {
			p := &r.Phases[pi]
			for _, op := range p.Operations {
				if v := op.Percentile(50); v > 0 {
					k := p.Group() + "/" + op.Operation
					per[i][k] = v
					sum[k] += math.Log(v)
					count[k]++
				}
			}
		}
	}
	var slow []float64
	var cells []string
	for i := range recs {
		s, n := 0.0, 0
		for k, v := range per[i] {
			if count[k] == len(recs) {
				s += math.Log(v) - sum[k]/float64(count[k])
				n++
			}
		}
		x := math.Exp(s / float64(max(n, 1)))
		slow = append(slow, x)
		cells = append(cells, fmt.Sprintf("%s %.2f", recs[i].Label, x))
	}
	// Least squares through (i, log slowness): percent a run.
	var sx, sy, sxx, sxy float64
	for i, x := range slow {
		fi, ly := float64(i), math.Log(x)
		sx, sy, sxx, sxy = sx+fi, sy+ly, sxx+fi*fi, sxy+fi*ly
	}
	n := float64(len(slow))
	b := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	// The run-level test: one value a run, so the classes of a run do not
	// count as independent samples (the sign test over classes does).
	by := map[string][]float64{}
	var labels []string
	for i, r := range recs {
		if _, ok := by[r.Label]; !ok {
			labels = append(labels, r.Label)
		}
		by[r.Label] = append(by[r.Label], math.Log(slow[i]))
	}
	side := "n/a"
	if len(labels) == 2 {
		x, y := by[labels[0]], by[labels[1]]
		mx, _ := stats.MeanVar(x)
		my, _ := stats.MeanVar(y)
		side = fmt.Sprintf("%s/%s %.3f (Welch p=%.2g)", labels[1], labels[0], math.Exp(my-mx), stats.Welch(x, y))
	}
	fmt.Printf("| %s | %+.2f%% a run | %s | %s |\n", label, 100*(math.Exp(b)-1), side, strings.Join(cells, ", "))
}

// fixedSeed finds a seed for which the routine's drawn order of two sides
// is the old fixed rhythm: every pair of blocks A B then B A.
func fixedSeed(runs int) uint64 {
	for seed := uint64(0); ; seed++ {
		ok := true
		for i, sl := range routine.Order(2, runs, seed) {
			block, pos := i/2, i%2
			want := pos
			if block%2 == 1 {
				want = 1 - pos
			}
			if sl.Side != want {
				ok = false
				break
			}
		}
		if ok {
			return seed
		}
	}
}
