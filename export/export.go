// Package export writes saved runs where teams already look: a CSV in the
// long format (a row per run, phase, operation and metric), OpenMetrics
// text, and into a metrics store, IoTDB or Elasticsearch (and OpenSearch),
// whose points a Grafana dashboard (deploy/grafana) charts over weeks. The
// values are compare's (compare.RunValues), read from the results index.
package export

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
)

// Run is one saved run as exported: who it is and its values.
type Run struct {
	ID, Label   string
	StartedAt   time.Time
	DB          string
	Version     string
	Server      string
	Fingerprint string
	Status      string
	Values      map[compare.Key]float64
	Order       []compare.Key
}

// Row is one value of a run: the long format's line.
type Row struct {
	Run    *Run
	Key    compare.Key
	Unit   string
	Value  float64
	Metric compare.Metric
}

// Rows are the runs' values, run by run in the order given, each run's in
// the order compare lists them.
func Rows(runs []Run) []Row {
	var out []Row
	for i := range runs {
		r := &runs[i]
		for _, k := range r.Order {
			m, _ := compare.MetricNamed(k.Metric)
			out = append(out, Row{Run: r, Key: k, Unit: m.Unit, Value: r.Values[k], Metric: m})
		}
	}
	return out
}

var percentile = regexp.MustCompile(`^([0-9.]+)th percentile (.+)$`)

// Field is a metric's name as a field or measurement of a store: lower
// case, words joined by '_', a percentile as a suffix ("99.9th percentile
// latency" is latency_p99_9), always starting with a letter.
func Field(metric string) string {
	if m := percentile.FindStringSubmatch(metric); m != nil {
		return Name(m[2]) + "_p" + strings.ReplaceAll(m[1], ".", "_")
	}
	return Name(metric)
}

// Name is s with every run of characters other than letters, digits and
// '_' made one '_': a name IoTDB, Elasticsearch and OpenMetrics all take
// without quoting.
func Name(s string) string {
	var b strings.Builder
	under := false
	for _, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !ok {
			if !under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = true
			continue
		}
		b.WriteRune(c)
		under = false
	}
	return strings.TrimSuffix(b.String(), "_")
}

// fields are the metrics' field names in compare's order.
func fields() []string {
	var out []string
	for _, m := range compare.Metrics {
		out = append(out, Field(m.Name))
	}
	return out
}

// groups are a run's values by phase and operation, in the run's order:
// one point (IoTDB) or document (Elasticsearch) each.
type group struct {
	Phase  string
	Round  int
	Op     string
	Fields map[string]float64
}

func groups(r *Run) []group {
	var out []group
	at := map[[2]string]int{}
	for _, k := range r.Order {
		id := [2]string{k.Phase, k.Op}
		i, ok := at[id]
		if !ok {
			i = len(out)
			at[id] = i
			out = append(out, group{Phase: k.Phase, Round: k.Round, Op: k.Op, Fields: map[string]float64{}})
		}
		out[i].Fields[Field(k.Metric)] = r.Values[k]
	}
	return out
}

// sortedFields are a group's field names in compare's order.
func (g group) sortedFields() []string {
	var out []string
	for _, f := range fields() {
		if _, ok := g.Fields[f]; ok {
			out = append(out, f)
		}
	}
	return out
}

// checkNames refuses runs whose phases or operations would share a name
// once made a store's name (two operations that differ only in a
// character the store cannot hold).
func checkNames(runs []Run) error {
	for i := range runs {
		seen := map[string][2]string{}
		for _, g := range groups(&runs[i]) {
			n := Name(runs[i].DB) + "." + Name(g.Phase) + "." + Name(g.Op)
			if prev, ok := seen[n]; ok && prev != [2]string{g.Phase, g.Op} {
				return fmt.Errorf("run %s: %s of %s and %s of %s would both be %s", runs[i].ID, g.Op, g.Phase, prev[1], prev[0], n)
			}
			seen[n] = [2]string{g.Phase, g.Op}
		}
	}
	return nil
}

// byStart orders runs by their start, then id.
func byStart(runs []Run) {
	slices.SortStableFunc(runs, func(a, b Run) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// FromEntries reads the runs of a results folder's entries, as RunOf reads
// their records.
func FromEntries(entries []*catalog.Entry) ([]Run, error) {
	runs := make([]Run, 0, len(entries))
	for _, e := range entries {
		vals, order, err := e.Values()
		if err != nil {
			return nil, err
		}
		runs = append(runs, Run{ID: e.ID, Label: e.Label, StartedAt: e.StartedAt, DB: e.DB, Version: e.Version, Server: e.Server,
			Fingerprint: e.Fingerprint, Status: e.Status, Values: vals, Order: order})
	}
	return runs, nil
}

// RunOf is a record as an export reads it.
func RunOf(rec *record.Record) Run {
	vals, order := compare.RunValues(rec)
	return Run{ID: rec.ID, Label: rec.Label, StartedAt: rec.StartedAt, DB: rec.Target.DB, Version: rec.Target.Version, Server: rec.Target.Identity(),
		Fingerprint: rec.Fingerprint, Status: rec.Status, Values: vals, Order: order}
}
