package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Paired tests: bench routine runs every side once in each block (A B,
// B A, …), so each contender run has a baseline run beside it. A drift
// over the session (a machine that slows for a minute, a disk that fills)
// moves both runs of a block together; the paired test looks at the
// log-ratio within each block, where that drift cancels, instead of the
// spread of each side's runs, where it does not.

// pairable orders every side's runs by their routine block and says
// whether they pair: every run carries a block, and every side has one
// run in each of the same blocks. Otherwise it says why not.
func pairable(sides []Side) ([]Side, string) {
	out := make([]Side, len(sides))
	var blocks []int
	for i, s := range sides {
		runs := slices.Clone(s.Runs)
		var bs []int
		for _, r := range runs {
			if r.Routine == nil {
				return sides, fmt.Sprintf("run %s of %s was not made by bench routine (it has no block)", r.ID, s.Label)
			}
			bs = append(bs, r.Routine.Block)
		}
		sort.SliceStable(runs, func(a, b int) bool { return runs[a].Routine.Block < runs[b].Routine.Block })
		sort.Ints(bs)
		if i == 0 {
			blocks = bs
		} else if !slices.Equal(bs, blocks) {
			return sides, fmt.Sprintf("%s ran in blocks %v, %s in blocks %v", sides[0].Label, blocks, s.Label, bs)
		}
		if len(slices.Compact(slices.Clone(bs))) != len(bs) {
			return sides, fmt.Sprintf("%s has two runs in one block", s.Label)
		}
		out[i] = Side{Label: s.Label, Runs: runs}
	}
	return out, ""
}

// logRatios are log(c[i]/b[i]) of paired values, false when a pair has a
// value that is not positive (an error rate of 0): such a row is tested
// unpaired.
func logRatios(b, c Cell) ([]float64, bool) {
	// Cells without run positions (server metrics, telemetry) do not pair.
	if len(b.runs) != len(b.Values) || !slices.Equal(b.runs, c.runs) || len(c.Values) != len(b.Values) || len(b.Values) < 2 {
		return nil, false
	}
	d := make([]float64, len(b.Values))
	for i := range d {
		if !(b.Values[i] > 0 && c.Values[i] > 0) || math.IsInf(b.Values[i], 0) || math.IsInf(c.Values[i], 0) {
			return nil, false
		}
		d[i] = math.Log(c.Values[i] / b.Values[i])
	}
	return d, true
}

// ProcessSpread is how a paired row's log-ratios vary within a server
// process and between processes, as variances of one block's log-ratio
// (one-way random effects, the ANOVA estimates): what restarting the
// servers more or less often trades. The between part is negative where
// the processes' means spread less than their blocks alone would make
// them; averaged over many rows, such estimates stay unbiased, which
// rounding each up to 0 would not. ok only where the row pairs and its
// runs met two processes or more, some of them with two blocks or more.
func ProcessSpread(base Cell, ch Change) (within, between float64, ok bool) {
	d, paired := logRatios(base, ch.Cell)
	if !paired || !slices.Equal(base.procs, ch.procs) {
		return 0, 0, false
	}
	means, of, grouped := byProcess(d, base.procs)
	if !grouped {
		return 0, 0, false
	}
	counts := make([]float64, len(means))
	for _, g := range of {
		counts[g]++
	}
	n, e := float64(len(d)), float64(len(means))
	grand := 0.0
	for _, x := range d {
		grand += x / n
	}
	var ssw, ssb, sumSq float64
	for g, m := range means {
		ssb += counts[g] * (m - grand) * (m - grand)
		sumSq += counts[g] * counts[g]
	}
	for i, x := range d {
		ssw += (x - means[of[i]]) * (x - means[of[i]])
	}
	msw, msb := ssw/(n-e), ssb/(e-1)
	n0 := (n - sumSq/n) / (e - 1)
	return msw, (msb - msw) / n0, true
}
