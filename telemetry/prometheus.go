package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Pick is one figure taken from a Prometheus endpoint: the sum of the
// samples named Metric whose labels include Labels, times Scale. A label's
// value may end in * (a prefix) or begin with * (a suffix).
type Pick struct {
	Name, Unit string
	Counter    bool
	Metric     string
	Labels     map[string]string
	Scale      float64 // 0 is 1
	// Chart marks a key series, drawn over time in the HTML page.
	Chart bool
	// Absent0 marks a figure whose samples exist only while there is
	// something to count (a data region's files, which appear with its
	// first write): none is 0. Without it a figure the endpoint does not
	// list is not reported, never 0.
	Absent0 bool
	// Written marks the count of what the run wrote (Series.Written).
	Written bool
}

// Endpoint is a Prometheus metrics endpoint to sample: Name names the
// source ("IoTDB DataNode 127.0.0.1:9092"), Picks are its curated figures,
// and Raw adds every other sample the endpoint lists as a series of its
// own, named as the endpoint names it.
type Endpoint struct {
	Name, URL string
	Picks     []Pick
	Raw       bool
	Client    *http.Client
	// User and Password, when set, go as HTTP basic authentication.
	User, Password string
	// Every spaces the reads out (Spaced): 0 reads it at every sample.
	Every time.Duration
}

// Prometheus is a reader of a metrics endpoint in the Prometheus text
// format, parsed by the Prometheus project's own parser. Its figures are
// fixed by a first scrape here: a pick the endpoint does not list is left
// out and named in the notes. A later scrape that lacks one of them misses
// its sample.
func Prometheus(ctx context.Context, e Endpoint) (Reader, []string, error) {
	if e.Client == nil {
		e.Client = http.DefaultClient
	}
	p := &promReader{e: e}
	samples, err := p.scrape(ctx)
	if err != nil {
		return nil, nil, err
	}
	var missing []string
	for _, pk := range e.Picks {
		listed := slices.ContainsFunc(samples, func(s Sample) bool { return s.Name == pk.Metric && s.Has(pk.Labels) })
		if !listed && !pk.Absent0 {
			missing = append(missing, pk.Name)
			continue
		}
		p.picks = append(p.picks, pk)
	}
	if e.Raw {
		for _, s := range samples {
			p.raw = append(p.raw, s.key())
			p.rawCounter = append(p.rawCounter, s.Counter)
		}
	}
	var notes []string
	if len(missing) > 0 {
		notes = append(notes, fmt.Sprintf("%s does not report %s: not sampled", e.Name, strings.Join(missing, ", ")))
	}
	return p, notes, nil
}

type promReader struct {
	e          Endpoint
	picks      []Pick
	raw        []string // the raw samples' keys, in the first scrape's order
	rawCounter []bool
	keep       *filter      // the picks' samples; nil with Raw
	body       bytes.Buffer // the last answer, its memory reused
}

func (p *promReader) Name() string { return p.e.Name }

// Every is the endpoint's spacing (Spaced).
func (p *promReader) Every() time.Duration { return p.e.Every }

func (p *promReader) Figures() []Series {
	var out []Series
	for _, pk := range p.picks {
		out = append(out, Series{Name: pk.Name, Unit: pk.Unit, Counter: pk.Counter, Chart: pk.Chart, Written: pk.Written})
	}
	for i, k := range p.raw {
		out = append(out, Series{Name: k, Counter: p.rawCounter[i]})
	}
	return out
}

func (p *promReader) Read(ctx context.Context) ([]float64, error) {
	samples, err := p.scrape(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(p.picks)+len(p.raw))
	for _, pk := range p.picks {
		v, found := 0.0, false
		for _, s := range samples {
			if s.Name == pk.Metric && s.Has(pk.Labels) {
				v += s.Value
				found = true
			}
		}
		if !found && !pk.Absent0 {
			return nil, fmt.Errorf("%s no longer lists %s", p.e.URL, pk.Metric)
		}
		if pk.Scale != 0 {
			v *= pk.Scale
		}
		out = append(out, v)
	}
	if len(p.raw) > 0 {
		byKey := make(map[string]float64, len(samples))
		for _, s := range samples {
			byKey[s.key()] = s.Value
		}
		for _, k := range p.raw {
			v, ok := byKey[k]
			if !ok {
				return nil, fmt.Errorf("%s no longer lists %s", p.e.URL, k)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// Sample is one line of the exposition: a name, its labels and a value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
	// Counter: cumulative, a counter or a summary's or histogram's count
	// and sum.
	Counter bool
}

// Has says whether the sample's labels include want (a value may end or
// begin with *, as in Pick).
func (s Sample) Has(want map[string]string) bool {
	for k, v := range want {
		if got, ok := s.Labels[k]; !ok || !matches(got, v) {
			return false
		}
	}
	return true
}

func matches(value, pattern string) bool {
	switch {
	case strings.HasSuffix(pattern, "*"):
		return strings.HasPrefix(value, strings.TrimSuffix(pattern, "*"))
	case strings.HasPrefix(pattern, "*"):
		return strings.HasSuffix(value, strings.TrimPrefix(pattern, "*"))
	}
	return value == pattern
}

// key names a sample as the exposition writes it, its labels sorted.
func (s Sample) key() string {
	if len(s.Labels) == 0 {
		return s.Name
	}
	ls := make([]string, 0, len(s.Labels))
	for k, v := range s.Labels {
		ls = append(ls, fmt.Sprintf("%s=%q", k, v))
	}
	sort.Strings(ls)
	return s.Name + "{" + strings.Join(ls, ",") + "}"
}

func (p *promReader) scrape(ctx context.Context) ([]Sample, error) {
	if !p.e.Raw && p.keep == nil {
		var names []string
		for _, pk := range p.e.Picks {
			names = append(names, pk.Metric)
		}
		p.keep = newFilter(names)
	}
	return scrape(ctx, p.e, p.keep, &p.body)
}

// Scrape reads an endpoint's samples once; with names, only the samples of
// those names.
func Scrape(ctx context.Context, e Endpoint, names ...string) ([]Sample, error) {
	var body bytes.Buffer
	if len(names) == 0 {
		return scrape(ctx, e, nil, &body)
	}
	return scrape(ctx, e, newFilter(names), &body)
}

func scrape(ctx context.Context, e Endpoint, keep *filter, body *bytes.Buffer) ([]Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint %s: %w", e.URL, err)
	}
	if e.User != "" || e.Password != "" {
		req.SetBasicAuth(e.User, e.Password)
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics endpoint %s answered %s", e.URL, resp.Status)
	}
	body.Reset()
	if _, err := body.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("read the metrics of %s: %w", e.URL, err)
	}
	return parseText(body.Bytes(), keep)
}

// filter is the samples a read keeps (by name) and the families whose
// HELP and TYPE lines go with them (a summary's _sum and _count are its
// family's).
type filter struct{ samples, families map[string]bool }

func newFilter(names []string) *filter {
	f := &filter{samples: map[string]bool{}, families: map[string]bool{}}
	for _, n := range names {
		f.samples[n] = true
		f.families[n] = true
		for _, suffix := range []string{"_sum", "_count"} {
			if base, ok := strings.CutSuffix(n, suffix); ok {
				f.families[base] = true
			}
		}
	}
	return f
}

// parseText reads the Prometheus text format into samples. A family's
// HELP and TYPE lines count once: IoTDB's reporter repeats them before
// every sample of a family, which the format's parser refuses. With a
// filter, only the samples it keeps go to the parser (and their families'
// HELP and TYPE lines): the parser is most of a read's cost, and a
// DataNode lists some 5,000 samples of which the picks read a tenth. The
// lines are looked at in place, without copies, for the same reason.
func parseText(text []byte, keep *filter) ([]Sample, error) {
	var buf bytes.Buffer
	seen := map[string]bool{}
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if rest, ok := bytes.CutPrefix(line, []byte("# ")); ok {
			kind, rest, _ := bytes.Cut(rest, []byte(" "))
			if string(kind) == "HELP" || string(kind) == "TYPE" {
				name, _, _ := bytes.Cut(rest, []byte(" "))
				if keep != nil && !keep.families[string(name)] {
					continue
				}
				k := string(kind) + " " + string(name)
				if seen[k] {
					continue
				}
				seen[k] = true
			}
		} else if keep != nil {
			end := bytes.IndexAny(line, "{ ")
			if end < 0 || !keep.samples[string(line[:end])] {
				continue
			}
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(&buf)
	if err != nil {
		return nil, fmt.Errorf("parse the metrics: %w", err)
	}
	order := make([]string, 0, len(fams))
	for n := range fams {
		order = append(order, n)
	}
	sort.Strings(order)
	var out []Sample
	for _, n := range order {
		f := fams[n]
		for _, m := range f.GetMetric() {
			ls := labels(m.GetLabel())
			with := func(k, v string) map[string]string {
				l := maps.Clone(ls)
				l[k] = v
				return l
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out = append(out, Sample{n, ls, m.GetCounter().GetValue(), true})
			case dto.MetricType_GAUGE:
				out = append(out, Sample{n, ls, m.GetGauge().GetValue(), false})
			case dto.MetricType_SUMMARY:
				s := m.GetSummary()
				out = append(out, Sample{n + "_sum", ls, s.GetSampleSum(), true}, Sample{n + "_count", ls, float64(s.GetSampleCount()), true})
				for _, q := range s.GetQuantile() {
					out = append(out, Sample{n, with("quantile", fmt.Sprint(q.GetQuantile())), q.GetValue(), false})
				}
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				out = append(out, Sample{n + "_sum", ls, h.GetSampleSum(), true}, Sample{n + "_count", ls, float64(h.GetSampleCount()), true})
				for _, b := range h.GetBucket() {
					out = append(out, Sample{n + "_bucket", with("le", fmt.Sprint(b.GetUpperBound())), float64(b.GetCumulativeCount()), true})
				}
			default:
				out = append(out, Sample{n, ls, m.GetUntyped().GetValue(), strings.HasSuffix(n, "_total")})
			}
		}
	}
	return out, nil
}

func labels(ls []*dto.LabelPair) map[string]string {
	out := make(map[string]string, len(ls))
	for _, l := range ls {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
