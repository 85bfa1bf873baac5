package compare

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/stats"
)

// blocks makes the runs of a routine: block k's runs share a drift of the
// machine (each block 20% slower than the last), and the contender is
// slower by factor.
func blocks(n int, factor float64) (Side, Side) {
	order := []string{"Q1"}
	var a, b Side
	a.Label, b.Label = "master", "pr"
	for k := 1; k <= n; k++ {
		drift := 10 * math.Pow(1.2, float64(k))
		ra := recordtest.Synthetic("master", uint64(100+k), map[string]float64{"Q1": drift}, order)
		rb := recordtest.Synthetic("pr", uint64(200+k), map[string]float64{"Q1": drift * factor}, order)
		ra.Routine = &record.Routine{Side: "master", Block: k, Position: 1 + k%2}
		rb.Routine = &record.Routine{Side: "pr", Block: k, Position: 2 - k%2}
		a.Runs, b.Runs = append(a.Runs, ra), append(b.Runs, rb)
	}
	// Out of order, as a results folder lists them: pairing sorts by block.
	a.Runs[0], a.Runs[2] = a.Runs[2], a.Runs[0]
	return a, b
}

// TestPairedCancelsSharedDrift: a drift of the machine over the session
// that moves both runs of a block hides a 30% slowdown from the unpaired
// test; tested in pairs within blocks it is found, and an A/A under the
// same drift stays quiet.
func TestPairedCancelsSharedDrift(t *testing.T) {
	o := Options{Alpha: 0.01, MinEffect: 5}
	p := o
	p.Paired = true
	base, slow := blocks(6, 1.3)
	unpaired := row(t, New(base, []Side{slow}, o), "mean latency", "Q1").Contender[0]
	paired := row(t, New(base, []Side{slow}, p), "mean latency", "Q1").Contender[0]
	if unpaired.Paired || unpaired.Verdict == "worse" {
		t.Fatalf("unpaired found the slowdown through the drift: %+v", unpaired)
	}
	if !paired.Paired || paired.Verdict != "worse" || paired.P > 1e-4 || !strings.Contains(paired.Note, "paired") {
		t.Fatalf("paired missed it: %+v", paired)
	}
	cmp := New(base, []Side{slow}, p)
	if v := cmp.Decide(10, UntestedFail); len(v.Of(Worse)) == 0 {
		t.Fatalf("the paired gate passed a 30%% slowdown: %+v", v.Lines())
	}
	if v := New(base, []Side{slow}, o).Decide(10, UntestedFail); len(v.Of(Worse)) != 0 || v.Status != Undetermined {
		t.Fatalf("the unpaired gate saw it through the drift, or passed it: %+v", v.Lines())
	}
	// The gate's threshold in pairs: the slowdown is 30%, not 40%, and
	// the pairs prove it within 40%.
	if v := cmp.Decide(40, UntestedFail); len(v.Of(Worse)) != 0 || v.Status != Passed {
		t.Fatalf("a 30%% slowdown at --fail-above 40: %v", v.Lines())
	}
	base, same := blocks(6, 1)
	for _, r := range New(base, []Side{same}, p).Rows {
		if ch := r.Contender[0]; ch.Verdict == "worse" || ch.Verdict == "better" {
			t.Fatalf("A/A under drift: %s %s", r.Key.Metric, ch.Note)
		}
	}
}

// TestPairedNeedsBlocks: runs made by hand have no blocks; a side with a
// run missing from a block cannot pair. Both are tested unpaired, and
// the comparison says so.
func TestPairedNeedsBlocks(t *testing.T) {
	p := Options{Alpha: 0.01, MinEffect: 5, Paired: true}
	order := []string{"Q1"}
	hand := New(side("a", 1, 5, map[string]float64{"Q1": 5}, order), []Side{side("b", 2, 5, map[string]float64{"Q1": 5}, order)}, p)
	if !strings.Contains(hand.Unpaired, "was not made by bench routine") || hand.Options.Paired {
		t.Fatalf("runs by hand: %q", hand.Unpaired)
	}
	base, slow := blocks(6, 1.3)
	slow.Runs = slow.Runs[1:]
	short := New(base, []Side{slow}, p)
	if !strings.Contains(short.Unpaired, "ran in blocks") {
		t.Fatalf("a missing block: %q", short.Unpaired)
	}
	if ch := row(t, short, "mean latency", "Q1").Contender[0]; ch.Paired {
		t.Fatalf("tested in pairs without pairs: %+v", ch)
	}
}

// processBlocks makes a routine of 12 blocks whose servers were restarted
// every 4 (--restart-every 4): each pair of processes draws a lean of its
// own (the contender 8% slower, then 8% faster, then 6% slower), which
// every block of that pair shares.
func processBlocks(recorded bool) (Side, Side) {
	order := []string{"Q1"}
	lean := []float64{1.08, 0.92, 1.06}
	var a, b Side
	a.Label, b.Label = "master", "pr"
	for k := 1; k <= 12; k++ {
		proc := 1 + (k-1)/4
		ra := recordtest.Synthetic("master", uint64(300+k), map[string]float64{"Q1": 10}, order)
		rb := recordtest.Synthetic("pr", uint64(400+k), map[string]float64{"Q1": 10 * lean[proc-1]}, order)
		ra.Routine = &record.Routine{Side: "master", Block: k, Position: 1 + k%2}
		rb.Routine = &record.Routine{Side: "pr", Block: k, Position: 2 - k%2}
		if recorded {
			ra.Routine.Process, rb.Routine.Process = proc, proc
		}
		a.Runs, b.Runs = append(a.Runs, ra), append(b.Runs, rb)
	}
	return a, b
}

// TestRestartedServersAreTheSamples: where the runs met several server
// processes a side, a row's test and interval take each process's mean as
// one sample (three here, with two degrees of freedom), as a block of one
// process is no independent draw of what its start drew; the interval is
// then the t interval of the three processes' mean log-ratios, wider than
// the twelve blocks' taken one by one. Runs with no process recorded are
// tested block by block, as before.
func TestRestartedServersAreTheSamples(t *testing.T) {
	for _, paired := range []bool{true, false} {
		o := Options{Alpha: 0.01, MinEffect: 5, Paired: paired}
		base, pr := processBlocks(true)
		r := row(t, New(base, []Side{pr}, o), "mean latency", "Q1")
		ch := r.Contender[0]
		if ch.Processes != 3 {
			t.Fatalf("paired=%t: tested over %d processes, want 3: %+v", paired, ch.Processes, ch)
		}
		// The interval by hand, from the three processes' means.
		var means []float64
		for p := 0; p < 3; p++ {
			var s float64
			for k := 4 * p; k < 4*p+4; k++ {
				if paired {
					s += math.Log(ch.Values[k] / r.Baseline.Values[k])
				} else {
					s += math.Log(ch.Values[k])
				}
			}
			means = append(means, s/4)
		}
		var want estimate
		if paired {
			m, v := stats.MeanVar(means)
			want = estimate{ok: true, log: true, est: m, se: math.Sqrt(v / 3), df: 2}
		} else {
			var bm []float64
			for p := 0; p < 3; p++ {
				var s float64
				for k := 4 * p; k < 4*p+4; k++ {
					s += math.Log(r.Baseline.Values[k])
				}
				bm = append(bm, s/4)
			}
			mb, vb := stats.MeanVar(bm)
			mc, vc := stats.MeanVar(means)
			want = estimate{ok: true, log: true, est: mc - mb}
			want.se, want.df = stats.WelchSE(vb, vc, 3, 3)
		}
		w := want.interval(ch.Interval.Level)
		if math.Abs(w.Lo-ch.Interval.Lo) > 1e-9 || math.Abs(w.Hi-ch.Interval.Hi) > 1e-9 {
			t.Fatalf("paired=%t: interval [%.3f, %.3f], want the processes' [%.3f, %.3f]", paired, ch.Interval.Lo, ch.Interval.Hi, w.Lo, w.Hi)
		}
		if math.Abs(ch.P-want.p()) > 1e-12 || ch.P < 0.05 {
			t.Fatalf("paired=%t: p = %g, want the processes' test's %g (no change at 5%%)", paired, ch.P, want.p())
		}
		// The same runs with no process recorded: twelve samples, and a
		// narrower interval than the processes allow.
		base, pr = processBlocks(false)
		flat := row(t, New(base, []Side{pr}, o), "mean latency", "Q1").Contender[0]
		if flat.Processes != 0 || flat.Interval.Hi-flat.Interval.Lo >= ch.Interval.Hi-ch.Interval.Lo {
			t.Fatalf("paired=%t: without processes %d and [%.2f, %.2f], with them [%.2f, %.2f]", paired, flat.Processes, flat.Interval.Lo, flat.Interval.Hi, ch.Interval.Lo, ch.Interval.Hi)
		}
	}
}

// TestOneProcessIsNotGrouped: runs of one process a side, or of a process
// each, are the samples themselves.
func TestOneProcessIsNotGrouped(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	for _, procs := range [][]int{{1, 1, 1, 1}, {1, 2, 3, 4}, {1, 1, 0, 2}, {1, 2}} {
		if m, _, ok := byProcess(xs, procs); ok {
			t.Errorf("processes %v grouped into %v", procs, m)
		}
	}
	if m, of, ok := byProcess(xs, []int{2, 2, 1, 1}); !ok || m[0] != 1.5 || m[1] != 3.5 || !slices.Equal(of, []int{0, 0, 1, 1}) {
		t.Errorf("processes 2 2 1 1: %v %v %t", m, of, ok)
	}
}

// TestRunsNeededCountsProcesses: a row grouped by process projects more
// runs as more processes of the same size; fewer than two processes
// cannot settle it.
func TestRunsNeededCountsProcesses(t *testing.T) {
	grouped := estimate{ok: true, log: true, paired: true, n: 12, vd: 0.0004, processes: 3, per: 4}
	flat := grouped
	flat.processes, flat.per = 0, 1
	limit := math.Log1p(0.03)
	g, f := grouped.runsNeededFrom(0, limit, 0.05, 0.01), flat.runsNeededFrom(0, limit, 0.05, 0.01)
	if g == 0 || f == 0 || g <= f {
		t.Fatalf("runs needed: grouped %d, flat %d", g, f)
	}
	// The grouped projection at g runs: g/4 processes of the processes' variance.
	fn := float64(g) / 4
	if se := math.Sqrt(grouped.vd / fn); stats.TQuantile(0.95, fn-1)*se >= limit {
		t.Fatalf("%d runs a side do not settle it: %g", g, se)
	}
}

// TestProcessSpread: blocks that differ only by their process's lean have
// no variance within and the leans' variance between; blocks that differ
// only within processes, around equal means, have a between estimate
// below 0 by the within variance over the blocks a process.
func TestProcessSpread(t *testing.T) {
	lean := []float64{0.1, -0.1, 0.05}
	var b, c Cell
	for k := 0; k < 12; k++ {
		p := k / 4
		b.Values = append(b.Values, 10)
		c.Values = append(c.Values, 10*math.Exp(lean[p]))
		b.runs, b.procs = append(b.runs, k), append(b.procs, p+1)
	}
	c.runs, c.procs = b.runs, b.procs
	within, between, ok := ProcessSpread(b, Change{Cell: c})
	_, v := stats.MeanVar(lean)
	if !ok || within > 1e-12 || math.Abs(between-v) > 1e-12 {
		t.Fatalf("leans alone: within %g, between %g (want 0 and %g), ok %t", within, between, v, ok)
	}
	// Within each process +5% and −5% by turns: every process's mean is
	// the same.
	for k := range c.Values {
		c.Values[k] = 10 * math.Exp(0.05*float64(1-2*(k%2)))
	}
	within, between, ok = ProcessSpread(b, Change{Cell: c})
	if !ok || math.Abs(within-0.0025*12/9) > 1e-12 || math.Abs(between+within/4) > 1e-12 {
		t.Fatalf("spread within alone: within %g, between %g", within, between)
	}
	b.procs, c.procs = nil, nil
	if _, _, ok := ProcessSpread(b, Change{Cell: c}); ok {
		t.Fatal("runs with no process recorded have a process spread")
	}
}
