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
	list("Inconclusive", v.Of(compare.Inconclusive, compare.NotTested, compare.NotMeasured))
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
func intervalCell(ch compare.Change) string {
	if ch.Interval == nil {
		return ""
	}
	return ch.Interval.Text()
}

// ratioInterval is the interval as ratios, for the PR layout's ratio
// columns: "[0.98, 1.11]".
func ratioInterval(ch compare.Change) string {
	iv := ch.Interval
	if iv == nil || iv.Abs {
		return ""
	}
	return fmt.Sprintf(" [%.2f, %.2f]", 1+iv.Lo/100, 1+iv.Hi/100)
}
