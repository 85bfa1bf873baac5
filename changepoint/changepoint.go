// Package changepoint finds where a series of benchmark results changed
// level: E-divisive means (Matteson and James) over sliding windows, each
// candidate kept while a two-sided Student's t-test between its neighbours
// finds the levels different, then the weak candidates merged away, as in
// "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions" (Fleming et al., 2023), the method of Apache Otava. The same
// input gives the same change points: nothing is drawn at random.
package changepoint

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Options are the method's parameters, Otava's names and defaults.
type Options struct {
	// Window is how many points one E-divisive pass looks at (window_len,
	// 50); the windows step by half of it.
	Window int `json:"window"`
	// MaxP is the p-value a change point must be below (max_pvalue,
	// 0.001). The windows' pass keeps weak candidates at a looser level
	// (ten times it below 0.05), which the merge then holds to MaxP.
	MaxP float64 `json:"max_p"`
	// MinMagnitude is the relative change a change point must exceed
	// (min_magnitude, 0: any).
	MinMagnitude float64 `json:"min_magnitude"`
}

// Defaults are Otava's defaults.
var Defaults = Options{Window: 50, MaxP: 0.001}

// Check says what is wrong with the options, in the words of a flag.
func (o Options) Check() error {
	switch {
	case o.Window < 2:
		return fmt.Errorf("window %d: at least 2 points", o.Window)
	case !(o.MaxP > 0 && o.MaxP < 1):
		return fmt.Errorf("p-value %g: between 0 and 1, exclusive", o.MaxP)
	case !(o.MinMagnitude >= 0) || math.IsInf(o.MinMagnitude, 0):
		return fmt.Errorf("minimum magnitude %g: 0 or more", o.MinMagnitude)
	}
	return nil
}

// Change is a change point: Index is the first point of the new level.
type Change struct {
	Index int `json:"index"`
	// The levels on each side, between the change points around it, with
	// their standard deviations (of the population, as Otava's), and the
	// t-test's p-value.
	MeanBefore float64 `json:"mean_before"`
	MeanAfter  float64 `json:"mean_after"`
	StdBefore  float64 `json:"std_before"`
	StdAfter   float64 `json:"std_after"`
	P          float64 `json:"p"`
}

// Relative is the change from the level before to the level after, as a
// fraction (0.1 is 10% higher); 0 where the level before is 0.
func (c Change) Relative() float64 {
	if c.MeanBefore == 0 {
		return 0
	}
	return c.MeanAfter/c.MeanBefore - 1
}

// magnitude is the larger of the relative changes either way.
func (c Change) magnitude() float64 {
	back := 0.0
	if c.MeanAfter != 0 {
		back = c.MeanBefore/c.MeanAfter - 1
	}
	return max(math.Abs(c.Relative()), math.Abs(back))
}

// Find returns the change points of series, in order.
func Find(series []float64, o Options) ([]Change, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	weak := split(series, o.Window, firstPass(o.MaxP))
	return merge(weak, series, o.MaxP, o.MinMagnitude), nil
}

// firstPass is the looser level of the windows' pass.
func firstPass(p float64) float64 {
	switch {
	case p < 0.05:
		return p * 10
	case p < 0.5:
		return p * 2
	}
	return p
}

// split runs E-divisive means on each window, windows half a window apart
// (the next starting at the last change point found, when that is
// further), and keeps the union of what they found, each with its test
// against its neighbours over the whole series.
func split(series []float64, window int, maxP float64) []Change {
	var idx []int
	step := window / 2
	for start := 0; start < len(series); {
		end := min(start+window, len(series))
		found := divisive(series[start:end], maxP)
		last := 0
		for _, i := range found {
			if !slices.Contains(idx, start+i) {
				idx = append(idx, start+i)
			}
			last = start + i
		}
		start = max(last, start+step)
	}
	slices.Sort(idx)
	out := make([]Change, len(idx))
	for k := range idx {
		out[k] = test(series, around(idx, k, len(series)))
	}
	return out
}

// span is a change point at and the change points around it, lo and hi
// (the series' start and end where there is none).
type span struct{ lo, at, hi int }

// around is change point k with the points on each side of it: from the
// one before it (or the start) to the one after (or the end).
func around(idx []int, k, n int) span {
	sp := span{0, idx[k], n}
	if k > 0 {
		sp.lo = idx[k-1]
	}
	if k+1 < len(idx) {
		sp.hi = idx[k+1]
	}
	return sp
}

// divisive is E-divisive means on one window: the most likely split of
// its segments one after another, while the split's t-test is below maxP.
func divisive(w []float64, maxP float64) []int {
	var cps []int // sorted
	for {
		bounds := append(append([]int{0}, cps...), len(w))
		best, bestQ, seg := 0, math.Inf(-1), -1
		for k := 0; k+1 < len(bounds); k++ {
			if bounds[k+1]-bounds[k] < 2 {
				continue
			}
			if i, q := candidate(w, bounds[k], bounds[k+1]); q > bestQ {
				best, bestQ, seg = i, q, k
			}
		}
		// A NaN p-value (no spread and no difference) is no evidence.
		if seg < 0 || !(test(w, span{bounds[seg], best, bounds[seg+1]}).P <= maxP) {
			return cps
		}
		cps = append(cps[:seg:seg], append([]int{best}, cps[seg:]...)...)
	}
}

// candidate finds, in w[s:e], the split τ and the end κ that maximise
// E-divisive's Q of X = w[s:τ] against Y = w[τ:κ]:
//
//	Q = 2/(n+m) Σ|X_i−Y_j| − 2m/(n+m)/(n−1) Σ_{i<k}|X_i−X_k| − 2n/(n+m)/(m−1) Σ_{j<k}|Y_j−Y_k|
//
// (a term with a divisor of 0 is 0). As Otava's matrix of Q, whose lower
// half is 0, the first largest in the order τ, then κ wins.
func candidate(w []float64, s, e int) (int, float64) {
	// The sums run, as in Otava's matrix of Q, so that the whole search is
	// O(size²): summing every pair again for each (τ, κ), O(size³), spent
	// a third of bench history's time on 10,000 runs (TestCandidate holds
	// the two to the same split).
	size := e - s - 1
	if size <= 0 {
		return 0, math.Inf(-1)
	}
	l := e - s
	// toY[y−s] is Σ_{s≤i<τ} |w_i − w_y| at the current τ; inY[(y−s)·l+τ−s]
	// is Σ_{τ≤j<y} |w_j − w_y|, summed from y down so that nothing is
	// subtracted.
	toY := make([]float64, l)
	inY := make([]float64, l*l)
	for y := s + 1; y < e; y++ {
		row := inY[(y-s)*l : (y-s+1)*l]
		sum := 0.0
		for j := y - 1; j > s; j-- {
			sum += math.Abs(w[j] - w[y])
			row[j-s] = sum
		}
	}
	// The matrix's lower half (κ ≤ τ) holds 0, which never wins: the first
	// row's first Q, |w_s − w_{s+1}|, is already 0 or more.
	bestQ := math.Inf(-1)
	best := 0
	withinX := 0.0
	for tau := s + 1; tau < e; tau++ {
		x := tau - 1 // the point X gained
		for i := s; i < x; i++ {
			withinX += math.Abs(w[i] - w[x])
		}
		for y := tau; y < e; y++ {
			toY[y-s] += math.Abs(w[x] - w[y])
		}
		n := float64(tau - s)
		cross, withinY := 0.0, 0.0
		for kappa := tau + 1; kappa <= e; kappa++ {
			y := kappa - 1 // the point Y gains
			cross += toY[y-s]
			withinY += inY[(y-s)*l+tau-s]
			if q := energy(n, float64(kappa-tau), cross, withinX, withinY); q > bestQ {
				best, bestQ = tau, q
			}
		}
	}
	return best, bestQ
}

// energy is Q of n points against m from the sums of their distances:
// across, within the n and within the m.
func energy(n, m, cross, withinX, withinY float64) float64 {
	q := 2 / (n + m) * cross
	if n > 1 {
		q -= 2 * m / (n + m) / (n - 1) * withinX
	}
	if m > 1 {
		q -= 2 * n / (n + m) / (m - 1) * withinY
	}
	return q
}

// test compares series[lo:at] with series[at:hi]: Student's two-sided
// t-test of equal variances, on the populations' standard deviations as
// Otava passes them.
func test(series []float64, sp span) Change {
	l, r := series[sp.lo:sp.at], series[sp.at:sp.hi]
	c := Change{Index: sp.at, P: 1}
	c.MeanBefore, c.StdBefore = meanStd(l)
	c.MeanAfter, c.StdAfter = meanStd(r)
	n1, n2 := float64(len(l)), float64(len(r))
	if n1+n2 <= 2 {
		return c
	}
	df := n1 + n2 - 2
	pooled := ((n1-1)*c.StdBefore*c.StdBefore + (n2-1)*c.StdAfter*c.StdAfter) / df
	se := math.Sqrt(pooled * (1/n1 + 1/n2))
	t := (c.MeanBefore - c.MeanAfter) / se
	switch {
	case dust(c.MeanBefore, c.MeanAfter):
		// Levels that differ in their last bits differ by rounding, not
		// by a change: a flat series found "+0.0%" changes at a loose p.
		c.P = math.NaN()
	case pooled == 0 && (n1 < 2 || n2 < 2):
		// One point a side and no spread on the other: nothing says how
		// far a single point strays, and p = 0 claimed certainty.
		c.P = math.NaN()
	case math.IsNaN(t):
		c.P = math.NaN() // no spread and no difference: no evidence either way
	case math.IsInf(t, 0):
		c.P = 0
	default:
		c.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t))
	}
	return c
}

// dust says whether two levels are equal but for rounding: a relative
// difference below 1e-12, some ten thousand times a float64's precision.
func dust(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*max(math.Abs(a), math.Abs(b))
}

func meanStd(v []float64) (mean, std float64) {
	if len(v) > 0 && !slices.ContainsFunc(v, func(x float64) bool { return x != v[0] }) {
		return v[0], 0 // exact: a sum divided back can miss it by a bit
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// merge drops the weakest change point while one is not significant at
// maxP (the largest p-value first) or, once all are, while the smallest
// change is not above minMagnitude, and tests again the change points
// after the dropped one against their neighbours. That is what Otava does
// (its merge recomputes the points at the dropped one's place and the
// next, not the one before), and this follows it so that the two agree.
// Comparisons with NaN are false, as in Python's max and min.
func merge(cps []Change, series []float64, maxP, minMagnitude float64) []Change {
	for len(cps) > 0 {
		weakest := 0
		for k, c := range cps {
			if c.P > cps[weakest].P {
				weakest = k
			}
		}
		if cps[weakest].P < maxP {
			weakest = 0
			for k, c := range cps {
				if c.magnitude() < cps[weakest].magnitude() {
					weakest = k
				}
			}
			if cps[weakest].magnitude() > minMagnitude {
				return cps
			}
		}
		cps = slices.Delete(cps, weakest, weakest+1)
		idx := make([]int, len(cps))
		for k, c := range cps {
			idx[k] = c.Index
		}
		for _, k := range []int{weakest, weakest + 1} {
			if k < len(cps) {
				cps[k] = test(series, around(idx, k, len(series)))
			}
		}
	}
	return cps
}
