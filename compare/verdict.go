package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/stats"
)

// Decision is what the gate found for one gated row of one contender.
type Decision string

// The decisions. A gate passes when every gated row is Within, Better or
// ByRatio; one Worse row fails it; anything else leaves it inconclusive.
const (
	// Worse: the change for the worse is shown to exceed the limit
	// (one-sided test against the limit, Holm over every gated row).
	Worse Decision = "worse"
	// Within: the interval's worse end is inside the limit: the row is
	// proven no worse than --fail-above.
	Within Decision = "within"
	// Better: significantly better (the change test, Holm-adjusted).
	Better Decision = "better"
	// Inconclusive: neither proven within nor shown beyond.
	Inconclusive Decision = "inconclusive"
	// NotTested: a gated row the runs cannot test (too few runs, no
	// successful operation on a side).
	NotTested Decision = "untested"
	// NotMeasured: a phase whose warm-up took all of it.
	NotMeasured Decision = "not measured"
	// ByRatio: an untested row judged by its ratio alone (--untested=ratio),
	// not beyond the limit.
	ByRatio Decision = "within by its ratio"
)

// Gate statuses, the first word of every report's verdict.
const (
	Passed       = "passed"
	Regression   = "regression"
	Undetermined = "inconclusive"
)

// Judgement is one gated row's decision, with what it rests on.
type Judgement struct {
	Contender string   `json:"contender"`
	Metric    string   `json:"metric"`
	Unit      string   `json:"unit,omitempty"`
	Phase     string   `json:"phase"`
	Operation string   `json:"operation,omitempty"`
	Decision  Decision `json:"decision"`
	// Server marks a server figure (bytes per point) gated by its ratio.
	Server bool `json:"server,omitempty"`
	// Baseline and Contender are the sides' medians, Change their change
	// in percent, Interval its confidence interval.
	Baseline float64   `json:"baseline"`
	Value    float64   `json:"contender_value"`
	Change   float64   `json:"change_pct"`
	Interval *Interval `json:"interval,omitempty"`
	// Limit is the limit the row was judged against, in percent (the
	// threshold, widened by a noise floor); Bound is the change for the
	// worse its interval rules out beyond (proven within Bound), in
	// percent, or in the unit for an interval of differences.
	Limit float64 `json:"limit_pct"`
	Bound float64 `json:"bound,omitempty"`
	// P is the Holm-adjusted p-value of "worse by more than the limit".
	P float64 `json:"p_beyond,omitempty"`
	// Runs is how many runs a side would likely settle an inconclusive
	// row, if its change and spread stay as measured; 0 when more than
	// MaxRunsNeeded.
	Runs int `json:"runs_needed,omitempty"`
	// Beyond marks an inconclusive row whose whole interval lies beyond
	// its limit: worse at the intervals' confidence, but not shown worse by
	// the gate's test (α, corrected by Holm over every gated row). Such a
	// row is likely a regression the runs could not prove, and comes first.
	Beyond bool   `json:"beyond_at_interval,omitempty"`
	Why    string `json:"why,omitempty"`
	// abs says Bound is in the unit, not percent; tested, that P is a
	// test's; wide, that even no change at all would need more than
	// MaxRunsNeeded runs a side to be proven within the limit: the spread,
	// not the change, is what keeps such a row open.
	abs, tested, wide bool
}

// MarshalJSON writes a judgement with its non-finite figures (a change
// from 0 is +inf%) as null, which JSON has no number for.
func (j Judgement) MarshalJSON() ([]byte, error) {
	type plain Judgement
	fin := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		plain
		Baseline *float64 `json:"baseline"`
		Value    *float64 `json:"contender_value"`
		Change   *float64 `json:"change_pct"`
		Limit    *float64 `json:"limit_pct"`
		Bound    *float64 `json:"bound,omitempty"`
		P        *float64 `json:"p_beyond,omitempty"`
	}{plain(j), fin(j.Baseline), fin(j.Value), fin(j.Change), fin(j.Limit), nonZero(fin(j.Bound)), nonZero(fin(j.P))})
}

func nonZero(x *float64) *float64 {
	if x == nil || *x == 0 {
		return nil
	}
	return x
}

// Where names the row: "pr: mean latency of Q1 (query round 1)".
func (j Judgement) Where() string {
	s := j.Metric
	if j.Contender != "" {
		s = j.Contender + ": " + s
	}
	if j.Operation != "" {
		s += " of " + j.Operation
	}
	if j.Phase != "" && j.Phase != "server" {
		s += " (" + j.Phase + ")"
	}
	return s
}

// ChangeText is the medians, the change and its interval: "10.2 → 10.6
// ms, +4.10% [−2.00%, +10.60%]".
func (j Judgement) ChangeText() string {
	return fmt.Sprintf("%s → %s %s%s", num3(j.Baseline), num3(j.Value), j.Unit, ChangeWords(j.Change, j.Interval))
}

// ChangeWords follows "a → b unit" with the medians' change in percent
// and its interval: ", +4.10% [−2.00%, +10.60%]". The interval is made
// around its own estimate (paired log-ratios, mean logs), which the
// medians' change need not be near, and a percent beside an interval that
// leaves it out reads as an error: where the two differ it gives both,
// " (medians: -13.37%), estimated -16.04% [-19.37%, -12.57%]".
func ChangeWords(change float64, iv *Interval) string {
	switch {
	case iv == nil:
		return ", " + Pct(change)
	case !iv.Abs && Pct(iv.Est) != Pct(change):
		return fmt.Sprintf(" (medians: %s), estimated %s %s", Pct(change), Pct(iv.Est), iv.Text())
	}
	return ", " + Pct(change) + " " + iv.Text()
}

// Text is the interval in brackets: percent changes, or differences in
// the unit.
func (iv *Interval) Text() string {
	if iv == nil {
		return ""
	}
	if iv.Abs {
		return fmt.Sprintf("[%s, %s]", signed(iv.Lo), signed(iv.Hi))
	}
	return fmt.Sprintf("[%s, %s]", Pct(iv.Lo), Pct(iv.Hi))
}

func signed(x float64) string {
	if x == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", x)
}

// boundText is what a row is proven within: "+14.2%".
func (j Judgement) boundText() string {
	if j.abs {
		return signed(j.Bound) + " " + j.Unit
	}
	return fmt.Sprintf("%.1f%%", j.Bound)
}

// Line is the row's decision in one line, the words every report uses.
func (j Judgement) Line() string {
	switch j.Decision {
	case Worse:
		if j.Server {
			return fmt.Sprintf("%s is worse: %s, beyond its limit %s%s", j.Where(), j.ChangeText(), pctLimit(j.Limit), why(j.Why))
		}
		if !j.tested {
			return fmt.Sprintf("%s is worse: %s, beyond %s%s", j.Where(), j.ChangeText(), pctLimit(j.Limit), why(j.Why))
		}
		return fmt.Sprintf("%s is worse: %s, beyond %s (p(Holm)=%s)%s", j.Where(), j.ChangeText(), pctLimit(j.Limit), pval(j.P), why(j.Why))
	case Within:
		if j.Server {
			return fmt.Sprintf("%s: %s, within its limit %s%s", j.Where(), j.ChangeText(), pctLimit(j.Limit), why(j.Why))
		}
		return fmt.Sprintf("%s: %s, proven within %s (bound %s)", j.Where(), j.ChangeText(), pctLimit(j.Limit), j.boundText())
	case Better:
		return fmt.Sprintf("%s is better: %s", j.Where(), j.ChangeText())
	case Inconclusive:
		s := fmt.Sprintf("%s: %s, cannot rule out worse by more than %s: proven within %s at most", j.Where(), j.ChangeText(), pctLimit(j.Limit), j.boundText())
		if j.Beyond {
			s = fmt.Sprintf("%s: %s: its interval lies beyond %s, but the gate's test, corrected for every gated row, does not show it worse (p(Holm)=%s)", j.Where(), j.ChangeText(), pctLimit(j.Limit), pval(j.P))
		}
		switch {
		case j.Runs > 0:
			s += fmt.Sprintf("; about %d runs a side would settle it", j.Runs)
		case j.Beyond:
			s += fmt.Sprintf("; more than %d runs a side to show it worse", MaxRunsNeeded)
		case j.wide:
			s += fmt.Sprintf("; more than %d runs a side (its runs spread too widely for this limit even with no change)", MaxRunsNeeded)
		case j.Interval != nil:
			s += fmt.Sprintf("; more than %d runs a side (the change sits near the limit)", MaxRunsNeeded)
		}
		return s + why(j.Why)
	}
	return fmt.Sprintf("%s: %s: %s", j.Where(), j.Decision, j.Why)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func why(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

func pctLimit(x float64) string { return fmt.Sprintf("%g%%", math.Round(x*100)/100) }

// Verdict is the gate's answer over every gated row of every contender,
// the same words in every artefact.
type Verdict struct {
	Status     string      `json:"status"`
	FailAbove  float64     `json:"fail_above_pct"`
	Alpha      float64     `json:"alpha"`
	Confidence float64     `json:"confidence"`
	Headline   string      `json:"headline"`
	Rows       []Judgement `json:"rows"`
}

// Open returns the rows neither within nor worse, the likeliest
// regressions first: the inconclusive rows whose interval lies beyond the
// limit, then the other inconclusive rows by their p-value of "worse by more
// than the limit", then the rows not tested or not measured. A reviewer
// reads the first few; in table order a routine's first were the ingest's
// and the first classes' throughput, not its ingest P90 at +8.25% [+6.14%,
// +10.40%] against a limit of 4.67%.
func (v *Verdict) Open() []Judgement {
	open := v.Of(Inconclusive, NotTested, NotMeasured)
	rank := func(j Judgement) int {
		switch {
		case j.Decision != Inconclusive:
			return 2
		case j.Beyond:
			return 0
		}
		return 1
	}
	slices.SortStableFunc(open, func(a, b Judgement) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 || rank(a) == 2 {
			return c
		}
		return cmp.Compare(a.P, b.P)
	})
	return open
}

// Of returns the judgements with one of the decisions.
func (v *Verdict) Of(ds ...Decision) []Judgement {
	var out []Judgement
	for _, j := range v.Rows {
		if slices.Contains(ds, j.Decision) {
			out = append(out, j)
		}
	}
	return out
}

// Decide applies --fail-above failAbove to every gated row and sets
// c.Verdict, which every report then states first:
//
//   - worse: the one-sided test of "worse by more than the limit" rejects
//     at Alpha after Holm's correction over every gated row of the
//     contender, so the chance of any false alarm stays below Alpha;
//   - within: the worse end of the row's interval (one-sided 1−(1−C)/2,
//     95% by default) is inside the limit. A pass needs every gated row
//     within: an intersection–union test (Berger 1982), whose chance of
//     passing a change beyond the limit is at most 5% without any
//     correction, since each row alone must prove it;
//   - inconclusive otherwise, with the bound the row could prove and the
//     runs a side that would likely settle it.
//
// Deterministic server figures (DeterministicFigures) are gated by their
// median ratio against their own thresholds, and --gate-server names
// against failAbove. untested is --untested's rule for untestable rows.
func (c *Comparison) Decide(failAbove float64, untested string) *Verdict {
	conf := c.Options.confidence()
	aWithin := (1 - conf) / 2
	v := &Verdict{FailAbove: failAbove, Alpha: c.Options.Alpha, Confidence: conf}
	for i, side := range c.Contenders {
		type cand struct {
			j, r  int
			p     float64
			e     estimate
			limit float64
			m     Metric
			ch    Change
		}
		var cands []cand
		for r, row := range c.Rows {
			ch := row.Contender[i]
			if !ch.Gated {
				continue
			}
			j := Judgement{Contender: side.Label, Metric: row.Key.Metric, Unit: row.Metric.Unit, Phase: row.Key.Phase, Operation: row.Key.Op,
				Baseline: row.Baseline.Median, Value: ch.Median, Change: ch.DiffPct, Interval: ch.Interval, Limit: failAbove}
			e := ch.est
			switch {
			case ch.Unmeasured != "":
				j.Decision, j.Why = NotMeasured, ch.Unmeasured
			case ch.Untestable != "" && untested == UntestedRatio && row.Baseline.OK && ch.OK:
				j.Decision, j.Why = ByRatio, "untested: "+ch.Untestable
				if worseBy(row.Metric, ch) > failAbove {
					j.Decision, j.Why = Worse, "by its ratio alone (untested: "+ch.Untestable+")"
				}
			case ch.Untestable != "":
				j.Decision, j.Why = NotTested, ch.Untestable
			case ch.Note == "identical":
				j.Decision, j.Why, j.Change = Within, "identical values", 0
			case !e.ok || len(row.Baseline.Values) < MinRuns || len(ch.Values) < MinRuns:
				j.Decision, j.Why = NotTested, fmt.Sprintf("n=%d+%d: a test needs %d runs a side", len(row.Baseline.Values), len(ch.Values), MinRuns)
			default:
				limit := limitOf(row.Metric, e, row.Baseline.Median, failAbove, c.Options)
				j.Limit = e.toPct(row.Metric, limit)
				j.abs = !e.log
				if !e.log {
					j.Limit = failAbove
				}
				j.Bound = e.worseEnd(row.Metric, aWithin)
				if e.log && j.Limit > failAbove*(1+1e-9)+1e-9 {
					j.Why = fmt.Sprintf("the %s limit widened by the noise floor", pctLimit(failAbove))
				}
				cands = append(cands, cand{j: len(v.Rows), r: r, p: e.pBeyond(row.Metric, limit), e: e, limit: limit, m: row.Metric, ch: ch})
			}
			v.Rows = append(v.Rows, j)
		}
		ps := make([]float64, len(cands))
		for k, cd := range cands {
			ps[k] = cd.p
		}
		adj := stats.Holm(ps)
		for k, cd := range cands {
			j := &v.Rows[cd.j]
			j.P, j.tested = adj[k], true
			switch {
			case adj[k] < c.Options.Alpha:
				j.Decision = Worse
			case cd.ch.Verdict == "better":
				j.Decision = Better
			case cd.e.upper(cd.m, aWithin) < cd.limit:
				j.Decision = Within
			default:
				j.Decision = Inconclusive
				j.Runs = cd.e.runsNeeded(cd.m, cd.limit, aWithin, c.Options.Alpha/float64(len(cands)))
				j.wide = j.Runs == 0 && cd.e.runsNeededFrom(0, cd.limit, aWithin, c.Options.Alpha/float64(len(cands))) == 0
				j.Beyond = cd.e.lower(cd.m, aWithin) > cd.limit
				if ch := &c.Rows[cd.r].Contender[i]; ch.Verdict == "~" {
					ch.Verdict = CannotTell
				}
			}
			if j.abs && j.Decision != Better {
				j.Why = fmt.Sprintf("judged on the difference, in %s (a run has 0)", j.Unit)
			}
		}
	}
	c.decideServer(failAbove, v)
	v.Status, v.Headline = v.status()
	c.Verdict = v
	return v
}

// AtLook is the options of look k of a sequential design of at most looks
// (bench routine --budget): the false alarm's level α and the intervals'
// one-sided error (1−confidence)/2 each spent by stats.Spent, so that over
// every look, wherever the routine stops, the chance of a false "worse" stays
// below α and of a false "within" below (1−confidence)/2.
func (o Options) AtLook(k, looks int) Options { return o.spend(stats.Spent, k, looks) }

// AtLastLook is AtLook for a look k that ends the design before its last
// (bench routine's budget ran out): it spends the levels of look k and of
// every look that will not be made (stats.SpentRest).
func (o Options) AtLastLook(k, looks int) Options { return o.spend(stats.SpentRest, k, looks) }

// spend is the options with α and the intervals' one-sided error each
// spent by share.
func (o Options) spend(share func(level float64, k, looks int) float64, k, looks int) Options {
	alpha := o.Alpha
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	o.Alpha = share(alpha, k, looks)
	o.Confidence = 1 - 2*share((1-o.confidence())/2, k, looks)
	return o
}

func (o Options) confidence() float64 {
	if o.Confidence <= 0 || o.Confidence >= 1 {
		return DefaultConfidence
	}
	return o.Confidence
}

// status is the gate's status and its headline, the sentence every
// artefact starts with.
func (v *Verdict) status() (string, string) {
	worse := v.Of(Worse)
	open := v.Open()
	pass := v.Of(Within, Better, ByRatio)
	switch {
	case len(worse) > 0:
		s := "Gate failed: regression in " + worse[0].Where() + ": " + worse[0].ChangeText()
		s += fmt.Sprintf(", beyond %s", pctLimit(worse[0].Limit))
		if len(worse) > 1 {
			s += fmt.Sprintf(" (and %d more %s)", len(worse)-1, plural(len(worse)-1, "row", "rows"))
		}
		return Regression, s + "."
	case len(v.Rows) == 0:
		return Undetermined, "Gate inconclusive: no row was gated, so nothing was tested (a phase not measured, or no gated metric in these runs)."
	case len(open) > 0:
		var names []string
		for k, j := range open {
			if k == 3 {
				names = append(names, fmt.Sprintf("%d more", len(open)-3))
				break
			}
			names = append(names, j.Contender+": "+j.Metric+" of "+j.Operation)
		}
		found := "no regression was found"
		if beyond := slices.IndexFunc(open, func(j Judgement) bool { return j.Beyond }); beyond >= 0 {
			n := len(slices.DeleteFunc(slices.Clone(open), func(j Judgement) bool { return !j.Beyond }))
			found = fmt.Sprintf("%d %s beyond the limit at the intervals' confidence but %s not shown worse by the gate's test (%s: %s)",
				n, plural(n, "lies", "lie"), plural(n, "is", "are"), open[beyond].Where(), estimateText(open[beyond].Interval))
		}
		return Undetermined, fmt.Sprintf("Gate inconclusive: %d of %d gated rows are neither proven within %s nor shown worse (%s); %s%s.", len(open), len(v.Rows), pctLimit(v.FailAbove), strings.Join(names, ", "), found, settleHint(open))
	}
	return Passed, fmt.Sprintf("Gate passed: all %d gated rows are proven within %s (or better) at %.4g%% confidence each.", len(pass), pctLimit(v.FailAbove), 100*(1-(1-v.Confidence)/2))
}

// estimateText is an interval's estimate and bounds: "+8.25% [+6.14%,
// +10.40%]".
func estimateText(iv *Interval) string {
	if iv.Abs {
		return signed(iv.Est) + " " + iv.Text()
	}
	return Pct(iv.Est) + " " + iv.Text()
}

// settleHint says how many runs a side would likely settle the open rows,
// the most any of them needs, so that an inconclusive headline ends in
// what to do: "; about 42 runs a side would likely settle them". Rows that
// would need more than MaxRunsNeeded are counted apart; rows
// not tested or not measured have no such figure and get no hint.
func settleHint(open []Judgement) string {
	most, near := 0, 0
	for _, j := range open {
		switch {
		case j.Decision != Inconclusive:
			return ""
		case j.Runs == 0:
			near++
		default:
			most = max(most, j.Runs)
		}
	}
	switch {
	case near == 0:
		return fmt.Sprintf("; about %d runs a side would likely settle them", most)
	case most == 0:
		return fmt.Sprintf("; more than %d runs a side would be needed to settle them", MaxRunsNeeded)
	}
	return fmt.Sprintf("; about %d runs a side would likely settle all but %d, which need more than %d", most, near, MaxRunsNeeded)
}

// Lines are the verdict in full: the headline, then every row that is
// not a pass, then how the rows were judged.
func (v *Verdict) Lines() []string {
	out := []string{v.Headline}
	const most = 20
	open := v.Open()
	for i, j := range slices.Concat(v.Of(Worse), open) {
		if i == most {
			out = append(out, fmt.Sprintf("(and %d more rows: the report's JSON has every one)", len(open)+len(v.Of(Worse))-most))
			break
		}
		word := "inconclusive: "
		if j.Decision == Worse {
			word = "worse: "
		}
		out = append(out, word+j.Line())
	}
	return out
}

// Method says how the verdict was reached, in one sentence.
func (v *Verdict) Method() string {
	return fmt.Sprintf("A row is worse when a one-sided test shows it worse by more than %s (Holm over every gated row: any false alarm below α=%.3g); within when its interval's worse end (one-sided %.4g%%) is inside %s, and the gate passes only when every gated row is (an intersection–union test: a false pass at most %.3g%%, no correction needed); inconclusive otherwise. Latency limits are widened by the noise floor (--min-abs), the error rate's by %g percentage points; deterministic server figures are gated by their ratio against thresholds of their own.",
		pctLimit(v.FailAbove), v.Alpha, 100*(1-(1-v.Confidence)/2), pctLimit(v.FailAbove), 100*(1-v.Confidence)/2, ErrorRateFloor)
}
