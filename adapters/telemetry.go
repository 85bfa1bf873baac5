package adapters

import (
	"context"
	"fmt"

	"github.com/tsbench/tsbench/telemetry"
)

// SampledMetrics is a source of server telemetry made of a MetricsReporter's
// figures, read at every sample instead of only before the first measured
// phase and after the last: the figures a first read reports, counters as
// counters, the rest as gauges (Rally's cumulative totals grow over time).
// A later read that lacks one of them misses its sample.
func SampledMetrics(ctx context.Context, name string, mr MetricsReporter) (telemetry.Reader, error) {
	ms, err := mr.ServerMetrics(ctx)
	if err != nil {
		return nil, err
	}
	r := &sampledMetrics{name: name, mr: mr}
	for _, m := range ms {
		if !m.NotReported {
			r.figures = append(r.figures, telemetry.Series{Name: m.Name, Unit: m.Unit, Counter: m.Counter})
		}
	}
	return r, nil
}

type sampledMetrics struct {
	name    string
	mr      MetricsReporter
	figures []telemetry.Series
}

func (r *sampledMetrics) Name() string                { return r.name }
func (r *sampledMetrics) Figures() []telemetry.Series { return r.figures }

func (r *sampledMetrics) Read(ctx context.Context) ([]float64, error) {
	ms, err := r.mr.ServerMetrics(ctx)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]ServerMetric, len(ms))
	for _, m := range ms {
		byName[m.Name] = m
	}
	out := make([]float64, len(r.figures))
	for i, f := range r.figures {
		m, ok := byName[f.Name]
		if !ok || m.NotReported {
			return nil, fmt.Errorf("%s no longer reported", f.Name)
		}
		out[i] = m.Value
	}
	return out, nil
}
