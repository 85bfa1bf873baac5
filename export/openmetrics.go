package export

import (
	"bytes"
	"io"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/tsbench/tsbench/compare"
)

// omUnits are the OpenMetrics units of compare's units, spelled out as the
// format wants them in a family's name.
var omUnits = map[string]string{
	"point/s": "points_per_second",
	"docs/s":  "documents_per_second",
	"MB/s":    "mebibytes_per_second", // compare's MB are 2^20 bytes, as Rally's
	"ms":      "milliseconds",
	"%":       "percent",
	"ops":     "operations",
}

// FamilyName is a metric's OpenMetrics family: tsbench_, its field and its
// unit ("mean latency" is tsbench_mean_latency_milliseconds).
func FamilyName(m compare.Metric) string {
	n := "tsbench_" + Field(m.Name)
	if u := omUnits[m.Unit]; u != "" {
		n += "_" + u
	}
	return n
}

// WriteOpenMetrics writes the runs as OpenMetrics text: a gauge family per
// metric, a sample per run, phase and operation labelled with them, at the
// run's start.
func WriteOpenMetrics(w io.Writer, runs []Run) error {
	fams := map[string]*dto.MetricFamily{}
	var order []string
	gauge := dto.MetricType_GAUGE
	for _, r := range Rows(runs) {
		name := FamilyName(r.Metric)
		f := fams[name]
		if f == nil {
			help := r.Metric.Name + " of an operation in a phase of a tsbench run (" + r.Unit + ")"
			f = &dto.MetricFamily{Name: &name, Help: &help, Type: &gauge}
			if u := omUnits[r.Unit]; u != "" {
				f.Unit = &u
			}
			fams[name] = f
			order = append(order, name)
		}
		v, ts := r.Value, r.Run.StartedAt.UnixMilli()
		f.Metric = append(f.Metric, &dto.Metric{
			Label: []*dto.LabelPair{
				pair("run", r.Run.ID), pair("label", r.Run.Label), pair("db", r.Run.DB), pair("version", r.Run.Version),
				pair("phase", r.Key.Phase), pair("round", strconv.Itoa(r.Key.Round)), pair("operation", r.Key.Op),
			},
			Gauge:       &dto.Gauge{Value: &v},
			TimestampMs: &ts,
		})
	}
	var buf bytes.Buffer
	for _, name := range order {
		if _, err := expfmt.MetricFamilyToOpenMetrics(&buf, fams[name]); err != nil {
			return err
		}
	}
	if _, err := expfmt.FinalizeOpenMetrics(&buf); err != nil {
		return err
	}
	_, err := w.Write(fixedTimestamps(buf.Bytes()))
	return err
}

// fixedTimestamps writes each sample's timestamp, its last field, in
// fixed-point seconds: expfmt writes 1.796393844597e+09, which the Python
// Prometheus client's parser reads as 1.8 seconds after the epoch, in
// silence. Every sample here has a timestamp.
func fixedTimestamps(text []byte) []byte {
	lines := bytes.Split(text, []byte("\n"))
	for i, l := range lines {
		sp := bytes.LastIndexByte(l, ' ')
		if len(l) == 0 || l[0] == '#' || sp < 0 || !bytes.ContainsAny(l[sp+1:], "eE") {
			continue
		}
		ts, err := strconv.ParseFloat(string(l[sp+1:]), 64)
		if err != nil {
			continue
		}
		lines[i] = append(l[:sp+1:sp+1], strconv.FormatFloat(ts, 'f', -1, 64)...)
	}
	return bytes.Join(lines, []byte("\n"))
}

func pair(name, value string) *dto.LabelPair { return &dto.LabelPair{Name: &name, Value: &value} }
