package runner

import (
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

// workload is the values and keys of a run's workload fingerprint: the
// configuration's, and the identity of FILE_PATH's files when they are not
// the workload's generated points (dataSet) and of a track's documents.
func workload(c *config.Config, dataSet, track string) (map[string]string, []string) {
	vals := c.Values()
	keys := slices.Clone(c.WorkloadKeys())
	if dataSet != "" {
		// Files that are not this workload's generated points: the run
		// compares only with runs of the same files.
		vals[DataSetKey] = dataSet
		keys = append(keys, DataSetKey)
	}
	if track != "" {
		vals[TrackKey] = track
		keys = append(keys, TrackKey)
	}
	return vals, keys
}

// Fingerprint is the workload fingerprint the run's record will carry; ""
// for a track not yet prepared (PrepareTrack takes its identity).
func (p *Plan) Fingerprint() string {
	if p.Track != nil && p.TrackID == "" {
		return ""
	}
	return config.Fingerprint(workload(p.Config, p.DataSet, p.TrackID))
}

// RowsKey is the pseudo key of the data fingerprint that stands for LOOP
// and OPERATION_PROPORTION: the rows a device the data holds.
const RowsKey = "ROWS_PER_DEVICE"

// DataFingerprint names the points a run of this plan leaves on its target
// (a writing run) or expects there (a query-only run, whose DataRows are
// LOOP × BATCH_SIZE_PER_WRITE): the data keys (config.DataKeys), the rows
// a device, FILE_PATH's files. A query-only run's CHECK_ANSWERS needs the
// data of the same fingerprint.
func (p *Plan) DataFingerprint() string {
	vals, _ := workload(p.Config, p.DataSet, "")
	data := map[string]string{RowsKey: strconv.FormatInt(p.DataRows, 10)}
	names := append(p.Config.DataKeys(), RowsKey)
	if p.DataSet != "" {
		names = append(names, DataSetKey)
	}
	for _, k := range names {
		if v, ok := vals[k]; ok {
			data[k] = v
		}
	}
	return config.Fingerprint(data, names)
}

// Record turns a run's result into its record. A run that could not even
// connect (runErr) still gets one, marked incomplete, so nothing is lost;
// one that ran to its end fails on its operations' errors (MAX_ERROR_RATE)
// or on VERIFY. tool is the tsbench build's version.
func (res *Result) Record(l *config.Loaded, drv *adapters.Driver, tool, label string, runErr error) *record.Record {
	c := l.Config
	vals, keys := workload(c, res.DataSet, res.Track)
	rec := &record.Record{
		SchemaVersion:   record.SchemaVersion,
		ID:              record.NewID(res.Started, label),
		Label:           label,
		Status:          record.StatusComplete,
		Tool:            record.Tool{Version: tool, GoVersion: runtime.Version()},
		Host:            record.CurrentHost(),
		Target:          record.Target{DB: drv.Name, Version: res.ServerVersion, Build: res.ServerBuild, Wire: res.Wire, Documents: drv.Documents},
		StartedAt:       res.Started.UTC(),
		FinishedAt:      res.Finished.UTC(),
		Fingerprint:     config.Fingerprint(vals, keys),
		DataFingerprint: res.DataFingerprint,
		WorkloadKeys:    keys,
		Config:          vals,
		Notes:           append(append([]string(nil), l.Notes...), res.Notes...),
		Warnings:        l.Warnings,
		Instance:        instanceOf(c),
	}
	if rec.FinishedAt.IsZero() {
		rec.FinishedAt = time.Now().UTC()
	}
	if drv.Address != nil {
		rec.Target.Address = drv.Address(c)
	}
	switch {
	case runErr != nil:
		rec.Status, rec.Error = record.StatusIncomplete, runErr.Error()
	case res.Stopped != nil:
		rec.Status, rec.Error = record.StatusIncomplete, res.Stopped.Error()
	}
	for _, s := range res.Steps {
		st := record.Step{Name: s.Name, Phase: s.Phase, Round: s.Round, Variant: s.Variant, Seconds: s.Elapsed.Seconds(), Skipped: s.Skipped != "", Detail: s.Skipped, Output: s.Output}
		if s.Err != nil {
			st.Error = s.Err.Error()
		}
		rec.Steps = append(rec.Steps, st)
	}
	for _, p := range res.Phases {
		ph := record.Phase{Name: p.Name, Round: p.Round, Variant: p.Variant, Clients: p.Clients, StartedAt: p.Started.UTC(), Seconds: p.Elapsed.Seconds(), Operations: p.Operations, Cut: p.Cut, Server: p.Server, Requests: p.Requests}
		if p.Warmup != nil {
			ph.Warmup = &record.Warmup{Seconds: p.Warmup.Elapsed.Seconds(), Operations: p.Warmup.Operations}
		}
		if ph.Unmeasured() {
			rec.Warnings = append(rec.Warnings, ph.NotMeasured())
		}
		rec.Phases = append(rec.Phases, ph)
	}
	rec.AnswersNotChecked = res.AnswersNotChecked
	if res.Verify != nil {
		rec.Verify = VerifyRecord(res.Verify)
	}
	for _, m := range res.ServerMetrics {
		rec.ServerMetrics = append(rec.ServerMetrics, record.ServerMetric{Name: m.Name, Value: m.Value, Unit: m.Unit, NotReported: m.NotReported})
	}
	if f := res.Footprint; f != nil {
		rec.Footprint = &record.Footprint{Bytes: f.Bytes, Points: f.Points, Where: f.Where, Seconds: f.Took.Seconds()}
		rec.ServerMetrics = append(rec.ServerMetrics,
			record.ServerMetric{Name: "Data size on disk", Value: float64(f.Bytes) / (1 << 20), Unit: "MiB"},
			record.ServerMetric{Name: "Bytes per point", Value: rec.Footprint.BytesPerPoint(), Unit: "bytes"})
	}
	if res.ServerMetricsErr != nil {
		rec.ServerMetricsError = res.ServerMetricsErr.Error()
	}
	// A run that was cut short stays incomplete.
	if why := rec.Failure(c.MaxErrorRate); why != "" && rec.Status == record.StatusComplete {
		rec.Status, rec.Error = record.StatusFailed, why
	}
	return rec
}

// instanceOf is what a run's record says of its place in a distributed run.
func instanceOf(c *config.Config) *record.Instance {
	if !c.BenchmarkCluster {
		return nil
	}
	return &record.Instance{Index: c.BenchmarkIndex, Count: c.BenchmarkInstances}
}

// VerifyRecord sums the device counts of a verify into the record's form,
// keeping every device that differs or could not be counted.
func VerifyRecord(counts []DeviceCount) *record.Verify {
	v := &record.Verify{Devices: len(counts)}
	for _, d := range counts {
		v.Documents = v.Documents || d.Documents
		v.Expected += d.Expected
		v.Found += d.Found
		if d.Err != nil || d.Found != d.Expected {
			m := record.Mismatch{Device: d.Device.Name, Expected: d.Expected, Found: d.Found}
			if d.Err != nil {
				m.Error = d.Err.Error()
			}
			v.Mismatches = append(v.Mismatches, m)
		}
	}
	return v
}
