package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/stats"
)

// The gate's rules, in one place: bench compare --help and
// docs/weekly-regression.md state them in these words.
const (
	// MinRuns is the fewest runs a side needs for a row to be tested.
	MinRuns = 3
	// tailSamples is the rule for latency rows: each run of both sides must
	// hold at least tailSamples/(1-q) successful operations for percentile
	// q (the mean counts as q = 0), so that P90 rests on 10 operations above
	// it in every run, not on the maximum of a handful (where P90 = P99 =
	// max), a median on 20, and a mean on 10, not on its slowest of 4.
	tailSamples = 10
	// DefaultMinAbsMS is the default latency noise floor: on a shared
	// two-core machine the scheduler alone moves latencies by tenths of a
	// millisecond from run to run, so smaller changes are not judged.
	DefaultMinAbsMS = 0.25
	// DefaultAlpha is the default family-wise significance level. At 0.05
	// the promise would allow one false alarm in twenty comparisons, and a
	// weekly pipeline makes more than twenty; runs on a shared machine are
	// also not the independent samples the test assumes (a slow minute
	// moves neighbouring runs together). Measured through the binary, 0.05
	// let one A/A comparison in 140 fail; 0.01 keeps the 30% slowdown
	// caught every time (docs/weekly-regression.md).
	DefaultAlpha = 0.01
)

// Untested rules: what --fail-above does with a gated row it cannot test.
const (
	UntestedFail  = "fail"  // the gate exits with its own status
	UntestedRatio = "ratio" // the row is judged by its ratio alone
)

// UntestedRules are the values of --untested.
var UntestedRules = []string{UntestedFail, UntestedRatio}

// Check refuses options that would make the verdicts mean something else
// than the user asked for: the options, and when gated the gate's limit
// (--fail-above) and its rule for untested rows (--untested).
func (o Options) Check(failAbove float64, gated bool, untested string) error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	switch {
	case bad(o.Alpha) || o.Alpha <= 0 || o.Alpha >= 1:
		return fmt.Errorf("--alpha=%g: a significance level is between 0 and 1, exclusive (e.g. 0.01)", o.Alpha)
	case gated && (bad(failAbove) || failAbove < 0):
		return fmt.Errorf("--fail-above=%g: a percentage of 0 or more (e.g. 10)", failAbove)
	case bad(o.Confidence) || o.Confidence <= 0 || o.Confidence >= 1:
		return fmt.Errorf("--confidence=%g: a confidence level is between 0 and 1, exclusive (e.g. 0.90)", o.Confidence)
	case bad(o.MinEffect) || o.MinEffect < 0:
		return fmt.Errorf("--min-effect=%g: a percentage of 0 or more (e.g. 5)", o.MinEffect)
	case bad(o.MinAbsMS) || o.MinAbsMS < 0:
		return fmt.Errorf("--min-abs=%g: milliseconds, 0 or more (0 judges every change)", o.MinAbsMS)
	case len(o.GateServer) > 0 && !gated:
		return fmt.Errorf("--gate-server %q: it gates with --fail-above N, which is not given", o.GateServer[0])
	case !slices.Contains(UntestedRules, untested):
		return fmt.Errorf("--untested=%s is not a rule (valid: %s)", untested, strings.Join(UntestedRules, ", "))
	}
	return nil
}

// neededSamples is how many successful operations every run must hold for
// percentile q to be gated.
func neededSamples(q float64) int64 {
	return int64(math.Ceil(tailSamples/(1-q/100) - 1e-6))
}

// gated says whether a metric's change is judged and gated, and if not, why.
func gated(m Metric, fewest int64) (bool, string) {
	switch {
	case m.Direction == Neutral:
		return false, ""
	case m.Quantile >= 100:
		return false, "not gated: the maximum is one operation"
	case m.Latency && m.Quantile == 0 && fewest < tailSamples:
		// A mean of four operations is the slowest of them, mostly.
		return false, fmt.Sprintf("not gated: too few samples for a mean (%d in the smallest run, needs %d)", fewest, tailSamples)
	case m.Quantile >= 50:
		if need := neededSamples(m.Quantile); fewest < need {
			return false, fmt.Sprintf("not gated: too few samples for P%g (%d in the smallest run, needs %d)", m.Quantile, fewest, need)
		}
	}
	return true, ""
}

// decide gives every gated, tested change of contender ci its verdict from
// the Holm-adjusted p-values of all of them.
func decide(rows []Row, ci int, opt Options) {
	type ref struct{ r, c int }
	var tested []ref
	var ps []float64
	for r := range rows {
		if ch := &rows[r].Contender[ci]; ch.Tested {
			tested = append(tested, ref{r, ci})
			ps = append(ps, ch.P)
		}
	}
	adj := stats.Holm(ps)
	for i, t := range tested {
		row := &rows[t.r]
		ch := &row.Contender[t.c]
		ch.AdjP = adj[i]
		ch.Verdict = "~"
		ch.Note = fmt.Sprintf("p=%s p(Holm)=%s n=%d+%d", pval(ch.P), pval(ch.AdjP), len(row.Baseline.Values), len(ch.Values))
		if ch.Paired {
			ch.Note += " paired"
		}
		if ch.Processes > 0 {
			ch.Note += fmt.Sprintf(" by %d server processes", ch.Processes)
		}
		if ch.AdjP >= opt.Alpha {
			continue
		}
		if math.Abs(ch.DiffPct) < opt.MinEffect {
			ch.Note += fmt.Sprintf(", significant but below --min-effect %g%%", opt.MinEffect)
			continue
		}
		better := ch.Diff > 0
		if row.Metric.Direction == LowerIsBetter {
			better = ch.Diff < 0
		}
		ch.Verdict = "worse"
		if better {
			ch.Verdict = "better"
		}
	}
}

func pval(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

// worseBy is how many percent a change goes in the metric's worse
// direction (negative when it improved).
func worseBy(m Metric, ch Change) float64 {
	if math.IsNaN(ch.DiffPct) {
		return 0
	}
	if m.Direction == HigherIsBetter {
		return -ch.DiffPct
	}
	return ch.DiffPct
}

// Differences names what differs between the sides besides the build under
// test — another database, another build of tsbench, another workload
// (compared with --force), another machine — so that every report format
// says it at the top.
func (c *Comparison) Differences() []string {
	if len(c.Baseline.Runs) == 0 {
		return nil
	}
	b := c.Baseline.Runs[0]
	what := []struct {
		name string
		of   func(*record.Record) string
	}{
		{"database", databaseOf},
		{"tsbench build", func(r *record.Record) string { return r.Tool.Version }},
		{"workload", func(r *record.Record) string { return r.Fingerprint }},
		{"host", func(r *record.Record) string {
			return fmt.Sprintf("%s (%d CPUs)", r.Host.Hostname, r.Host.CPUs)
		}},
	}
	var out []string
	for _, w := range what {
		seen := map[string][]string{w.of(b): nil}
		order := []string{w.of(b)}
		for _, s := range append([]Side{c.Baseline}, c.Contenders...) {
			for _, r := range s.Runs {
				v := w.of(r)
				if _, ok := seen[v]; !ok {
					order = append(order, v)
				}
				if !slices.Contains(seen[v], s.Label) {
					seen[v] = append(seen[v], s.Label)
				}
			}
		}
		if len(order) < 2 {
			continue
		}
		var parts []string
		for _, v := range order {
			parts = append(parts, fmt.Sprintf("%q in %s", v, strings.Join(seen[v], ", ")))
		}
		out = append(out, fmt.Sprintf("Different %s: %s.", w.name, strings.Join(parts, "; ")))
	}
	return out
}

// databaseOf names the database a run measured: the driver's name, or the
// distribution the server reported when one driver speaks to several
// (Elasticsearch's driver, "OpenSearch 2.19.6").
func databaseOf(r *record.Record) string {
	if f := strings.Fields(r.Target.Version); len(f) > 1 && f[0] != r.Target.DB && strings.IndexAny(f[0][:1], "0123456789") < 0 {
		return f[0]
	}
	return r.Target.DB
}
