package charts

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/telemetry"
)

// side is what one colour stands for: a run of a report, or a side of a
// comparison with its repeated runs.
type side struct {
	label string
	runs  []*record.Record
}

// Set is the charts of a report or comparison, and notes on what was left
// out and why.
type Set struct {
	Charts []Chart  `json:"charts"`
	Notes  []string `json:"notes,omitempty"`
}

// minWindows is the fewest one-second windows an operation needs in one
// phase for a throughput-over-time chart: a query class that ran for a
// fraction of a second has a throughput, not a history.
const minWindows = 3

// ForRuns returns the charts of a report of runs, each run in a colour of
// its own.
func ForRuns(runs []*record.Record) Set {
	var sides []side
	for _, r := range runs {
		l := r.ID
		if r.Label != "" {
			l = r.Label + " (" + r.ID + ")"
		}
		sides = append(sides, side{label: l, runs: []*record.Record{r}})
	}
	return unique(common(sides))
}

// ForComparison returns the charts of a comparison: its ratio charts, then
// the charts of a report with one colour per side.
func ForComparison(cmp *compare.Comparison) Set {
	var sides []side
	for _, s := range append([]compare.Side{cmp.Baseline}, cmp.Contenders...) {
		sides = append(sides, side{label: s.Label, runs: s.Runs})
	}
	set := Set{Charts: ratioCharts(cmp)}
	if c, ok := serverChart(cmp); ok {
		set.Charts = append(set.Charts, c)
	}
	rest := common(sides)
	set.Charts = append(set.Charts, rest.Charts...)
	set.Notes = rest.Notes
	return unique(set)
}

// unique numbers charts whose names would be the same file (operations
// that differ only in case or punctuation).
func unique(set Set) Set {
	seen := map[string]int{}
	for i := range set.Charts {
		n := set.Charts[i].Name
		seen[n]++
		if k := seen[n]; k > 1 {
			set.Charts[i].Name = fmt.Sprintf("%s-%d", n, k)
		}
	}
	return set
}

func common(sides []side) Set {
	var set Set
	ops := operations(sides)
	var short []string
	for _, op := range ops {
		if c, ok := throughputChart(sides, op); ok {
			set.Charts = append(set.Charts, c)
		} else {
			short = append(short, op)
		}
	}
	if len(short) > 0 {
		set.Notes = append(set.Notes, fmt.Sprintf("No throughput-over-time chart for %s: no phase of theirs lasted %d one-second windows (their throughput is in the tables).", strings.Join(short, ", "), minWindows))
	}
	for _, op := range ops {
		if c, ok := spectrumChart(sides, op); ok {
			set.Charts = append(set.Charts, c)
		}
	}
	if c, ok := coldWarmChart(sides); ok {
		set.Charts = append(set.Charts, c)
	}
	for _, f := range append(slices.Clone(serverFigures), databaseFigures(sides)...) {
		if c, ok := serverSeriesChart(sides, f); ok {
			set.Charts = append(set.Charts, c)
		}
	}
	return set
}

// serverFigure is a figure of the server's processes drawn over time, or
// with database set one of the database's own key series (telemetry.Series'
// Chart), a line for each of its sources that has it (each node).
type serverFigure struct {
	slug, title, axis string
	figures           []string // summed: CPU user and system
	scale             float64  // the figure's unit over the axis's
	database          bool
}

// databaseFigures are the key series the database's own sources mark for
// a chart, in first-seen order: a counter drawn as its rate per second, a
// size in MiB.
func databaseFigures(sides []side) []serverFigure {
	var out []serverFigure
	seen := map[string]bool{}
	for _, s := range sides {
		for _, r := range s.runs {
			for _, p := range r.Phases {
				for _, src := range p.Server {
					if !databaseSource(src.Name) {
						continue
					}
					for _, se := range src.Series {
						if !se.Chart || seen[se.Name] {
							continue
						}
						seen[se.Name] = true
						unit, scale := se.Unit, 1.0
						if unit == "bytes" {
							unit, scale = "MiB", 1<<20
						}
						if se.Counter {
							unit += " per s"
						}
						out = append(out, serverFigure{slug: "server-" + Slug(se.Name), title: "server " + se.Name + " over time", axis: se.Name + " (" + unit + ")",
							figures: []string{se.Name}, scale: scale, database: true})
					}
				}
			}
		}
	}
	return out
}

// databaseSource says whether a source is the database's own (a node's
// metrics), not the machine or a process tsbench found.
func databaseSource(name string) bool {
	return name != "machine" && !strings.Contains(name, "process ")
}

var serverFigures = []serverFigure{
	{slug: "server-cpu", title: "server CPU over time", axis: "CPU busy (s/s: 1 is one CPU)", figures: []string{"CPU user", "CPU system"}, scale: 1},
	{slug: "server-memory", title: "server resident memory over time", axis: "resident memory (MiB)", figures: []string{"resident memory"}, scale: 1 << 20},
}

// serverSeriesChart draws a figure of each run's server processes
// (SERVER_METRICS_INTERVAL), sample by sample, on the time axis of the
// throughput charts: a counter as its rate between two samples, a gauge as
// read; each phase's samples are one segment, one line a process.
func serverSeriesChart(sides []side, f serverFigure) (Chart, bool) {
	c := Chart{Name: f.slug, Title: strings.ToUpper(f.title[:1]) + f.title[1:], Kind: Lines,
		X: Axis{Label: "time since the run began (s)"}, Y: Axis{Label: f.axis},
		Caption: "The processes of the database server (or tsbench's own, for an embedded database), sampled every SERVER_METRICS_INTERVAL over every phase; one line a process, its runs in the side's colour; dotted lines mark where a phase or round began in the first run."}
	if f.database {
		c.Caption = "As the database reports it (a node's metrics endpoint or statistics), sampled every SERVER_METRICS_INTERVAL over every phase; one line a node, its runs in the side's colour; dotted lines mark where a phase or round began in the first run."
	}
	for si, s := range sides {
		for ri, r := range s.runs {
			if len(r.Phases) == 0 {
				continue
			}
			t0 := r.Phases[0].StartedAt
			lines := map[string]*Series{}
			var order []string
			for i := range r.Phases {
				for _, src := range r.Phases[i].Server {
					if f.database != databaseSource(src.Name) {
						continue
					}
					seg := sourcePoints(src, f, src.Started.Sub(t0).Seconds())
					if len(seg) == 0 {
						continue
					}
					// A process keeps its line across phases: the name
					// without the pid, which a restart changes.
					key := telemetry.Kind(src.Name)
					ser, ok := lines[key]
					if !ok {
						ser = &Series{Name: s.label, Colour: si, Run: ri + 1}
						lines[key] = ser
						order = append(order, key)
					}
					ser.Segments = append(ser.Segments, seg)
				}
			}
			for _, k := range order {
				c.Series = append(c.Series, *lines[k])
			}
		}
	}
	c.Marks = phaseMarks(sides)
	return c, len(c.Series) > 0
}

// sourcePoints are a source's values of the figure at each sample, at
// off seconds plus the sample's time; counters as their rate since the
// sample before, at the middle of the two.
func sourcePoints(src telemetry.Source, f serverFigure, off float64) []Point {
	var vals [][]float64
	counter := false
	for _, se := range src.Series {
		if slices.Contains(f.figures, se.Name) && len(se.Values) == len(src.At) {
			vals = append(vals, se.Values)
			counter = se.Counter
		}
	}
	if len(vals) != len(f.figures) {
		return nil
	}
	var seg []Point
	for i := range src.At {
		v := 0.0
		for _, vs := range vals {
			v += vs[i]
		}
		x := off + float64(src.At[i])/1000
		if counter {
			if i == 0 || src.At[i] <= src.At[i-1] {
				continue
			}
			dt := float64(src.At[i]-src.At[i-1]) / 1000
			v, x = v/dt, x-dt/2
		}
		seg = append(seg, Point{X: round3(x), Y: round3(v / f.scale)})
	}
	return seg
}

// phaseMarks mark where each phase group of the first run began.
func phaseMarks(sides []side) []Mark {
	var marks []Mark
	if len(sides) == 0 || len(sides[0].runs) == 0 {
		return nil
	}
	r := sides[0].runs[0]
	prev := ""
	for i := range r.Phases {
		p := &r.Phases[i]
		if g := p.Group(); g != prev {
			marks = append(marks, Mark{X: round3(p.StartedAt.Sub(r.Phases[0].StartedAt).Seconds()), Label: g})
			prev = g
		}
	}
	return marks
}

// operations lists every operation of the sides' runs, in first-seen order.
func operations(sides []side) []string {
	var ops []string
	seen := map[string]bool{}
	for _, s := range sides {
		for _, r := range s.runs {
			for _, p := range r.Phases {
				for _, o := range p.Operations {
					if !seen[o.Operation] {
						seen[o.Operation] = true
						ops = append(ops, o.Operation)
					}
				}
			}
		}
	}
	return ops
}

func find(p *record.Phase, op string) *metrics.Snapshot {
	for _, o := range p.Operations {
		if o.Operation == op {
			return o
		}
	}
	return nil
}

// throughputChart draws an operation's points per second, window by
// window, on the time axis of each run (seconds since its first phase
// began); a phase's windows are one segment, so a pause between phases is a
// gap and a stall within one is a drop to zero. Boundaries between phase
// groups of the first run are marked.
func throughputChart(sides []side, op string) (Chart, bool) {
	c := Chart{
		Name:  "throughput-" + Slug(op),
		Title: op + ": throughput per one-second window",
		Kind:  Lines,
		X:     Axis{Label: "time since the run began (s)"},
		Y:     Axis{Label: "throughput (points/s)"},
		Caption: "Each point is one second's successful points (the last window of a phase scaled to its length). " +
			"Gaps are time between phases; dotted lines mark where a phase or round began in the first run. The runs of a side share its colour.",
	}
	long := false
	for si, s := range sides {
		for ri, r := range s.runs {
			if len(r.Phases) == 0 {
				continue
			}
			ser := Series{Name: s.label, Colour: si, Run: ri + 1}
			t0 := r.Phases[0].StartedAt
			for i := range r.Phases {
				p := &r.Phases[i]
				o := find(p, op)
				if o == nil {
					continue
				}
				off := p.StartedAt.Sub(t0).Seconds()
				var seg []Point
				rates := o.Rates(p.Elapsed())
				long = long || len(rates) >= minWindows
				for w, rate := range rates {
					x := off + float64(w) + 0.5
					if end := off + p.Seconds; x > end {
						x = end
					}
					seg = append(seg, Point{X: round3(x), Y: round3(rate)})
				}
				if len(seg) > 0 {
					ser.Segments = append(ser.Segments, seg)
				}
			}
			if len(ser.Segments) > 0 {
				c.Series = append(c.Series, ser)
			}
		}
	}
	c.Marks = phaseMarks(sides)
	return c, long
}

// spectrumSteps are the positions of the percentile axis: x is
// -log10(1-q), so 0 is P0, 1 P90, 2 P99, 3 P99.9 and 4 P99.99.
const (
	spectrumTop  = 4.0
	spectrumStep = 0.05
)

// merged is the snapshot of an operation over a side's runs in one phase
// group: histograms merged exactly, not percentiles averaged.
func merged(s side, g, op string) *metrics.Snapshot {
	var parts [][]*metrics.Snapshot
	for _, r := range s.runs {
		for i := range r.Phases {
			p := &r.Phases[i]
			if p.Group() != g {
				continue
			}
			if o := find(p, op); o != nil {
				parts = append(parts, []*metrics.Snapshot{o})
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return metrics.Merge(parts...)[0]
}

// groupsOf lists the phase groups an operation ran in, in first-seen order.
func groupsOf(sides []side, op string) []string {
	var gs []string
	seen := map[string]bool{}
	for _, s := range sides {
		for _, r := range s.runs {
			for i := range r.Phases {
				if find(&r.Phases[i], op) == nil {
					continue
				}
				if g := r.Phases[i].Group(); !seen[g] {
					seen[g] = true
					gs = append(gs, g)
				}
			}
		}
	}
	return gs
}

// spectrumChart draws the latency percentile spectrum of an operation, one
// line per side and phase group (a round is a dash), from the merged
// histograms of the side's runs.
func spectrumChart(sides []side, op string) (Chart, bool) {
	c := Chart{
		Name:  "latency-" + Slug(op),
		Title: op + ": latency by percentile",
		Kind:  Lines,
		X: Axis{Label: "percentile (log scale of 1/(1 - p))", Ticks: []Tick{
			{0, "0%"}, {1, "90%"}, {2, "99%"}, {3, "99.9%"}, {4, "99.99%"}}},
		Y: Axis{Label: "latency (ms), log scale", Log: true},
		Caption: "HdrHistogram's percentile spectrum of successful operations; the runs of a side are merged exactly. " +
			"A percentile beyond 1 - 1/n of n operations is the maximum.",
	}
	for di, g := range groupsOf(sides, op) {
		for si, s := range sides {
			m := merged(s, g, op)
			if m == nil || m.OKOps == 0 {
				continue
			}
			var seg []Point
			for i := 0; ; i++ {
				x := float64(i) * spectrumStep
				if x > spectrumTop+1e-9 {
					break
				}
				q := 100 * (1 - math.Pow(10, -x))
				seg = append(seg, Point{X: round3(x), Y: m.Percentile(q)})
			}
			c.Series = append(c.Series, Series{Name: fmt.Sprintf("%s, %s (n=%d)", s.label, g, m.OKOps), Colour: si, Dash: di, Segments: [][]Point{flat(seg)}})
		}
	}
	return c, len(c.Series) > 0
}

// flat drops the inner points of runs of equal y: the line is the same,
// and a spectrum of few operations is mostly such steps.
func flat(seg []Point) []Point {
	out := seg[:0:0]
	for i, p := range seg {
		if i > 0 && i < len(seg)-1 && seg[i-1].Y == p.Y && seg[i+1].Y == p.Y {
			continue
		}
		out = append(out, p)
	}
	return out
}

// coldWarmChart draws each query class's median latency in every round,
// the first (cold) dark, later (warm) rounds light, one slot per side and
// round; none when no run has two rounds.
func coldWarmChart(sides []side) (Chart, bool) {
	rounds := map[int]bool{}
	var classes []string
	seen := map[string]bool{}
	for _, s := range sides {
		for _, r := range s.runs {
			for _, p := range r.Phases {
				if p.Round == 0 {
					continue
				}
				rounds[p.Round] = true
				for _, o := range p.Operations {
					if !seen[o.Operation] {
						seen[o.Operation] = true
						classes = append(classes, o.Operation)
					}
				}
			}
		}
	}
	if len(rounds) < 2 {
		return Chart{}, false
	}
	var rs []int
	for r := 1; len(rs) < len(rounds); r++ {
		if rounds[r] {
			rs = append(rs, r)
		}
	}
	c := Chart{
		Name:       "cold-warm",
		Title:      "Median latency per query class and round (round 1 cold, later rounds warm)",
		Kind:       Bars,
		X:          Axis{Label: "query class"},
		Y:          Axis{Label: "median latency (ms), log scale", Log: true},
		Categories: classes,
		Caption:    "Dark bars are round 1, after the restart and dropped caches; light bars are the warm rounds that follow.",
	}
	slot := 0
	for si, s := range sides {
		for _, rnd := range rs {
			ser := Series{Name: fmt.Sprintf("%s, round %d", s.label, rnd), Colour: si, Light: rnd > rs[0], Slot: slot}
			has := false
			for _, cl := range classes {
				m := merged(s, fmt.Sprintf("query round %d", rnd), cl)
				if m == nil || m.OKOps == 0 {
					ser.Values = append(ser.Values, math.NaN())
					continue
				}
				ser.Values = append(ser.Values, m.Percentile(50))
				has = true
			}
			slot++
			if has {
				c.Series = append(c.Series, ser)
			}
		}
	}
	return c, len(c.Series) > 0
}

// verdictOf names a change's verdict as the charts colour it.
func verdictOf(ch compare.Change) string {
	switch ch.Verdict {
	case "better":
		return VerdictBetter
	case "worse":
		return VerdictWorse
	case "~":
		return VerdictNoChange
	case compare.CannotTell:
		return VerdictCannotTell
	}
	return VerdictNotJudged
}

// ratioCharts draws, for each metric and contender, one bar per operation
// and round: the contender's median over the baseline's, from 1.0, coloured
// by the comparison's verdict and labelled with the run counts. "ok
// operations" is left out: it is a count, not a performance.
func ratioCharts(cmp *compare.Comparison) []Chart {
	var out []Chart
	for ci, con := range cmp.Contenders {
		for _, m := range compare.Metrics {
			if m.Name == "ok operations" {
				continue
			}
			var rows []compare.Row
			for _, r := range cmp.Rows {
				if r.Key.Metric == m.Name {
					rows = append(rows, r)
				}
			}
			name := "ratio-" + Slug(m.Name)
			if len(cmp.Contenders) > 1 {
				name += fmt.Sprintf("-%d", ci+1)
			}
			dir := "higher is better"
			if m.Direction == compare.LowerIsBetter {
				dir = "lower is better"
			}
			c, ok := ratioChart(name, fmt.Sprintf("%s: %s / %s (%s)", m.Name, con.Label, cmp.Baseline.Label, dir), rows, ci)
			if ok {
				out = append(out, c)
			}
		}
	}
	return out
}

func ratioChart(name, title string, rows []compare.Row, ci int) (Chart, bool) {
	c := Chart{
		Name:      name,
		Title:     title,
		Kind:      HBars,
		X:         Axis{Label: "ratio of medians, contender / baseline (log scale)", Log: true},
		Y:         Axis{Label: "operation, phase"},
		Reference: 1,
	}
	by := map[string]int{}
	left := 0
	for _, r := range rows {
		ch := r.Contender[ci]
		if !(ch.Ratio > 0) || math.IsInf(ch.Ratio, 0) {
			left++
			continue
		}
		v := verdictOf(ch)
		i, ok := by[v]
		if !ok {
			i = len(c.Series)
			by[v] = i
			c.Series = append(c.Series, Series{Name: v, Verdict: v})
		}
		cat := r.Key.Op
		if r.Key.Phase != "" {
			cat += ", " + r.Key.Phase
		}
		c.Categories = append(c.Categories, cat)
		for j := range c.Series {
			val, lab := math.NaN(), ""
			if j == i {
				val = round3(ch.Ratio)
				lab = fmt.Sprintf("%.3g× %d/%d", ch.Ratio, len(r.Baseline.Values), len(ch.Values))
			}
			// Earlier categories of a series that appears later are filled below.
			c.Series[j].Values = append(c.Series[j].Values, val)
			c.Series[j].Labels = append(c.Series[j].Labels, lab)
		}
	}
	n := len(c.Categories)
	for j := range c.Series {
		for len(c.Series[j].Values) < n {
			c.Series[j].Values = append([]float64{math.NaN()}, c.Series[j].Values...)
			c.Series[j].Labels = append([]string{""}, c.Series[j].Labels...)
		}
	}
	c.Caption = "Bars start at 1.0 (no change) and are coloured by compare's verdict; each label gives the ratio and the runs behind it (baseline/contender)."
	if left > 0 {
		c.Caption += fmt.Sprintf(" %d rows without a positive finite ratio (a zero or a missing side) are in the tables only.", left)
	}
	return c, n > 0
}

// serverChart draws the server's own metrics of the first contender
// against the baseline: reported, never judged.
func serverChart(cmp *compare.Comparison) (Chart, bool) {
	if len(cmp.Contenders) == 0 || len(cmp.ServerRows) == 0 {
		return Chart{}, false
	}
	var rows []compare.Row
	for _, r := range cmp.ServerRows {
		r.Contender = []compare.Change{r.Contender[0]}
		r.Contender[0].Verdict = ""
		r.Key.Op = r.Key.Metric
		if r.Metric.Unit != "" {
			r.Key.Op += " (" + r.Metric.Unit + ")"
		}
		r.Key.Phase = ""
		rows = append(rows, r)
	}
	c, ok := ratioChart("server-metrics", fmt.Sprintf("The server's own metrics: %s / %s", cmp.Contenders[0].Label, cmp.Baseline.Label), rows, 0)
	c.Y.Label = "metric, over the whole run"
	return c, ok
}

// round3 keeps chart data to the precision a picture shows, so that golden
// files do not churn on the last bits of a float.
func round3(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	return math.Round(x*1000) / 1000
}
