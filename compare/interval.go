package compare

import (
	"math"
	"slices"

	"github.com/tsbench/tsbench/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultConfidence is the two-sided confidence of the intervals compare
// prints. Its worse end is a one-sided bound at (1+0.90)/2 = 95%: the
// level at which a row is proven within --fail-above (equivalence testing's
// convention, Schuirmann's two one-sided tests with a 90% interval).
const DefaultConfidence = 0.90

// Interval is a change's confidence interval. For values that are all
// positive it is on the ratio contender/baseline, as percent changes, made
// on log values the way the row's test is made: the mean log-ratio of the
// routine's block pairs (paired), or the difference of the sides' mean
// log values with Welch's degrees of freedom. Otherwise (an error rate of
// 0 in some run) it is on the difference of the means, in the metric's
// unit (Abs).
type Interval struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Level float64 `json:"level"`
	Abs   bool    `json:"absolute,omitempty"`
	// Est is the change the interval is made around, on its scale: the
	// paired runs' mean log-ratio, or the sides' difference of mean logs,
	// as a percent change. It can differ from the change of the sides'
	// medians, and lie where that does not: the verdict shows both.
	Est float64 `json:"estimate"`
}

// estimate is a change on the scale its interval and its gate are made
// on: est ± t(df)·se.
type estimate struct {
	ok      bool
	log     bool
	paired  bool
	est, se float64
	df      float64
	// n and the per-run variances project the standard error onto more
	// runs (runsNeeded): paired, vd is the log-ratios' variance; unpaired,
	// vb and vc are each side's.
	n          int
	vd, vb, vc float64
	baseMean   float64
	// processes is the server processes the runs were grouped by (0: none,
	// every run its own sample), and per the runs in each on average: the
	// variances above are then of the processes' means, and n runs project
	// onto n/per of them.
	processes int
	per       float64
}

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return len(xs) > 0
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// estimateOf is the change from b to c: paired log-ratios when the row is
// tested in pairs, else Welch's on log values, or on raw values where a
// value is not positive. Each side needs 2 values or more.
//
// Where the runs met two or more server processes a side (a routine that
// restarted its servers, --restart-every), the samples are the processes'
// means, not the runs: the runs of one process share what its start drew
// (the A/As of docs/weekly-regression.md leaned up to 3.5% with one
// process a side, and their intervals left about 2% out), so taking them
// as independent would make the interval too narrow. With one process a
// side, the runs are the samples and the interval is of those processes.
func estimateOf(b, c Cell, paired bool) estimate {
	if len(b.Values) < 2 || len(c.Values) < 2 {
		return estimate{}
	}
	if d, ok := logRatios(b, c); ok && paired {
		n := len(d)
		e := estimate{ok: true, log: true, paired: true, n: n, per: 1}
		if slices.Equal(b.procs, c.procs) {
			if means, _, ok := byProcess(d, b.procs); ok {
				d, e.processes, e.per = means, len(means), float64(n)/float64(len(means))
			}
		}
		m, v := stats.MeanVar(d)
		e.est, e.se, e.df, e.vd = m, math.Sqrt(v/float64(len(d))), float64(len(d)-1), v
		return e
	}
	x, y, isLog := b.Values, c.Values, false
	if allPositive(x) && allPositive(y) {
		x, y, isLog = logs(x), logs(y), true
	}
	e := estimate{ok: true, log: isLog, n: min(len(x), len(y)), per: 1}
	xm, _, okx := byProcess(x, b.procs)
	ym, _, oky := byProcess(y, c.procs)
	if okx && oky {
		e.processes = min(len(xm), len(ym))
		e.per = float64(len(x)+len(y)) / float64(len(xm)+len(ym))
		x, y = xm, ym
	}
	mb, vb := stats.MeanVar(x)
	mc, vc := stats.MeanVar(y)
	e.est, e.vb, e.vc = mc-mb, vb, vc
	e.se, e.df = stats.WelchSE(vb, vc, float64(len(x)), float64(len(y)))
	rb, _ := stats.MeanVar(b.Values)
	e.baseMean = rb
	return e
}

// byProcess is the mean of xs over each server process they were measured
// on (procs, one per value), in the order the processes first appear, and
// for each value the index of its process's mean; ok only where xs met two
// processes or more and some process gave two values or more (otherwise
// the values are the samples already).
func byProcess(xs []float64, procs []int) (means []float64, of []int, ok bool) {
	if len(procs) != len(xs) || slices.Contains(procs, 0) {
		return nil, nil, false
	}
	index := map[int]int{}
	var counts []int
	of = make([]int, len(xs))
	for i, p := range procs {
		g, seen := index[p]
		if !seen {
			g = len(means)
			index[p] = g
			means, counts = append(means, 0), append(counts, 0)
		}
		means[g] += xs[i]
		counts[g]++
		of[i] = g
	}
	if len(means) < 2 || len(means) == len(xs) {
		return nil, nil, false
	}
	for g := range means {
		means[g] /= float64(counts[g])
	}
	return means, of, true
}

// p is the two-sided p-value of no change, from the estimate: the test of
// the same samples as the interval.
func (e estimate) p() float64 {
	switch {
	case e.se == 0 && e.est == 0:
		return 1
	case e.se == 0:
		return 0
	}
	return math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.df}.CDF(-math.Abs(e.est/e.se)))
}

// interval is e's two-sided interval at level, as Interval reports it.
func (e estimate) interval(level float64) *Interval {
	if !e.ok {
		return nil
	}
	h := 0.0
	if e.se > 0 {
		h = stats.TQuantile(1-(1-level)/2, e.df) * e.se
	}
	lo, hi := e.est-h, e.est+h
	if e.log {
		return &Interval{Lo: 100 * math.Expm1(lo), Hi: 100 * math.Expm1(hi), Level: level, Est: 100 * math.Expm1(e.est)}
	}
	return &Interval{Lo: lo, Hi: hi, Level: level, Abs: true, Est: e.est}
}

// worse turns e into the worse direction of metric m: a positive w is a
// change for the worse.
func (e estimate) worse(m Metric) float64 {
	if m.Direction == HigherIsBetter {
		return -e.est
	}
	return e.est
}

// limitOf is the largest change for the worse that still counts as within
// --fail-above pct, on e's scale: log(1+pct) for a slower row, −log(1−pct)
// for a lower throughput; widened by the latency noise floor (--min-abs),
// which says a latency change smaller than that many milliseconds is not a
// change, and for an error rate by ErrorRateFloor percentage points. +Inf
// where no change can exceed it (a throughput cannot fall by 100% or more).
func limitOf(m Metric, e estimate, baseMedian, pct float64, opt Options) float64 {
	rel := pct / 100
	floor := 0.0
	switch {
	case m.Latency:
		floor = opt.MinAbsMS
	case m.Name == "error rate":
		floor = ErrorRateFloor
	}
	if e.log {
		if floor > 0 && baseMedian > 0 {
			rel = math.Max(rel, floor/baseMedian)
		}
		if m.Direction == HigherIsBetter {
			if rel >= 1 {
				return math.Inf(1)
			}
			return -math.Log1p(-rel)
		}
		return math.Log1p(rel)
	}
	return math.Max(rel*math.Abs(e.baseMean), floor)
}

// ErrorRateFloor is the error rate's noise floor in percentage points: a
// change smaller than one operation in a thousand is within any limit,
// as a latency change below --min-abs is.
const ErrorRateFloor = 0.1

// worseEnd is the change for the worse e's interval cannot rule out, at
// one-sided level 1−a: the bound a row is proven within, in percent (or in
// the metric's unit on the raw scale).
func (e estimate) worseEnd(m Metric, a float64) float64 {
	return e.toPct(m, e.upper(m, a))
}

// upper is the one-sided 1−a bound of the change for the worse, on e's
// scale: a row is within a limit when upper is below it.
func (e estimate) upper(m Metric, a float64) float64 {
	w := e.worse(m)
	if e.se > 0 {
		w += stats.TQuantile(1-a, e.df) * e.se
	}
	return w
}

// lower is the one-sided 1−a bound of the change for the worse from
// below: a row's whole interval lies beyond a limit when lower is above it.
func (e estimate) lower(m Metric, a float64) float64 {
	w := e.worse(m)
	if e.se > 0 {
		w -= stats.TQuantile(1-a, e.df) * e.se
	}
	return w
}

// toPct writes a change for the worse w of e's scale as percent (the
// share a throughput fell by, a latency rose by), or as it is on the raw
// scale.
func (e estimate) toPct(m Metric, w float64) float64 {
	if !e.log {
		return w
	}
	if m.Direction == HigherIsBetter {
		return -100 * math.Expm1(-w)
	}
	return 100 * math.Expm1(w)
}

// pBeyond is the one-sided p-value of "worse by more than the limit".
func (e estimate) pBeyond(m Metric, limit float64) float64 {
	w := e.worse(m)
	if math.IsInf(limit, 1) {
		return 1
	}
	if e.se == 0 {
		if w > limit {
			return 0
		}
		return 1
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.df}.CDF(-(w - limit) / e.se)
}

// MaxRunsNeeded is the most runs a side compare projects; a row that
// would need more sits too close to its limit for more runs to settle it.
const MaxRunsNeeded = 100

// runsNeeded is how many runs a side would likely settle a row that is
// neither proven within the limit nor beyond it, if its change and spread
// stay as measured: the interval's worse end below the limit at one-sided
// level 1−aWithin, or the change beyond it at aBeyond. 0 when more than
// MaxRunsNeeded.
func (e estimate) runsNeeded(m Metric, limit, aWithin, aBeyond float64) int {
	return e.runsNeededFrom(e.worse(m), limit, aWithin, aBeyond)
}

// runsNeededFrom is runsNeeded for a change w for the worse, on the
// estimate's scale: with w = 0 it says whether the spread alone, not the
// change's nearness to the limit, puts a row beyond MaxRunsNeeded.
func (e estimate) runsNeededFrom(w, limit, aWithin, aBeyond float64) int {
	per := max(e.per, 1)
	for n := e.n + 1; n <= MaxRunsNeeded; n++ {
		// n runs a side are n/per samples: processes, where the runs were
		// grouped by them.
		fn := float64(n) / per
		if fn < 2 {
			continue
		}
		var se, df float64
		if e.paired {
			se, df = math.Sqrt(e.vd/fn), fn-1
		} else {
			se, df = stats.WelchSE(e.vb, e.vc, fn, fn)
		}
		switch {
		case se == 0:
			return n
		case w < limit && w+stats.TQuantile(1-aWithin, df)*se < limit:
			return n
		case w > limit && (w-limit)/se > stats.TQuantile(1-aBeyond, df):
			return n
		}
	}
	return 0
}
