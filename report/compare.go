package report

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/config"
)

// opLabel names an operation with its phase when the phase is not the
// run's only one.
func opLabel(k compare.Key) string {
	if k.Phase == "main" {
		return k.Op
	}
	return k.Op + " [" + k.Phase + "]"
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	a := math.Abs(x)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x == math.Trunc(x) && a < 1e15:
		// A count (segments, operations) or its median of whole numbers:
		// "29", not "29.00".
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func ratio(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return "inf"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// withZero is a change's note, saying why a ratio is 0 (−100%): the
// contender's value is 0 where the baseline's was not.
func withZero(base compare.Cell, ch compare.Change) string {
	if !base.OK || !ch.OK || ch.Median != 0 || base.Median == 0 {
		return ch.Note
	}
	if ch.Note == "" {
		return "0 on the contender"
	}
	return ch.Note + "; 0 on the contender"
}

func cellText(c compare.Cell) string {
	if !c.OK {
		return "-"
	}
	return num(c.Median)
}

// RallyTables renders the comparison in Rally's layout (Metric, Operation,
// Baseline, Contender, Diff, Unit, Diff %), plus Ratio, Verdict and a note,
// with one column group per contender and a geomean row per metric.
func RallyTables(c *compare.Comparison) []Table {
	header := []string{"Metric", "Operation", "Baseline (" + c.Baseline.Label + ")"}
	for _, s := range c.Contenders {
		l := s.Label
		header = append(header, "Contender ("+l+")", "Diff", "Unit", "Diff %", ciHeader(c), "Ratio", "Verdict", "Note")
	}
	t := Table{Title: fmt.Sprintf("Comparison: %s vs %s", c.Baseline.Label, contenderLabels(c.Contenders)), Header: header, LeftColumns: 2}
	g := c.Geomeans()
	last := ""
	for _, r := range c.Rows {
		if last != "" && r.Key.Metric != last {
			t.Rows = appendGeomean(t.Rows, c, last, g)
		}
		last = r.Key.Metric
		row := []string{r.Key.Metric, opLabel(r.Key), cellText(r.Baseline)}
		for _, ch := range r.Contender {
			diff := "-"
			if r.Baseline.OK && ch.OK {
				diff = num(ch.Diff)
			}
			row = append(row, cellText(ch.Cell), diff, r.Metric.Unit, compare.Pct(ch.DiffPct), intervalCell(ch), ratio(ch.Ratio), ch.Verdict, withZero(r.Baseline, ch))
		}
		t.Rows = append(t.Rows, row)
	}
	if last != "" {
		t.Rows = appendGeomean(t.Rows, c, last, g)
	}
	t.Notes = notes(c)
	t.Lead = slices.Concat(Summary(c), c.Lead())
	out := []Table{t}
	if st, ok := serverMetricsTable(c); ok {
		out = append(out, st)
	}
	return estNoted(append(out, telemetryTables(c)...))
}

// estNoted adds EstNote to every table with an "est." cell.
func estNoted(ts []Table) []Table {
	for i := range ts {
		if slices.ContainsFunc(ts[i].Rows, func(row []string) bool {
			return slices.ContainsFunc(row, func(cell string) bool { return strings.Contains(cell, "est. ") })
		}) {
			ts[i].Notes = append(ts[i].Notes, EstNote)
		}
	}
	return ts
}

// ciHeader names the interval column by its level: "90% CI".
func ciHeader(c *compare.Comparison) string {
	conf := c.Options.Confidence
	if conf == 0 {
		conf = compare.DefaultConfidence
	}
	return fmt.Sprintf("%g%% CI", 100*conf)
}

// serverMetricsTable is the server metrics of the sides (the database's own
// figures, the footprint, and what the server counted), with the gate's
// word on the figures it gates.
func serverMetricsTable(c *compare.Comparison) (Table, bool) {
	if len(c.ServerRows) == 0 {
		return Table{}, false
	}
	sh := []string{"Metric", "Baseline (" + c.Baseline.Label + ")"}
	for _, s := range c.Contenders {
		sh = append(sh, "Contender ("+s.Label+")", "Diff", "Unit", "Diff %", ciHeader(c), "Ratio", "Note")
	}
	st := Table{Title: fmt.Sprintf("Server metrics: %s vs %s", c.Baseline.Label, contenderLabels(c.Contenders)), Header: sh,
		Notes: []string{serverNote()}}
	for _, r := range c.ServerRows {
		row := []string{r.Key.Metric, cellText(r.Baseline)}
		for i, ch := range r.Contender {
			diff := "-"
			if r.Baseline.OK && ch.OK {
				diff = num(ch.Diff)
			}
			row = append(row, cellText(ch.Cell), diff, r.Metric.Unit, compare.Pct(ch.DiffPct), intervalCell(ch), ratio(ch.Ratio), serverVerdict(c, r, i, withZero(r.Baseline, ch)))
		}
		st.Rows = append(st.Rows, row)
	}
	return st, true
}

// serverNote says which server metrics the gate reads.
func serverNote() string {
	var gated []string
	for _, d := range compare.DeterministicFigures {
		gated = append(gated, fmt.Sprintf("%s (%g%%)", d.Name, d.Threshold))
	}
	return "Server metrics are the database's own figures (medians over the runs). The deterministic ones are gated by default, by their ratio against limits from their measured A/A spread: " + strings.Join(gated, ", ") + "; the others only when --gate-server names them."
}

// serverVerdict is a server row's note with the gate's decision on it.
func serverVerdict(c *compare.Comparison, r compare.Row, ci int, note string) string {
	if c.Verdict == nil {
		return note
	}
	for _, j := range c.Verdict.Rows {
		if j.Server && j.Metric == r.Key.Metric && j.Contender == c.Contenders[ci].Label && (j.Operation == "" || j.Operation == r.Key.Op) {
			d := fmt.Sprintf("gate: %s (limit %g%%)", j.Decision, j.Limit)
			if note == "" {
				return d
			}
			return d + "; " + note
		}
	}
	return note
}

// telemetryTables is the server telemetry of the sides, per phase group,
// source and figure (compare.Comparison.TelemetryRows): medians over the
// runs of a counter's total and of a gauge's mean, with their ratios; bytes
// in MiB as in a run's Server table.
func telemetryTables(c *compare.Comparison) []Table {
	if len(c.TelemetryRows) == 0 {
		return nil
	}
	h := []string{"Phase", "Source", "Figure", "Stat", "Baseline (" + c.Baseline.Label + ")"}
	for _, s := range c.Contenders {
		h = append(h, "Contender ("+s.Label+")", "Diff", "Unit", "Diff %", ciHeader(c), "Ratio", "Note")
	}
	t := Table{Title: fmt.Sprintf("Server telemetry: %s vs %s", c.Baseline.Label, contenderLabels(c.Contenders)), Header: h, LeftColumns: 4,
		Notes: []string{"Server telemetry is what the machine, the server's processes and the database's own metrics did over each phase group (SERVER_METRICS_INTERVAL): a counter's total, a gauge's mean over its samples, medians over the runs; shown for reading, never gated unless --gate-server names it."}}
	for _, r := range c.TelemetryRows {
		unit, scale := r.Metric.Unit, 1.0
		if unit == "bytes" {
			unit, scale = "MiB", 1<<20
		}
		scaled := func(cl compare.Cell) string {
			if !cl.OK {
				return "-"
			}
			return num(cl.Median / scale)
		}
		row := []string{r.Key.Phase, r.Key.Op, r.Key.Metric, r.Metric.Stat, scaled(r.Baseline)}
		for _, ch := range r.Contender {
			diff := "-"
			if r.Baseline.OK && ch.OK {
				diff = num(ch.Diff / scale)
			}
			iv := intervalCell(ch)
			if ch.Interval != nil && ch.Interval.Abs && scale != 1 {
				// A difference of bytes, in the table's MiB.
				iv = (&compare.Interval{Lo: ch.Interval.Lo / scale, Hi: ch.Interval.Hi / scale, Abs: true}).Text()
			}
			row = append(row, scaled(ch.Cell), diff, unit, compare.Pct(ch.DiffPct), iv, ratio(ch.Ratio), withZero(r.Baseline, ch))
		}
		t.Rows = append(t.Rows, row)
	}
	return []Table{t}
}

// appendGeomean adds a metric's geomean row, unless no contender has more
// than one row to summarise: the geomean of one ratio repeats it.
func appendGeomean(rows [][]string, c *compare.Comparison, metric string, g map[string][]compare.Geomean) [][]string {
	for _, e := range g[metric] {
		if e.Rows > 1 {
			return append(rows, geomeanRow(c, metric, g))
		}
	}
	return rows
}

func geomeanRow(c *compare.Comparison, metric string, g map[string][]compare.Geomean) []string {
	row := []string{metric, "geomean", ""}
	unit := ""
	for _, m := range compare.Metrics {
		if m.Name == metric {
			unit = m.Unit
		}
	}
	for i := range c.Contenders {
		e := g[metric][i]
		if e.Rows == 0 {
			row = append(row, "", "", unit, "n/a", "", "n/a", "", "no rows on both sides")
			continue
		}
		row = append(row, "", "", unit, compare.Pct(100*(e.Ratio-1)), "", ratio(e.Ratio), "", fmt.Sprintf("over %d rows; a summary, not a test", e.Rows))
	}
	return row
}

func notes(c *compare.Comparison) []string {
	var n []string
	if c.Verdict != nil {
		n = append(n, c.Verdict.Method())
	}
	if c.Sequential != "" {
		n = append(n, c.Sequential)
	}
	n = append(n, []string{
		fmt.Sprintf("Verdicts: Welch's t-test, two-sided, on the per-run values of each side (medians shown); p(Holm) adjusts p over every tested row of a contender (Holm–Bonferroni: the chance of any false alarm stays below α=%g); ~ = no significant change, a change below --min-effect %g%%, or a latency change below the noise floor (--min-abs %g ms); Ratio = contender / baseline.", c.Options.Alpha, c.Options.MinEffect, c.Options.MinAbsMS),
		compare.GateRules,
		"Directions: throughput higher is better; latency and error rate lower is better; ok operations neutral.",
		ciHeader(c) + ": the change's confidence interval, on log values as the row's test (paired within the routine's blocks, or Welch's), in percent; on the difference of the means, in the unit, where a run has a 0.",
	}...)
	if cannotTell(c) {
		n = append(n, CannotTellNote)
	}
	if c.Unpaired != "" {
		n = append(n, "Tested unpaired: --paired asked for pairs, and "+c.Unpaired+".")
	}
	if groupedByProcess(c) {
		n = append(n, GroupedNote)
	}
	for _, r := range c.Rows {
		for _, ch := range r.Contender {
			if ch.Untestable != "" {
				n = append(n, "\""+compare.Untested+"\": a gated row that could not be tested (the reason is in the note); bench compare --fail-above then exits 4 rather than pass in silence, unless --untested=ratio judges such rows by their ratio.")
				return append(n, c.Warnings...)
			}
		}
	}
	return append(n, c.Warnings...)
}

// GroupedNote says how rows of runs that met several server processes a
// side were tested.
const GroupedNote = "By server processes: the routine restarted its servers (--restart-every), so a row's test and interval take each process's mean as one sample (its note says how many processes): the runs of one process share what its start drew, and the interval then includes how processes differ."

func groupedByProcess(c *compare.Comparison) bool {
	for _, r := range c.Rows {
		for _, ch := range r.Contender {
			if ch.Processes > 0 {
				return true
			}
		}
	}
	return false
}

func contenderLabels(ss []compare.Side) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Label)
	}
	return strings.Join(out, ", ")
}

var shortLabelRE = regexp.MustCompile(`^(.+)-[0-9a-f]{6,40}$`)

// ShortLabel drops a trailing commit hash: master-a2b704d -> master.
func ShortLabel(l string) string {
	if m := shortLabelRE.FindStringSubmatch(l); m != nil {
		return m[1]
	}
	return l
}

// PRTables renders the PR-report layout of the IoTDB weekly report: one row
// per operation or query variant (mean latency, ms; ingestion throughput
// first), and per round the columns baseline, contender, contender/baseline.
func PRTables(c *compare.Comparison) []Table {
	// Column groups: the query rounds, or the run's phases when it has none.
	var groups []string
	seenG := map[string]bool{}
	hasRounds := false
	for _, r := range c.Rows {
		if r.Key.Round > 0 {
			hasRounds = true
		}
	}
	for _, r := range c.Rows {
		g := r.Key.Phase
		if hasRounds && r.Key.Round == 0 {
			continue
		}
		if !seenG[g] {
			seenG[g] = true
			groups = append(groups, g)
		}
	}
	bl := c.Baseline.Label
	header := []string{"Operation"}
	title := func(g string) string { return strings.TrimPrefix(g, "query ") }
	for _, g := range groups {
		for _, s := range c.Contenders {
			if len(c.Contenders) == 1 || s.Label == c.Contenders[0].Label {
				header = append(header, title(g)+" "+bl)
			}
			header = append(header, title(g)+" "+s.Label, title(g)+" "+ShortLabel(s.Label)+"/"+ShortLabel(bl))
		}
	}
	header = append(header, "Note")
	t := Table{Title: fmt.Sprintf("PR report: %s vs %s (mean latency in ms unless the row says otherwise)", bl, contenderLabels(c.Contenders)), Header: header, Lead: slices.Concat(Summary(c), c.Lead())}
	// compare.Row order: ingestion throughput, INGESTION latency, then operations as first seen.
	var ops []string
	seenOp := map[string]bool{}
	for _, r := range c.Rows {
		if r.Key.Metric == "mean latency" && !seenOp[r.Key.Op] {
			seenOp[r.Key.Op] = true
			ops = append(ops, r.Key.Op)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i] == config.Ingestion && ops[j] != config.Ingestion })
	type line struct {
		label, metric, op string
	}
	var lines []line
	if seenOp[config.Ingestion] {
		lines = append(lines, line{"throughput (point/s)", "throughput", config.Ingestion})
		// A document database's ingest in Rally's units too.
		for _, m := range []struct{ label, metric string }{{"throughput (docs/s)", "document throughput"}, {"throughput (MB/s)", "data throughput"}} {
			if _, ok := findRowAnyPhase(m.metric, config.Ingestion, c.Rows); ok {
				lines = append(lines, line{m.label, m.metric, config.Ingestion})
			}
		}
	}
	for _, op := range ops {
		lines = append(lines, line{op, "mean latency", op})
	}
	// The rows that decided the gate, whatever their metric: a P99 or an
	// error rate that failed it is in the PR table too.
	if c.Verdict != nil {
		for _, j := range c.Verdict.Rows {
			if j.Server || j.Decision == compare.Within || j.Decision == compare.Better || j.Decision == compare.ByRatio {
				continue
			}
			ln := line{fmt.Sprintf("%s %s (%s)", j.Operation, j.Metric, j.Unit), j.Metric, j.Operation}
			if j.Metric == "mean latency" || j.Metric == "throughput" && j.Operation == config.Ingestion || slices.ContainsFunc(lines, func(l line) bool { return l.metric == ln.metric && l.op == ln.op }) {
				continue
			}
			lines = append(lines, ln)
		}
	}
	untested := map[string]bool{}
	for _, ln := range lines {
		row := []string{ln.label}
		var notes []string
		for gi, g := range groups {
			r, ok := findRow(ln.metric, ln.op, g, c.Rows)
			if !ok && gi == 0 {
				// Ingestion lives in its own phase before the query rounds.
				r, ok = findRowAnyPhase(ln.metric, ln.op, c.Rows)
			}
			for ci := range c.Contenders {
				if ci == 0 {
					row = append(row, cellOr(r, ok, -1))
				}
				row = append(row, cellOr(r, ok, ci))
				if ok && r.Baseline.OK && r.Contender[ci].OK {
					ch := r.Contender[ci]
					row = append(row, ratio(ch.Ratio)+ratioInterval(ch)+verdictMark(ch))
					switch {
					case ch.Untestable != "":
						untested[ch.Untestable] = true
					case ch.Tested || ch.Verdict != "":
						notes = append(notes, fmt.Sprintf("%s: %s", title(g), noteOf(ch)))
					}
				} else {
					row = append(row, "n/a")
				}
			}
		}
		row = append(row, strings.Join(dedupe(notes), "; "))
		t.Rows = append(t.Rows, row)
	}
	t.Notes = []string{"Ratios are contender/baseline with their " + ciHeader(c) + " in brackets; marked ↑ significantly better, ↓ significantly worse, ~ no significant change " +
		fmt.Sprintf("(Welch's t-test with Holm's correction over every tested row, family-wise α=%g; --min-effect %g%%; latency changes below --min-abs %g ms not judged).", c.Options.Alpha, c.Options.MinEffect, c.Options.MinAbsMS), compare.GateRules}
	if hasRounds && seenOp[config.Ingestion] {
		t.Notes[0] += " The ingestion rows come from the ingest phase before the query rounds."
	}
	if cannotTell(c) {
		t.Notes[0] += " " + CannotTellNote
	}
	if groupedByProcess(c) {
		t.Notes = append(t.Notes, GroupedNote)
	}
	if len(untested) > 0 {
		var ns []string
		for n := range untested {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		t.Notes = append(t.Notes, fmt.Sprintf("Unmarked ratios are untested (%s): until each side has %d or more runs (bench run --repeat 5), a ratio is one sample, not a verdict.", strings.Join(ns, "; "), compare.MinRuns))
	}
	if c.Verdict != nil {
		t.Notes = append(t.Notes, c.Verdict.Method())
	}
	if c.Sequential != "" {
		t.Notes = append(t.Notes, c.Sequential)
	}
	t.Notes = append(t.Notes, c.Warnings...)
	out := []Table{t}
	if st, ok := serverMetricsTable(c); ok {
		out = append(out, st)
	}
	out = estNoted(append(out, telemetryTables(c)...))
	for i := range out {
		out[i].Fold = true
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func noteOf(ch compare.Change) string {
	switch ch.Verdict {
	case "", "~", compare.Untested:
		return ch.Note
	case compare.CannotTell:
		return "cannot tell (" + ch.Note + ")"
	}
	return ch.Verdict + " (" + ch.Note + ")"
}

func verdictMark(ch compare.Change) string {
	switch ch.Verdict {
	case "better":
		return " ↑"
	case "worse":
		return " ↓"
	case "~":
		return " ~"
	case compare.CannotTell:
		return " ?"
	}
	return ""
}

// CannotTellNote says what "?" means, for a comparison with such a row.
const CannotTellNote = "? = cannot tell: no significant change, yet the interval does not prove the row within --fail-above either (the gate's inconclusive); more runs would decide it."

// cannotTell says whether any row of c has the verdict "?".
func cannotTell(c *compare.Comparison) bool {
	for _, r := range c.Rows {
		for _, ch := range r.Contender {
			if ch.Verdict == compare.CannotTell {
				return true
			}
		}
	}
	return false
}

func findRow(metric, op, phase string, rows []compare.Row) (compare.Row, bool) {
	for _, r := range rows {
		if r.Key.Metric == metric && r.Key.Op == op && r.Key.Phase == phase {
			return r, true
		}
	}
	return compare.Row{}, false
}

func findRowAnyPhase(metric, op string, rows []compare.Row) (compare.Row, bool) {
	for _, r := range rows {
		if r.Key.Metric == metric && r.Key.Op == op {
			return r, true
		}
	}
	return compare.Row{}, false
}

func cellOr(r compare.Row, ok bool, contender int) string {
	if !ok {
		return "-"
	}
	if contender < 0 {
		return cellText(r.Baseline)
	}
	return cellText(r.Contender[contender].Cell)
}

// comparisonJSON is the comparison in machine-readable form.
type comparisonJSON struct {
	// Verdict is the gate's (--fail-above), first: what a CI job reads.
	Verdict    *compare.Verdict `json:"verdict,omitempty"`
	Baseline   sideJSON         `json:"baseline"`
	Contenders []sideJSON       `json:"contenders"`
	Alpha      float64          `json:"alpha"`
	MinEffect  float64          `json:"min_effect_pct"`
	MinAbsMS   float64          `json:"min_abs_ms,omitempty"`
	// Differences are what differs between the sides besides the build
	// under test (database, tsbench build, workload, host).
	Differences []string `json:"differences,omitempty"`
	// SameBuild says which contenders measured the baseline's very build.
	SameBuild []string `json:"same_build,omitempty"`
	// Changes name the keys a routine's --side-set changed between the
	// sides: the configuration change the ratios measure.
	Changes []string `json:"changes,omitempty"`
	// Sequential says where a routine that stopped when it knew stopped,
	// and the levels it spent.
	Sequential string    `json:"sequential,omitempty"`
	Rows       []rowJSON `json:"rows"`
	Warnings   []string  `json:"warnings,omitempty"`
}

type sideJSON struct {
	Label string   `json:"label"`
	Runs  []string `json:"runs"`
	// Servers are the identities of the servers the side's runs measured.
	Servers []string `json:"servers,omitempty"`
}

type rowJSON struct {
	Metric    string `json:"metric"`
	Unit      string `json:"unit"`
	Direction string `json:"direction"`
	Phase     string `json:"phase"`
	Operation string `json:"operation"`
	// Stat is a server telemetry row's: a counter's "total" over the
	// phase group, a gauge's "mean"; its Operation is the source.
	Stat       string       `json:"stat,omitempty"`
	Baseline   compare.Cell `json:"baseline"`
	Contenders []changeJSON `json:"contenders"`
}

type changeJSON struct {
	compare.Cell
	Diff    *float64 `json:"diff,omitempty"`
	DiffPct *float64 `json:"diff_pct,omitempty"`
	Ratio   *float64 `json:"ratio,omitempty"`
	P       *float64 `json:"p,omitempty"`
	AdjP    *float64 `json:"p_holm,omitempty"`
	Verdict string   `json:"verdict,omitempty"`
	Note    string   `json:"note,omitempty"`
	// Untestable is why a gated row could not be tested.
	Untestable string `json:"untestable,omitempty"`
	// Gated says the gate judges the row; Interval is the change's.
	Gated    bool              `json:"gated,omitempty"`
	Interval *compare.Interval `json:"interval,omitempty"`
	// Paired says the row was tested in pairs within the routine's blocks;
	// Processes, over how many server processes a side (their means the
	// test's samples), where the routine restarted its servers.
	Paired    bool `json:"paired,omitempty"`
	Processes int  `json:"processes,omitempty"`
	// NotMeasured says why a side did not measure the row's phase.
	NotMeasured string `json:"not_measured,omitempty"`
}

func finite(x float64, ok bool) *float64 {
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// ComparisonJSON returns the comparison as a JSON-encodable value (n/a values are
// omitted rather than encoded as 0).
func ComparisonJSON(c *compare.Comparison) any {
	side := func(s compare.Side) sideJSON {
		j := sideJSON{Label: s.Label}
		for _, r := range s.Runs {
			j.Runs = append(j.Runs, r.ID)
			if id := r.Target.Identity(); !slices.Contains(j.Servers, id) {
				j.Servers = append(j.Servers, id)
			}
		}
		return j
	}
	out := comparisonJSON{Verdict: c.Verdict, Baseline: side(c.Baseline), Alpha: c.Options.Alpha, MinEffect: c.Options.MinEffect, MinAbsMS: c.Options.MinAbsMS, Differences: c.Differences(), SameBuild: c.SameBuild(), Changes: c.Changes(), Warnings: c.Warnings, Sequential: c.Sequential}
	for _, s := range c.Contenders {
		out.Contenders = append(out.Contenders, side(s))
	}
	for _, r := range slices.Concat(c.Rows, c.ServerRows, c.TelemetryRows) {
		rj := rowJSON{Metric: r.Key.Metric, Unit: r.Metric.Unit, Direction: r.Metric.Direction.String(), Phase: r.Key.Phase, Operation: r.Key.Op, Stat: r.Metric.Stat, Baseline: r.Baseline}
		for _, ch := range r.Contender {
			both := r.Baseline.OK && ch.OK
			rj.Contenders = append(rj.Contenders, changeJSON{Cell: ch.Cell, Diff: finite(ch.Diff, both), DiffPct: finite(ch.DiffPct, both), Ratio: finite(ch.Ratio, both), P: finite(ch.P, ch.Tested), AdjP: finite(ch.AdjP, ch.Tested), Verdict: ch.Verdict, Note: ch.Note, Untestable: ch.Untestable, Gated: ch.Gated, Interval: ch.Interval, Paired: ch.Paired, Processes: ch.Processes, NotMeasured: ch.Unmeasured})
		}
		out.Rows = append(out.Rows, rj)
	}
	return out
}

// WriteComparison writes a comparison in a table format, laid out in l, or
// as JSON (ComparisonJSON, whatever the layout).
func WriteComparison(w io.Writer, f Format, l Layout, c *compare.Comparison) error {
	if f == JSON {
		return WriteJSON(w, ComparisonJSON(c))
	}
	return WriteTables(w, f, l.Tables(c))
}

// Layout is a layout of a comparison's tables (--layout).
type Layout string

// The layouts: Rally's (RallyTables) and the PR report's (PRTables).
const (
	Rally Layout = "rally"
	PR    Layout = "pr"
)

// Layouts are the layouts of a comparison's tables.
var Layouts = []Layout{Rally, PR}

// ParseLayout checks a --layout value.
func ParseLayout(s string) (Layout, error) {
	var names []string
	for _, l := range Layouts {
		if string(l) == s {
			return l, nil
		}
		names = append(names, string(l))
	}
	return "", fmt.Errorf("--layout=%s is not a layout (valid: %s)", s, strings.Join(names, ", "))
}

// Tables lays a comparison out.
func (l Layout) Tables(c *compare.Comparison) []Table {
	if l == PR {
		return PRTables(c)
	}
	return RallyTables(c)
}
