// Package stats holds the statistics of comparing benchmark runs, and no
// policy: Welch's and the paired t-test, Holm's correction, a sample's mean
// and variance, Student's t quantiles, the levels of a sequential design
// (Spent). Package compare decides with them
// which rows are worse, within a limit or inconclusive; the scripts that
// measure the tool use the same functions.
package stats

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Welch is the two-sided Welch t-test of samples x and y (unequal
// variances), on the per-run values of two sides. It replaced Mann–Whitney
// U for the gate: at 5 runs a side U can never give p below 2/252 ≈ 0.008,
// which no correction for a hundred rows can accept, while runs of a real
// slowdown differ by many standard errors. Identical constant samples give
// 1; constant samples that differ give 0.
func Welch(x, y []float64) float64 {
	t, df, ok := WelchT(x, y)
	switch {
	case !ok:
		return 1
	case math.IsInf(t, 0):
		return 0
	case t == 0 && df == 0:
		return 1
	}
	return math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t)))
}

// WelchT is Welch's t of mean(y) − mean(x) and its degrees of freedom; ok
// is false when a side has fewer than 2 values. Samples without spread
// give t = ±Inf when the means differ and t = df = 0 when they do not.
func WelchT(x, y []float64) (t, df float64, ok bool) {
	n1, n2 := float64(len(x)), float64(len(y))
	if n1 < 2 || n2 < 2 {
		return 0, 0, false
	}
	m1, v1 := MeanVar(x)
	m2, v2 := MeanVar(y)
	se, df := WelchSE(v1, v2, n1, n2)
	if se == 0 {
		switch {
		case m2 > m1:
			return math.Inf(1), 0, true
		case m2 < m1:
			return math.Inf(-1), 0, true
		}
		return 0, 0, true
	}
	return (m2 - m1) / se, df, true
}

// WelchSE is the standard error of a difference of means of samples of
// n1 and n2 values with variances v1 and v2, and Welch's degrees of
// freedom (n1+n2−2 when neither side varies).
func WelchSE(v1, v2, n1, n2 float64) (se, df float64) {
	se2 := v1/n1 + v2/n2
	if se2 == 0 {
		return 0, n1 + n2 - 2
	}
	return math.Sqrt(se2), se2 * se2 / ((v1/n1)*(v1/n1)/(n1-1) + (v2/n2)*(v2/n2)/(n2-1))
}

// MeanVar is a sample's mean and its variance (n−1 in the divisor).
func MeanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// Holm returns the Holm–Bonferroni adjusted p-values of ps, in their
// order. The gate controls the family-wise error rate — the chance of even
// one false alarm among all gated rows — because one false alarm is enough
// to fail a pull request; Benjamini–Hochberg's false-discovery rate would
// let a share of the alarms be false.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-rank)*ps[i]))
		adj[i] = running
	}
	return adj
}

// PairedT is the t statistic of mean(d) − mu and its degrees of freedom;
// differences without spread give ±Inf (or 0 when the mean is mu).
func PairedT(d []float64, mu float64) (t, df float64) {
	m, v := MeanVar(d)
	n := float64(len(d))
	if v == 0 {
		switch {
		case m > mu:
			return math.Inf(1), n - 1
		case m < mu:
			return math.Inf(-1), n - 1
		}
		return 0, n - 1
	}
	return (m - mu) / math.Sqrt(v/n), n - 1
}

// PairedP is the two-sided p-value of a paired t-test on differences d
// (the log-ratios of the routine's block pairs): is their mean 0?
func PairedP(d []float64) float64 {
	t, df := PairedT(d, 0)
	switch {
	case math.IsInf(t, 0):
		return 0
	case t == 0:
		return 1
	}
	return math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t)))
}

// PairedGreater is the one-sided p-value of mean(d) > mu.
func PairedGreater(d []float64, mu float64) float64 {
	t, df := PairedT(d, mu)
	switch {
	case math.IsInf(t, 1):
		return 0
	case math.IsInf(t, -1), t == 0:
		return 1
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-t)
}

// TQuantile is Student's t quantile p with df degrees of freedom.
func TQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// Median is the middle of xs (the mean of the two middle values of an
// even count); NaN for none.
func Median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Spent is the share of an error level a test at look k of at most looks
// may use, so that a design that looks at its data after every few runs and
// stops when it knows keeps its error rate: an O'Brien–Fleming-type spending
// function (Lan and DeMets), level·(k/looks)², spent as level·(2k−1)/looks²
// at look k. The looks' tests are then combined by Bonferroni's inequality,
// which holds whatever the correlation between them: the chance of any
// false claim over every look, wherever the design stops, is at most the
// sum, level. Early looks spend little (a change must be large to be
// claimed there); the last spends about 2/looks of the level.
func Spent(level float64, k, looks int) float64 {
	if looks <= 1 {
		return level
	}
	k = min(max(k, 1), looks)
	return level * float64(2*k-1) / float64(looks*looks)
}

// SpentRest is what Spent leaves for a look k that ends the design before
// its last (a budget that ran out): the level of look k and of every look
// after it, level·(1−((k−1)/looks)²). Since no look follows, the sum over
// the looks made is still at most level.
func SpentRest(level float64, k, looks int) float64 {
	if looks <= 1 {
		return level
	}
	k = min(max(k, 1), looks)
	return level * (1 - float64((k-1)*(k-1))/float64(looks*looks))
}
