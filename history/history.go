// Package history lines the runs of labels up in time, a point a label
// (its runs' median), per metric, operation and phase group, and finds
// where each series changed level (package changepoint): the weekly
// results of master over a quarter, and the week a slowdown came in.
package history

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tsbench/tsbench/changepoint"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/stats"
)

// DefaultMetrics are the metrics a history follows unless told: the gated
// ones of compare, and the tail.
var DefaultMetrics = []string{"throughput", "mean latency", "99th percentile latency", "error rate"}

// Point is one label's value of a series: the median of its runs', and
// their range.
type Point struct {
	Label      string    `json:"label"`
	At         time.Time `json:"at"` // its first run's start
	Runs       int       `json:"runs"`
	Value      float64   `json:"value"`
	Min, Max   float64   `json:"-"`
	RunsValues []float64 `json:"values"`
}

// Change is a change point of a series, between two labels.
type Change struct {
	changepoint.Change
	// After is the first label of the new level, the suspect; Before the
	// last of the old one.
	Before string `json:"before"`
	After  string `json:"after"`
	// Verdict is "worse" or "better" by the metric's direction, or
	// "changed" for a metric with none.
	Verdict string `json:"verdict"`
}

// Series is one metric of one operation in one phase group over the labels.
type Series struct {
	Key     compare.Key `json:"key"`
	Unit    string      `json:"unit"`
	Points  []Point     `json:"points"`
	Changes []Change    `json:"changes"`
}

// History is the series of a set of runs.
type History struct {
	Labels []string `json:"labels"`
	// Unplaced are the labels an order given did not place: their runs
	// are left out.
	Unplaced []string            `json:"unplaced,omitempty"`
	Runs     int                 `json:"runs"`
	Series   []Series            `json:"series"`
	Options  changepoint.Options `json:"options"`
	metrics  map[string]compare.Metric
	units    map[compare.Key]string // of the server's series
}

// Run is what a history reads of a run: its name, start and values
// (compare.RunValues, compare.RunServerValues), from its record (RunOf) or
// the results index.
type Run struct {
	ID, Label string
	StartedAt time.Time
	Values    map[compare.Key]float64
	Order     []compare.Key
	Server    []compare.ServerValue
}

// RunOf is a record's Run.
func RunOf(rec *record.Record) Run {
	vals, order := compare.RunValues(rec)
	return Run{ID: rec.ID, Label: rec.Label, StartedAt: rec.StartedAt, Values: vals, Order: order, Server: compare.RunServerValues(rec)}
}

// Want is what a history follows beyond compare's metrics: server figures
// by name (a server metric such as "Bytes per point", or a telemetry figure
// such as "CPU" of every source and phase group; "*" for every one), and an
// order of the labels.
type Want struct {
	Server []string
	Order  []string
}

// serverKey is a server value's series: the figure (with its statistic)
// as the metric, the source as the operation, the phase group as the phase.
func serverKey(sv compare.ServerValue) compare.Key {
	m := sv.Figure
	if sv.Stat != "" {
		m += " (" + sv.Stat + ")"
	}
	return compare.Key{Metric: m, Phase: sv.Group, Op: sv.Source}
}

// Build lines the runs up: a point per label (a run without one is its
// own, by id), labels in the order their first runs started, and the change
// points of every series of the metrics named.
func Build(runs []Run, metrics []string, o changepoint.Options) (*History, error) {
	return BuildFor(runs, metrics, Want{}, o)
}

// BuildFor is Build with the server figures want names as series too
// (never judged worse or better: a server that works differently is
// information), and the labels in the order of want.Order when it is
// given (a commit list, oldest first): a label is placed by the first line
// that is the label, the part of it after its last '-' (master-a2b704d is
// at a2b704d), or a commit that part starts (a2b704d3f...). The runs of
// labels no line places are left out, named in History.Unplaced.
func BuildFor(runs []Run, metrics []string, want Want, o changepoint.Options) (*History, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	labelOrder := want.Order
	server := func(sv compare.ServerValue) bool {
		for _, w := range want.Server {
			if w == "*" || w == sv.Figure {
				return true
			}
		}
		return false
	}
	var unplaced []string
	if labelOrder != nil {
		var kept []Run
		seen := map[string]bool{}
		for _, r := range runs {
			l := cmp.Or(r.Label, r.ID)
			if Place(labelOrder, l) >= 0 {
				kept = append(kept, r)
			} else if !seen[l] {
				seen[l] = true
				unplaced = append(unplaced, l)
			}
		}
		runs = kept
	}
	h := &History{Labels: []string{}, Series: []Series{}, Runs: len(runs), Options: o, metrics: map[string]compare.Metric{}, units: map[compare.Key]string{}}
	for _, name := range metrics {
		m, ok := compare.MetricNamed(name)
		if !ok {
			var names []string
			for _, m := range compare.Metrics {
				names = append(names, m.Name)
			}
			return nil, fmt.Errorf("no metric %q (valid: %s)", name, joinQuoted(names))
		}
		h.metrics[name] = m
	}
	type group struct {
		label string
		at    time.Time
		runs  []Run
	}
	var groups []*group
	byLabel := map[string]*group{}
	for _, r := range runs {
		l := r.Label
		if l == "" {
			l = r.ID
		}
		g := byLabel[l]
		if g == nil {
			g = &group{label: l, at: r.StartedAt}
			byLabel[l] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, r)
		if r.StartedAt.Before(g.at) {
			g.at = r.StartedAt
		}
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return a.at.Compare(b.at) })
	if labelOrder != nil {
		slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(Place(labelOrder, a.label), Place(labelOrder, b.label)) })
	}
	h.Unplaced = unplaced
	var order []compare.Key
	points := map[compare.Key][]Point{}
	for _, g := range groups {
		h.Labels = append(h.Labels, g.label)
		perKey := map[compare.Key][]float64{}
		for _, r := range g.runs {
			vals := r.Values
			for _, k := range r.Order {
				if _, ok := h.metrics[k.Metric]; !ok {
					continue
				}
				if _, seen := points[k]; !seen {
					points[k] = nil
					order = append(order, k)
				}
				perKey[k] = append(perKey[k], vals[k])
			}
		}
		for _, r := range g.runs {
			for _, sv := range r.Server {
				if !server(sv) {
					continue
				}
				k := serverKey(sv)
				if _, seen := points[k]; !seen {
					points[k] = nil
					order = append(order, k)
				}
				h.units[k] = sv.Unit
				perKey[k] = append(perKey[k], sv.Value)
			}
		}
		for k, vs := range perKey {
			points[k] = append(points[k], Point{Label: g.label, At: g.at, Runs: len(vs), Value: stats.Median(vs), Min: slices.Min(vs), Max: slices.Max(vs), RunsValues: vs})
		}
	}
	// Series in the metrics' order given, then as the runs list them.
	slices.SortStableFunc(order, func(a, b compare.Key) int {
		at := func(m string) int { // the server's figures after compare's metrics
			if i := slices.Index(metrics, m); i >= 0 {
				return i
			}
			return len(metrics)
		}
		return cmp.Compare(at(a.Metric), at(b.Metric))
	})
	// Each series is found apart, on the machine's cores: a history of
	// 500 points and a hundred series takes a tenth of a second on one.
	h.Series = make([]Series, len(order))
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, min(runtime.GOMAXPROCS(0), len(order))) {
		wg.Go(func() {
			for i := range next {
				h.Series[i], errs[i] = h.series(order[i], points[order[i]], o)
			}
		})
	}
	for i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return h, nil
}

// Place is a label's position in an order (-1: none places it).
func Place(order []string, label string) int {
	seg := label
	if i := strings.LastIndexByte(label, '-'); i >= 0 {
		seg = label[i+1:]
	}
	for i, line := range order {
		if line == label || line == seg || len(seg) >= 7 && strings.HasPrefix(line, seg) {
			return i
		}
	}
	return -1
}

// series is one series and its change points.
func (h *History) series(k compare.Key, points []Point, o changepoint.Options) (Series, error) {
	m, ok := h.metrics[k.Metric]
	if !ok { // a server figure: no direction
		m = compare.Metric{Name: k.Metric, Unit: h.units[k]}
	}
	s := Series{Key: k, Unit: m.Unit, Points: points, Changes: []Change{}} // [] in JSON, not null
	vals := make([]float64, len(s.Points))
	for i, p := range s.Points {
		vals[i] = p.Value
	}
	cps, err := changepoint.Find(vals, o)
	if err != nil {
		return s, err
	}
	for _, c := range cps {
		s.Changes = append(s.Changes, Change{Change: c, Before: s.Points[c.Index-1].Label, After: s.Points[c.Index].Label, Verdict: verdict(m, c)})
	}
	return s, nil
}

func verdict(m compare.Metric, c changepoint.Change) string {
	up := c.MeanAfter > c.MeanBefore
	switch m.Direction {
	case compare.HigherIsBetter:
		if up {
			return "better"
		}
		return "worse"
	case compare.LowerIsBetter:
		if up {
			return "worse"
		}
		return "better"
	}
	return "changed"
}

// Regressions are the change points among the newest points of each series
// that made it worse by more than abovePct percent: what --fail-on-change
// fails a cron job on.
func (h *History) Regressions(newest int, abovePct float64) []string {
	var out []string
	for _, s := range h.Series {
		for _, c := range s.Changes {
			if c.Verdict != "worse" || c.Index < len(s.Points)-newest || !(math.Abs(c.Relative())*100 > abovePct) {
				continue
			}
			out = append(out, fmt.Sprintf("%s of %s (%s): %s from %s on (%+.1f%%, p=%.2g)", s.Key.Metric, s.Key.Op, s.Key.Phase, c.Verdict, c.After, c.Relative()*100, c.P))
		}
	}
	return out
}

func joinQuoted(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", n)
	}
	return out
}
