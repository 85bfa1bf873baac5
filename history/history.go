// Package history lines the runs of labels up in time, a point a label
// (its runs' median), per metric, operation and phase group, and finds
// where each series changed level (package changepoint): the weekly
// results of master over a quarter, and the week a slowdown came in.
package history

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tsbench/tsbench/changepoint"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
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
	Before, After string
	// Verdict is "worse" or "better" by the metric's direction, or
	// "changed" for a metric with none.
	Verdict string
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
	Labels  []string            `json:"labels"`
	Runs    int                 `json:"runs"`
	Series  []Series            `json:"series"`
	Options changepoint.Options `json:"options"`
	metrics map[string]compare.Metric
}

// Build lines the runs up: a point per label (a run without one is its
// own, by id), labels in the order their first runs started, and the change
// points of every series of the metrics named.
func Build(runs []*record.Record, metrics []string, o changepoint.Options) (*History, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	h := &History{Runs: len(runs), Options: o, metrics: map[string]compare.Metric{}}
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
		runs  []*record.Record
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
	var order []compare.Key
	points := map[compare.Key][]Point{}
	for _, g := range groups {
		h.Labels = append(h.Labels, g.label)
		perKey := map[compare.Key][]float64{}
		for _, r := range g.runs {
			vals, keys := compare.RunValues(r)
			for _, k := range keys {
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
		for k, vs := range perKey {
			points[k] = append(points[k], Point{Label: g.label, At: g.at, Runs: len(vs), Value: median(vs), Min: slices.Min(vs), Max: slices.Max(vs), RunsValues: vs})
		}
	}
	// Series in the metrics' order given, then as the runs list them.
	slices.SortStableFunc(order, func(a, b compare.Key) int {
		return cmp.Compare(slices.Index(metrics, a.Metric), slices.Index(metrics, b.Metric))
	})
	for _, k := range order {
		s := Series{Key: k, Unit: h.metrics[k.Metric].Unit, Points: points[k]}
		vals := make([]float64, len(s.Points))
		for i, p := range s.Points {
			vals[i] = p.Value
		}
		cps, err := changepoint.Find(vals, o)
		if err != nil {
			return nil, err
		}
		for _, c := range cps {
			s.Changes = append(s.Changes, Change{Change: c, Before: s.Points[c.Index-1].Label, After: s.Points[c.Index].Label, Verdict: verdict(h.metrics[k.Metric], c)})
		}
		h.Series = append(h.Series, s)
	}
	return h, nil
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

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
