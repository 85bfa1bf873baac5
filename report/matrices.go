package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/record"
)

// ResultHeader is iot-benchmark's Result Matrix header, exactly.
var ResultHeader = []string{"Operation", "okOperation", "okPoint", "failOperation", "failPoint", "throughput(point/s)"}

// LatencyHeader is iot-benchmark's Latency Matrix header (ms) without
// SLOWEST_THREAD, which tsbench does not compute.
var LatencyHeader = []string{"Operation", "AVG", "MIN", "P10", "P25", "MEDIAN", "P75", "P90", "P95", "P99", "P999", "MAX"}

// ThroughputHeader heads the per-window throughput table.
var ThroughputHeader = []string{"Operation", "min", "mean", "median", "max", "windows"}

// phaseTitle names a phase group in table titles.
func phaseTitle(p *record.Phase) string {
	if p.Round > 0 {
		return fmt.Sprintf("%s, round %d", p.Name, p.Round)
	}
	return p.Name
}

// PhaseGroups gathers phases by (name, round) in first-seen order: the query
// variants of one round are run as phases of their own but read as one table.
func PhaseGroups(rec *record.Record) [][]*record.Phase {
	var out [][]*record.Phase
	idx := map[string]int{}
	for i := range rec.Phases {
		p := &rec.Phases[i]
		key := fmt.Sprintf("%s\x00%d", p.Name, p.Round)
		j, ok := idx[key]
		if !ok {
			j = len(out)
			idx[key] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], p)
	}
	return out
}

// PhaseTables returns the tables of a group of phases (one row per
// operation; each row's throughput uses its own phase's elapsed time).
func PhaseTables(group []*record.Phase) []Table {
	title := phaseTitle(group[0])
	res := Table{Title: "Result Matrix (" + title + ")", Header: ResultHeader}
	lat := Table{Title: "Latency (ms) Matrix (" + title + ")", Header: LatencyHeader}
	thr := Table{Title: "Throughput (point/s) per one-second window (" + title + ")", Header: ThroughputHeader}
	svc := Table{Title: "Service Time (ms) Matrix (" + title + ")", Header: LatencyHeader,
		Notes: []string{"With TARGET_THROUGHPUT the latency above includes each operation's wait behind the schedule; service time is the requests' own time."}}
	fail := Table{Title: "Failures (" + title + ")", Header: []string{"Operation", "count", "error"}}
	docs := Table{Title: "Documents (" + title + ")", Header: []string{"Operation", "documents", "document/s", "MB", "MB/s"},
		Notes: []string{"Rows written as documents and the bytes of their bulk bodies (MB = 2^20 bytes, as Rally counts), per second of the phase."}}
	warmRes := Table{Title: "Result Matrix (" + title + ", warm-up)", Header: ResultHeader}
	warmLat := Table{Title: "Latency (ms) Matrix (" + title + ", warm-up)", Header: LatencyHeader}
	answers := Table{Title: "Answers (" + title + ")", Header: []string{"Operation", "checked", "wrong", "checked share", "check ms (mean)"},
		Notes: []string{"CHECK_ANSWERS: answers compared with the model of the workload after each query's latency was taken; a wrong answer is a failed operation (its reason is under Failures). Check ms: the client's time per check (the model's answer and the comparison), not in any latency."}}
	total, warmTotal := 0.0, 0.0
	var unmeasured []string
	for _, p := range group {
		if w := p.Warmup; w != nil {
			warmTotal += w.Seconds
			for _, op := range w.Operations {
				tput := 0.0
				if w.Seconds > 0 {
					tput = float64(op.OKPoints) / w.Seconds
				}
				warmRes.Rows = append(warmRes.Rows, []string{op.Operation, itoa(op.OKOps), itoa(op.OKPoints), itoa(op.FailOps), itoa(op.FailPoints), f2(tput)})
				warmLat.Rows = append(warmLat.Rows, latencyRow(op.Operation, op.Latency()))
			}
		}
		secs := p.Seconds
		total += secs
		if p.Unmeasured() {
			for _, op := range p.Warmup.Operations {
				nm := "not measured"
				res.Rows = append(res.Rows, []string{op.Operation, nm, nm, nm, nm, nm})
			}
			unmeasured = append(unmeasured, p.NotMeasured()+".")
			continue
		}
		for _, op := range p.Operations {
			tput := 0.0
			if secs > 0 {
				tput = float64(op.OKPoints) / secs
			}
			res.Rows = append(res.Rows, []string{op.Operation, itoa(op.OKOps), itoa(op.OKPoints), itoa(op.FailOps), itoa(op.FailPoints), f2(tput)})
			lat.Rows = append(lat.Rows, latencyRow(op.Operation, op.Latency()))
			if s, ok := op.ServiceTime(); ok {
				svc.Rows = append(svc.Rows, latencyRow(op.Operation, s))
			}
			if op.OKDocs > 0 || op.OKBytes > 0 {
				mb := float64(op.OKBytes) / (1 << 20)
				var dps, mbps float64
				if secs > 0 {
					dps, mbps = float64(op.OKDocs)/secs, mb/secs
				}
				docs.Rows = append(docs.Rows, []string{op.Operation, itoa(op.OKDocs), f2(dps), f2(mb), f2(mbps)})
			}
			w := op.WindowThroughput(p.Elapsed())
			thr.Rows = append(thr.Rows, []string{op.Operation, f2(w.Min), f2(w.Mean), f2(w.Median), f2(w.Max), itoa(int64(w.Windows))})
		}
		for _, op := range p.AllOperations() {
			msgs := make([]string, 0, len(op.Errors))
			for m := range op.Errors {
				msgs = append(msgs, m)
			}
			sort.Strings(msgs)
			for _, m := range msgs {
				fail.Rows = append(fail.Rows, []string{op.Operation, itoa(op.Errors[m]), m})
			}
		}
		checked := map[string]*[4]int64{}
		var names []string
		for _, op := range p.AllOperations() {
			c, ok := checked[op.Operation]
			if !ok {
				c = &[4]int64{}
				checked[op.Operation] = c
				names = append(names, op.Operation)
			}
			c[0] += op.AnswersChecked
			c[1] += op.AnswersWrong
			c[2] += op.OKOps + op.FailOps
			c[3] += op.CheckMicros
		}
		for _, n := range names {
			if c := checked[n]; c[0] > 0 {
				answers.Rows = append(answers.Rows, []string{n, itoa(c[0]), itoa(c[1]), f2(100*float64(c[0])/float64(max(c[2], 1))) + "%", f2(float64(c[3]) / 1000 / float64(c[0]))})
			}
		}
	}
	if len(group) == 1 {
		res.Notes = []string{fmt.Sprintf("Test elapsed time: %.2f second; throughput = okPoint / elapsed time", total)}
	} else {
		res.Notes = []string{fmt.Sprintf("Test elapsed time: %.2f second over %d variants, each run on its own; throughput = okPoint / the variant's elapsed time", total, len(group))}
	}
	for _, p := range group {
		if p.Cut != "" {
			res.Notes = append(res.Notes, p.Cut+".")
		}
	}
	res.Notes = append(res.Notes, unmeasured...)
	out := []Table{res, lat}
	if len(warmRes.Rows) > 0 {
		warmRes.Notes = []string{fmt.Sprintf("Warm-up (WARMUP_TIME or WARMUP_OPERATIONS): %.2f second before the measured part, kept out of the tables above, compare and the gate; throughput = okPoint / warm-up time", warmTotal)}
		out = append(out, warmRes, warmLat)
	}
	if len(answers.Rows) > 0 {
		out = append(out, answers)
	}
	if len(svc.Rows) > 0 {
		out = append(out, svc)
	}
	out = append(out, thr)
	if len(docs.Rows) > 0 {
		out = append(out, docs)
	}
	if len(fail.Rows) > 0 {
		out = append(out, fail)
	}
	if srv := serverTable(title, group); len(srv.Rows) > 0 {
		out = append(out, srv)
	}
	return out
}

// serverTable sums up the telemetry of a group of phases (a round's
// variants together): per source and figure, a counter's total, its mean
// and peak per second, a gauge's mean and largest value.
func serverTable(title string, group []*record.Phase) Table {
	t := Table{Title: "Server (" + title + ")", Header: []string{"Source", "Figure", "unit", "total", "per s", "peak per s", "mean", "max", "samples"}, LeftColumns: 3,
		Notes: []string{"SERVER_METRICS_INTERVAL: sampled over the phase, its warm-up included, and at its start and end. CPU in seconds of one CPU: 2 per s is two CPUs busy. Disk bytes are those the process made the storage layer read or write."}}
	type acc struct {
		source, name, unit string
		counter            bool
		total, secs, peak  float64
		mean, max          float64
		samples            int
	}
	var order []string
	accs := map[string]*acc{}
	var missed []string
	for _, p := range group {
		for _, src := range p.Server {
			if src.Missed > 0 {
				missed = append(missed, fmt.Sprintf("%s missed %d samples (%s)", src.Name, src.Missed, src.Error))
			}
			secs := 0.0
			if n := len(src.At); n > 1 {
				secs = float64(src.At[n-1]-src.At[0]) / 1000
			}
			for _, su := range src.Summaries() {
				key := su.Source + "\x00" + su.Name
				a, ok := accs[key]
				if !ok {
					a = &acc{source: su.Source, name: su.Name, unit: su.Unit, counter: su.Counter}
					accs[key] = a
					order = append(order, key)
				}
				if a.samples+su.Samples > 0 {
					a.mean = (a.mean*float64(a.samples) + su.Mean*float64(su.Samples)) / float64(a.samples+su.Samples)
				}
				a.samples += su.Samples
				a.total += su.Total
				a.secs += secs
				a.peak = max(a.peak, su.MaxRate)
				a.max = max(a.max, su.Max)
			}
		}
	}
	for _, key := range order {
		a := accs[key]
		unit, scale := a.unit, 1.0
		if unit == "bytes" {
			unit, scale = "MiB", 1<<20
		}
		if a.counter {
			per := "-"
			if a.secs > 0 {
				per = f2(a.total / a.secs / scale)
			}
			t.Rows = append(t.Rows, []string{a.source, a.name, unit, f2(a.total / scale), per, f2(a.peak / scale), "-", "-", itoa(int64(a.samples))})
			continue
		}
		t.Rows = append(t.Rows, []string{a.source, a.name, unit, "-", "-", "-", f2(a.mean / scale), f2(a.max / scale), itoa(int64(a.samples))})
	}
	t.Notes = append(t.Notes, missed...)
	return t
}

// RunTables returns the tables of every phase of a run.
func RunTables(rec *record.Record) []Table {
	var out []Table
	for _, g := range PhaseGroups(rec) {
		out = append(out, PhaseTables(g)...)
	}
	if len(rec.ServerMetrics) > 0 || rec.ServerMetricsError != "" {
		t := Table{Title: "Server metrics", Header: []string{"Metric", "Value", "Unit"}}
		for _, m := range rec.ServerMetrics {
			v := num(m.Value)
			if m.NotReported {
				v = "not reported"
			}
			t.Rows = append(t.Rows, []string{m.Name, v, m.Unit})
		}
		if rec.ServerMetricsError != "" {
			t.Notes = []string{"Server metrics could not be read: " + rec.ServerMetricsError}
		}
		if f := rec.Footprint; f != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("Data size on disk: %s after the ingest and a flush (%s bytes); bytes per point: over the %s points the ingest wrote.", f.Where, itoa(f.Bytes), itoa(f.Points)))
		}
		out = append(out, t)
	}
	if rec.Verify != nil {
		one, many, _ := rec.Verify.Words()
		v := Table{Title: "Verify", Header: []string{strings.ToUpper(one[:1]) + one[1:], "expected", "found", "error"}}
		for _, m := range rec.Verify.Mismatches {
			v.Rows = append(v.Rows, []string{m.Device, itoa(m.Expected), itoa(m.Found), m.Error})
		}
		v.Rows = append(v.Rows, []string{fmt.Sprintf("all %d %s", rec.Verify.Devices, many), itoa(rec.Verify.Expected), itoa(rec.Verify.Found), ""})
		v.Notes = []string{"Verify: " + rec.Verify.Summary() + "."}
		out = append(out, v)
	}
	return out
}

// WriteRun prints a run: a summary header (text and markdown), then its
// tables; json prints the whole record.
func WriteRun(w io.Writer, format Format, rec *record.Record) error {
	switch format {
	case JSON:
		return WriteJSON(w, rec)
	case CSV:
		return WriteTables(w, CSV, RunsTables([]*record.Record{rec}))
	}
	if !format.MachineReadable() {
		fmt.Fprintf(w, "Run %s", rec.ID)
		if rec.Label != "" {
			fmt.Fprintf(w, " (%s)", rec.Label)
		}
		fmt.Fprintf(w, ": %s on %s, %s, started %s\n", rec.Target.DB, nonEmpty(rec.Target.Version, "unknown version"), rec.Status, rec.StartedAt.UTC().Format("2006-01-02 15:04:05Z"))
		if rec.Target.Wire != "" {
			fmt.Fprintf(w, "Sent as: %s\n", rec.Target.Wire)
		}
		switch {
		case rec.Error != "" && rec.Status == record.StatusFailed:
			fmt.Fprintf(w, "Failed: %s\n", rec.Error)
		case rec.Error != "":
			fmt.Fprintf(w, "Stopped early: %s\n", rec.Error)
		}
		for _, s := range rec.Steps {
			status := "ok"
			switch {
			case s.Error != "":
				status = "failed: " + s.Error
			case s.Skipped:
				status = "skipped: " + s.Detail
			}
			where := ""
			if s.Round > 0 {
				where = fmt.Sprintf(" (before %s round %d", s.Phase, s.Round)
				if s.Variant != "" {
					where += ", " + s.Variant
				}
				where += ")"
			}
			fmt.Fprintf(w, "%s%s: %.2f second, %s\n", s.Name, where, s.Seconds, status)
		}
		fmt.Fprintln(w)
	}
	return WriteTables(w, format, RunTables(rec))
}

// WriteRuns writes saved runs as bench show does: each run's tables, a
// blank line apart; in JSON one record, or an array of several; in CSV one
// table of every run's rows, with what the table leaves out (Prose) written
// to prose.
func WriteRuns(w, prose io.Writer, f Format, recs []*record.Record) error {
	switch {
	case f == JSON && len(recs) > 1:
		return WriteJSON(w, recs)
	case f == CSV:
		tables := RunsTables(recs)
		if err := WriteTables(w, f, tables); err != nil {
			return err
		}
		for _, l := range Prose(tables) {
			fmt.Fprintln(prose, l)
		}
		return nil
	}
	for i, rec := range recs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := WriteRun(w, f, rec); err != nil {
			return err
		}
	}
	return nil
}

// RunsTables are the tables of runs, each with a first column "run", the
// run's id: what one CSV of several runs holds.
func RunsTables(recs []*record.Record) []Table {
	var out []Table
	for _, rec := range recs {
		for _, t := range RunTables(rec) {
			out = append(out, WithColumn(t, "run", rec.ID))
		}
	}
	return out
}

// WithColumn is t with a first column name holding value in every row.
func WithColumn(t Table, name, value string) Table {
	t.Header = append([]string{name}, t.Header...)
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = append([]string{value}, r...)
	}
	t.Rows = rows
	t.LeftColumns = max(t.LeftColumns, 1) + 1
	return t
}

func nonEmpty(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

// latencyRow is a Latency Matrix row.
func latencyRow(op string, l metrics.Latency) []string {
	return []string{op, f2(l.Avg), f2(l.Min), f2(l.P10), f2(l.P25), f2(l.Median), f2(l.P75), f2(l.P90), f2(l.P95), f2(l.P99), f2(l.P999), f2(l.Max)}
}
