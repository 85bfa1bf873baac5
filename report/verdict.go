package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/compare"
)

// Summary is what a reviewer reads first, before any table: the gate's
// verdict, the rows worse, the rows inconclusive with the bound each could
// prove, what the rows within were proven within, the server figures gated
// by default, and the telemetry that moved beyond its runs' noise. Without
// --fail-above it says that nothing was judged against a limit.
func Summary(c *compare.Comparison) []string {
	v := c.Verdict
	if v == nil {
		return []string{"No gate: --fail-above was not given, so no row was judged against a limit; the intervals show what the runs can tell."}
	}
	out := []string{v.Headline}
	const most = 8
	list := func(word string, js []compare.Judgement) {
		for i, j := range js {
			if i == most {
				out = append(out, fmt.Sprintf("%s: %d more rows (the tables have them)", word, len(js)-most))
				return
			}
			out = append(out, word+": "+j.Line())
		}
	}
	list("Worse", v.Of(compare.Worse))
	list("Inconclusive", v.Open())
	var within []compare.Judgement
	for _, j := range v.Of(compare.Within) {
		if !j.Server {
			within = append(within, j)
		}
	}
	if len(within) > 0 {
		widest := slices.MaxFunc(within, func(a, b compare.Judgement) int {
			switch {
			case a.Bound < b.Bound:
				return -1
			case a.Bound > b.Bound:
				return 1
			}
			return 0
		})
		widened := slices.ContainsFunc(within, func(j compare.Judgement) bool { return j.Limit > v.FailAbove*(1+1e-9)+1e-9 })
		limit := fmt.Sprintf("%g%%", v.FailAbove)
		if widened {
			limit += " (or the wider limit a latency's noise floor gives it)"
		}
		where := widest.Where()
		if widest.Limit > v.FailAbove*(1+1e-9)+1e-9 {
			where += fmt.Sprintf(", limit %.1f%%", widest.Limit)
		}
		rows := map[bool]string{true: "row; its bound", false: "rows; the widest bound"}[len(within) == 1]
		out = append(out, fmt.Sprintf("Proven within %s: %d %s is %s (%s: %s).", limit, len(within), rows, bound(widest), where, widest.ChangeText()))
	}
	if n := len(v.Of(compare.Better)); n > 0 {
		out = append(out, fmt.Sprintf("Better: %d %s.", n, map[bool]string{true: "row", false: "rows"}[n == 1]))
	}
	if n := len(v.Of(compare.ByRatio)); n > 0 {
		out = append(out, fmt.Sprintf("Judged by their ratio alone (--untested=ratio): %d %s.", n, map[bool]string{true: "row", false: "rows"}[n == 1]))
	}
	for _, j := range v.Rows {
		if j.Server && j.Decision == compare.Within {
			out = append(out, "Server: "+j.Line())
		}
	}
	// Twice the gate's limit: telemetry is many rows of few runs, and an A/A
	// of 4 runs a side on IoTDB put GC pauses (1 → 2) just outside ±10%.
	return append(out, movedTelemetry(c, 2*v.FailAbove)...)
}

func bound(j compare.Judgement) string {
	if j.Interval != nil && j.Interval.Abs {
		return fmt.Sprintf("%+.3g %s", j.Bound, j.Unit)
	}
	return fmt.Sprintf("%.1f%%", j.Bound)
}

// movedTelemetry are the server telemetry rows whose interval lies wholly
// beyond ±limit percent: a change of the server's work larger than the
// gate's limit that its runs' own spread does not explain. Shown, not gated.
func movedTelemetry(c *compare.Comparison, limit float64) []string {
	var out []string
	for _, r := range c.TelemetryRows {
		for i, ch := range r.Contender {
			iv := ch.Interval
			if iv == nil || iv.Abs || math.IsNaN(ch.DiffPct) || !(iv.Lo > limit || iv.Hi < -limit) {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s of %s (%s): %s → %s %s%s", c.Contenders[i].Label, r.Key.Metric, r.Key.Op, r.Key.Phase, num(r.Baseline.Median), num(ch.Median), r.Metric.Unit, compare.ChangeWords(ch.DiffPct, iv)))
		}
	}
	if len(out) == 0 {
		return nil
	}
	const most = 6
	head := fmt.Sprintf("Server telemetry beyond its runs' noise (interval outside ±%g%%; shown, not gated): ", limit)
	if len(out) > most {
		out = append(out[:most], fmt.Sprintf("%d more in the telemetry table", len(out)-most))
	}
	return []string{head + strings.Join(out, "; ") + "."}
}

// intervalCell is a change's interval for a table cell, "" without one.
// Where the medians' change (the Diff % beside it) lies outside it, the
// interval's own estimate comes first, "est. +2.84% [-6.96%, +13.66%]": a
// reader who sees the change outside its interval would otherwise take
// one of them for wrong.
func intervalCell(ch compare.Change) string {
	iv := ch.Interval
	if iv == nil {
		return ""
	}
	if !iv.Abs && outside(ch.DiffPct, iv.Lo, iv.Hi) {
		return "est. " + compare.Pct(iv.Est) + " " + iv.Text()
	}
	return iv.Text()
}

// ratioInterval is the interval as ratios, for the PR layout's ratio
// columns: "[0.98, 1.11]", or " (est. 1.03) [0.93, 1.14]" where the ratio
// of the medians before it lies outside it (as intervalCell).
func ratioInterval(ch compare.Change) string {
	iv := ch.Interval
	if iv == nil || iv.Abs {
		return ""
	}
	lo, hi := 1+iv.Lo/100, 1+iv.Hi/100
	if outside(ch.Ratio, lo, hi) {
		return fmt.Sprintf(" (est. %.2f) [%.2f, %.2f]", 1+iv.Est/100, lo, hi)
	}
	return fmt.Sprintf(" [%.2f, %.2f]", lo, hi)
}

// EstNote is the tables' note on "est.".
const EstNote = "est.: where the change of the medians lies outside its interval, the interval's own estimate is given beside it. The interval is made around the runs' mean log-ratio (within blocks with --paired), which can differ from the change of the medians; the gate judges the interval."

// outside says whether x lies outside [lo, hi] as the tables print them,
// to two decimals (of a percent or of a ratio): no "est." where the printed
// figures look inside.
func outside(x, lo, hi float64) bool {
	r := func(x float64) float64 { return math.Round(100*x) / 100 }
	return !math.IsNaN(x) && !math.IsInf(x, 0) && (r(x) < r(lo) || r(x) > r(hi))
}
