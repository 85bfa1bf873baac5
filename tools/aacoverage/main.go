// Command aacoverage asks of A/A routines whether their intervals cover
// what they claim to. Each routine folder (bench routine --out) holds the
// verdict of its last look (report.json); in an A/A every gated row's true
// change is 0, so an interval of level L excludes 0 in about 1−L of the
// rows if it holds every source of variation. Across routines, a row's
// estimates should spread as its intervals say: the standard deviation of
// a row's estimates over the routines, against the root mean square of
// the standard errors its intervals imply, is about 1 if they do. What
// the intervals leave out shows as an excess: the standard deviation that,
// added in quadrature, would make up the difference (in percent).
//
//	go run ./tools/aacoverage ROUTINE_DIR...
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/aacoverage ROUTINE_DIR...")
		os.Exit(2)
	}
	var routines []routine
	for _, dir := range os.Args[1:] {
		r, err := load(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "aacoverage:", err)
			os.Exit(1)
		}
		routines = append(routines, r)
	}
	write(os.Stdout, routines)
}

// routine is one A/A routine's last verdict.
type routine struct {
	name string
	rows []compare.Judgement
}

func load(dir string) (routine, error) {
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return routine{}, fmt.Errorf("%s: %w (a routine's folder holds report.json)", dir, err)
	}
	var rep struct {
		Verdict *compare.Verdict `json:"verdict"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Verdict == nil {
		return routine{}, fmt.Errorf("%s/report.json: no verdict (%v)", dir, err)
	}
	return routine{name: dir, rows: rep.Verdict.Rows}, nil
}

// interval is a row's interval with its standard error, in percent: a
// gated row of ratios whose interval is not a point.
func interval(j compare.Judgement) (est, se float64, ok bool) {
	it := j.Interval
	if it == nil || it.Abs || it.Hi <= it.Lo || it.Level <= 0 || it.Level >= 1 {
		return 0, 0, false
	}
	z := distuv.UnitNormal.Quantile(1 - (1-it.Level)/2)
	return it.Est, (it.Hi - it.Lo) / (2 * z), true
}

func write(w io.Writer, routines []routine) {
	fmt.Fprintln(w, "| routine | rows with an interval | its level (median) | intervals that exclude 0 | expected if they cover |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	type key struct{ metric, phase, op string }
	byRow := map[key][][2]float64{}
	var n, out int
	var expected float64
	for _, r := range routines {
		var levels []float64
		k := 0
		for _, j := range r.rows {
			est, se, ok := interval(j)
			if !ok {
				continue
			}
			levels = append(levels, j.Interval.Level)
			if j.Interval.Lo > 0 || j.Interval.Hi < 0 {
				k++
			}
			id := key{j.Metric, j.Phase, j.Operation}
			byRow[id] = append(byRow[id], [2]float64{est, se})
		}
		if len(levels) == 0 {
			fmt.Fprintf(w, "| %s | 0 | — | — | — |\n", r.name)
			continue
		}
		lv := stats.Median(levels)
		e := 0.0
		for _, l := range levels {
			e += 1 - l
		}
		n, out, expected = n+len(levels), out+k, expected+e
		fmt.Fprintf(w, "| %s | %d | %.4f | %d (%.1f%%) | %.1f |\n", r.name, len(levels), lv, k, 100*float64(k)/float64(len(levels)), e)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "| all | %d | | %d (%.1f%%) | %.1f |\n\n", n, out, 100*float64(out)/float64(n), expected)

	// Across routines: a row's estimates against its intervals' errors.
	var ratios, excess []float64
	for _, xs := range byRow {
		if len(xs) < 3 {
			continue
		}
		ests := make([]float64, len(xs))
		var se2 float64
		for i, x := range xs {
			ests[i] = x[0]
			se2 += x[1] * x[1] / float64(len(xs))
		}
		sd := stat.StdDev(ests, nil)
		ratios = append(ratios, sd/math.Sqrt(se2))
		excess = append(excess, math.Sqrt(math.Max(sd*sd-se2, 0)))
	}
	if len(ratios) == 0 {
		fmt.Fprintln(w, "No row has an interval in 3 or more routines: nothing to compare across them.")
		return
	}
	fmt.Fprintf(w, "Across the %d routines, %d rows with an interval in at least 3 of them:\n", len(routines), len(ratios))
	fmt.Fprintf(w, "- a row's estimates spread %s times as widely as its intervals say (median [quartiles]; 1 if they cover)\n", quartiles(ratios, 2))
	fmt.Fprintf(w, "- what the intervals leave out, as a standard deviation added in quadrature: %s%% (median [quartiles])\n", quartiles(excess, 2))
}

// quartiles is "median [first quartile, third quartile]" of xs.
func quartiles(xs []float64, prec int) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) float64 { return stat.Quantile(p, stat.LinInterp, s, nil) }
	return fmt.Sprintf("%.*f [%.*f, %.*f]", prec, q(0.5), prec, q(0.25), prec, q(0.75))
}
