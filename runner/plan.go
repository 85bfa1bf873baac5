// Package runner runs a benchmark: it turns a configuration into a plan (what
// every client will do, computed without touching a database), then runs the
// plan's phases with bound clients against an adapter, recording every
// operation, honouring timeouts, pacing, time limits and cancellation, and
// turns the result into the run's record.
package runner

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/corpus"
	"github.com/tsbench/tsbench/dataset"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/queries"
)

// Write is the operation index of ingestion in OPERATION_PROPORTION; 1..12
// are the query families.
const Write = 0

// Plan is what a run will do. It is pure: computing it touches no database,
// so a bad configuration fails before anything starts.
type Plan struct {
	Config        *config.Config
	Schema        *generator.Schema
	Clients       [][]int // device indices owned by each client (IS_CLIENT_BIND)
	Counts        [config.NumOperations]int64
	RowsPerDevice int64 // rows this run writes per written device
	DataRows      int64 // rows per written device once written: RowsPerDevice, or LOOP×BATCH for a query-only run
	// EarlierData says CHECK_ANSWERS checks a query-only run: its answers
	// are those of data an earlier run wrote, which the caller must find
	// (of this plan's DataFingerprint) or refuse the run.
	EarlierData bool
	Generator   *generator.Generator
	Queries     *queries.Generator
	// Variants are the query rounds' variants (QUERY_ROUNDS ≥ 1): a suite's,
	// or one per family with weight.
	Variants []PlannedVariant
	// Steps are what Run does, in order (see planSteps).
	Steps []PlanStep
	// Notes say what the plan had to adjust (variant values capped).
	Notes []string
	// requests fills the variants' own requests (UseRequests); nil when
	// none runs.
	requests *adapters.Requests
	// Data is FILE_PATH's data set, whose files the writes send instead of
	// generated batches; nil: generated. DataSet is "" when its files are
	// this workload's generated points, else their id (dataset.Identity).
	Data     *dataset.Set
	DataSet  string
	dataErr  *dataErr
	dataNote string // what the run says of the data set, printed and recorded
	// Track is TRACK_PATH's documents, which the ingest sends instead of
	// rows (corpus.go); nil: rows. TrackID is their identity, once
	// PrepareTrack has read them.
	Track   *corpus.Track
	TrackID string
}

// PlannedVariant is a query variant with its own query parameters.
type PlannedVariant struct {
	queries.Variant
	Queries *queries.Generator
	// Request is the variant's own request in the database's language
	// (UseRequests), its placeholders not yet filled; empty: the family's
	// query.
	Request string
}

// NewPlan builds and validates the plan of a configuration.
func NewPlan(c *config.Config) (*Plan, error) {
	track, notes, err := loadTrack(c)
	if err != nil {
		return nil, err
	}
	s, err := generator.NewSchema(c)
	if err != nil {
		return nil, err
	}
	p := &Plan{Config: c, Schema: s, Clients: s.ClientDevices(c.DataClients), Track: track, Notes: notes}
	if track != nil {
		p.dataErr = &dataErr{}
	}
	if err := p.checkDevicesPerWrite(); err != nil {
		return nil, err
	}
	p.Counts = OperationCounts(c.OperationProportion, c.Loop)
	p.RowsPerDevice = p.Counts[Write] * int64(c.BatchSize)
	p.DataRows = p.RowsPerDevice
	if p.DataRows == 0 {
		// A query-only run reads what an earlier run with the same LOOP
		// and batch size wrote.
		p.DataRows = c.Loop * int64(c.BatchSize)
	}
	// The model of the data: a query-only run's answers are those of the
	// rows an earlier run wrote (DataRows).
	p.Generator = generator.New(s, c, p.DataRows)
	if err := p.openData(); err != nil {
		return nil, err
	}
	params := queries.ParamsOf(c)
	if p.Queries, err = queries.New(s, params, p.DataRows); err != nil {
		return nil, err
	}
	if c.QuerySuite != "" && !c.Rounds() {
		// The suite runs only in query rounds: unused, it would be read as
		// measured.
		return nil, &config.Error{Key: "QUERY_SUITE", Value: c.QuerySuite, Msg: "names query variants for the query rounds, but QUERY_ROUNDS=0 runs none", Valid: "empty, or QUERY_ROUNDS ≥ 1"}
	}
	if !c.Rounds() {
		// The lifecycle runs only between the writes and the query rounds:
		// a command set for it would silently never run.
		// (DROP_CACHES_COMMAND has a default, and is a part of the
		// lifecycle whatever starts it.)
		for _, k := range []struct{ key, value string }{{"FLUSH_COMMAND", c.FlushCommand}, {"STOP_COMMAND", c.StopCommand}, {"START_COMMAND", c.StartCommand}} {
			if k.value != "" {
				return nil, &config.Error{Key: k.key, Value: k.value, Msg: "runs in the lifecycle before the query rounds, but QUERY_ROUNDS=0 runs none", Valid: "empty, or QUERY_ROUNDS ≥ 1"}
			}
		}
	}
	if c.Rounds() {
		variants := queries.FamilyVariants(params)
		if c.QuerySuite != "" {
			suite, err := queries.LoadSuite(c.QuerySuite)
			if err != nil {
				return nil, err
			}
			variants = suite.Variants
		}
		if len(variants) == 0 {
			return nil, &config.Error{Key: "QUERY_ROUNDS", Value: fmt.Sprint(c.QueryRounds), Msg: "asks for query rounds, but OPERATION_PROPORTION gives no query family a share and QUERY_SUITE is empty", Valid: "0, or query weights, or a QUERY_SUITE"}
		}
		for _, v := range variants {
			vp, notes, err := v.Apply(params, s, c.QuerySuite)
			if err != nil {
				return nil, err
			}
			qg, err := queries.New(s, vp, p.DataRows)
			if err != nil {
				var ce *config.Error
				if errors.As(err, &ce) {
					ce.Msg = fmt.Sprintf("%s (query variant %s)", ce.Msg, v.Name)
				}
				return nil, err
			}
			p.Notes = append(p.Notes, notes...)
			p.Variants = append(p.Variants, PlannedVariant{Variant: v, Queries: qg})
		}
	}
	if err := p.checkMeasured(); err != nil {
		return nil, err
	}
	if err := p.checkAnswerKeys(); err != nil {
		return nil, err
	}
	if err := p.checkWarmup(); err != nil {
		return nil, err
	}
	p.Steps = p.planSteps()
	if !c.Given["DROP_CACHES_COMMAND"] && c.DropCachesCommand != "" && slices.ContainsFunc(p.Steps, func(s PlanStep) bool { return s.Kind == StepLifecycle }) {
		// Said once a run: as root, the default reaches every process here.
		p.Notes = append(p.Notes, fmt.Sprintf("the lifecycle step runs DROP_CACHES_COMMAND's default, %q: as root it drops the page cache of the whole machine, every process's, not only the database's (without root it is skipped with a warning); DROP_CACHES_COMMAND= turns it off, and the cold round then finds the OS cache warm", c.DropCachesCommand))
	}
	return p, nil
}

// checkDevicesPerWrite: with DEVICE_NUM_PER_WRITE = n > 1 a client writes
// its written devices n at a time, in its order, so n must divide each
// client's count (iot-benchmark's rule), and in the table model the n
// devices of a request must share a table (a tablet fills one table).
func (p *Plan) checkDevicesPerWrite() error {
	c := p.Config
	n := c.DevicesPerWrite
	if n <= 1 {
		return nil
	}
	for k, devs := range p.Clients {
		written := p.written(devs)
		if len(written)%n != 0 {
			return &config.Error{Key: "DEVICE_NUM_PER_WRITE", Value: fmt.Sprint(n),
				Msg:   fmt.Sprintf("does not divide the %d written devices of client %d: some clients will be allocated devices which are not divisible by DEVICE_NUM_PER_WRITE", len(written), k),
				Valid: "a divisor of every client's written devices (DEVICE_NUMBER × REAL_INSERT_RATE spread over DATA_CLIENT_NUMBER)"}
		}
		if !c.TableModel() {
			continue
		}
		for i := 0; i < len(written); i += n {
			chunk := written[i : i+n]
			for _, d := range chunk[1:] {
				if p.Schema.Devices[d].Table != p.Schema.Devices[chunk[0]].Table {
					return &config.Error{Key: "DEVICE_NUM_PER_WRITE", Value: fmt.Sprint(n),
						Msg:   fmt.Sprintf("puts %s and %s, of different tables, into one request of client %d; a table tablet fills one table", p.Schema.Devices[chunk[0]].Name, p.Schema.Devices[d].Name, k),
						Valid: "a divisor of the devices each client writes into each table"}
				}
			}
		}
	}
	return nil
}

// written is the devices of devs that the run writes, in order.
func (p *Plan) written(devs []int) []int {
	var out []int
	for _, d := range devs {
		if p.Schema.Devices[d].Written {
			out = append(out, d)
		}
	}
	return out
}

// MainSchedule is the operation index of each loop iteration of the main
// phase, before the client's offset. Built when the phase runs, not with
// the plan, so that a dry run allocates nothing for it; a byte each, and
// LOOP is bounded (config.MaxLoop), so it takes at most 100 MB.
func (p *Plan) MainSchedule() []uint8 { return Schedule(p.Counts) }

// OperationCounts splits loop operations by weight exactly: each kind gets
// its share rounded by the largest-remainder method, so the counts add up to
// loop and every kind with weight gets at least one when loop allows.
func OperationCounts(weights []float64, loop int64) [config.NumOperations]int64 {
	var counts [config.NumOperations]int64
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	if sum <= 0 || loop <= 0 {
		return counts
	}
	type rem struct {
		i int
		r float64
	}
	var rems []rem
	var given int64
	for i, w := range weights {
		// w/sum is at most 1, so the share never exceeds loop; loop*w
		// first could overflow to +Inf (a weight of 1e307) and its
		// conversion to a count is undefined.
		exact := float64(loop) * (w / sum)
		counts[i] = min(int64(exact), loop)
		given += counts[i]
		if w > 0 {
			rems = append(rems, rem{i, exact - float64(counts[i])})
		}
	}
	// Kinds with weight but no operation yet go first, then by remainder.
	sort.SliceStable(rems, func(a, b int) bool {
		za, zb := counts[rems[a].i] == 0, counts[rems[b].i] == 0
		if za != zb {
			return za
		}
		return rems[a].r > rems[b].r
	})
	for k := 0; given < loop && len(rems) > 0; k = (k + 1) % len(rems) {
		counts[rems[k].i]++
		given++
	}
	return counts
}

// Schedule interleaves the counts evenly (smooth weighted round robin), so
// a 1:1 mix alternates instead of running all writes first.
func Schedule(counts [config.NumOperations]int64) []uint8 {
	var total int64
	for _, c := range counts {
		total += c
	}
	out := make([]uint8, 0, total)
	var cur [config.NumOperations]int64
	for int64(len(out)) < total {
		best := -1
		for i, c := range counts {
			if c == 0 {
				continue
			}
			cur[i] += c
			if best < 0 || cur[i] > cur[best] {
				best = i
			}
		}
		cur[best] -= total
		out = append(out, uint8(best))
	}
	return out
}

// OperationName is the report name of an operation index.
func OperationName(i int) string {
	if i == Write {
		return config.Ingestion
	}
	return queries.FamilyByIndex(i).String()
}

// WrittenPoints is what a complete run writes: rows × sensors × written devices.
func (p *Plan) WrittenPoints() int64 {
	return p.RowsPerDevice * int64(len(p.Schema.Sensors)) * int64(p.Schema.WrittenDevices())
}

// Size is WrittenPoints as a float, which cannot wrap around for sizes no
// run reaches but a config can ask for.
func (p *Plan) Size() float64 {
	return float64(p.RowsPerDevice) * float64(len(p.Schema.Sensors)) * float64(p.Schema.WrittenDevices())
}

// pacing says what holds the clients back, empty when nothing does: a
// throttled run measures another thing than one at full speed.
func (p *Plan) pacing() string {
	c := p.Config
	var parts []string
	if c.TargetThroughput > 0 {
		parts = append(parts, fmt.Sprintf("%g operations/s of all clients on a schedule (TARGET_THROUGHPUT)", c.TargetThroughput))
	}
	if c.OpMinIntervalMS > 0 {
		if c.OpMinIntervalRand {
			parts = append(parts, fmt.Sprintf("each operation of a client at least a random part of %d ms after the start of its previous one (OP_MIN_INTERVAL, OP_MIN_INTERVAL_RANDOM)", c.OpMinIntervalMS))
		} else {
			parts = append(parts, fmt.Sprintf("each operation of a client at least %d ms after the start of its previous one (OP_MIN_INTERVAL)", c.OpMinIntervalMS))
		}
	}
	if c.BatchIntervalMS > 0 {
		parts = append(parts, fmt.Sprintf("each write of a client at least %d ms after the start of its previous one (INTERVAL_BETWEEN_WRITE_BATCH)", c.BatchIntervalMS))
	}
	return strings.Join(parts, "; ")
}

// Describe prints the plan for --dry-run.
func (p *Plan) Describe(w io.Writer) {
	c := p.Config
	if p.Track != nil {
		fmt.Fprintf(w, "Plan: %d clients send a track's documents, each its share of every file, until they are sent\n", c.DataClients)
	} else {
		fmt.Fprintf(w, "Plan: %d clients × LOOP %d operations, %d devices (%d written) in %d groups × %d sensors\n",
			c.DataClients, c.Loop, len(p.Schema.Devices), p.Schema.WrittenDevices(), len(p.Schema.Groups), len(p.Schema.Sensors))
	}
	var parts []string
	for i, n := range p.Counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", OperationName(i), n))
		}
	}
	if c.Rounds() {
		fmt.Fprintf(w, "Query rounds: %d, %d variants × QUERY_LOOP %d queries per client each\n", c.QueryRounds, len(p.Variants), c.QueryLoop)
	} else if p.Track == nil {
		fmt.Fprintf(w, "Each client's operations: %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w, "Steps:")
	for i, s := range p.Steps {
		warm := ""
		if s.Warmed(c) {
			warm = " + " + p.warmupText()
		}
		fmt.Fprintf(w, "%3d. %s%s\n", i+1, s, warm)
	}
	if c.WarmupTimeS > 0 || c.WarmupOperations > 0 {
		fmt.Fprintf(w, "Warm-up: %s in each step marked above, kept apart from the measured figures; query round 1 never has one (it is measured from its first query)\n", p.warmupText())
	}
	if c.CheckAnswers {
		share := "every query"
		if c.CheckAnswersRatio < 1 {
			share = fmt.Sprintf("%g%% of the queries, chosen by QUERY_SEED", 100*c.CheckAnswersRatio)
		}
		fmt.Fprintf(w, "Answers: %s of the query rounds checked against the model of the workload after its latency is taken (CHECK_ANSWERS)\n", share)
	}
	if p.Data != nil {
		fmt.Fprintf(w, "Data: the files of FILE_PATH=%s are sent as they are, not generated\n", c.FilePath)
	}
	if p.Track != nil {
		p.describeTrack(w)
		return
	}
	if p.RowsPerDevice > 0 {
		per := ""
		if c.DevicesPerWrite > 1 {
			per = fmt.Sprintf(", %d devices a request", c.DevicesPerWrite)
		}
		fmt.Fprintf(w, "Writes: %d rows per device in batches of %d%s; %d points in all\n", p.RowsPerDevice, c.BatchSize, per, p.WrittenPoints())
	}
	types := map[generator.DataType]int{}
	for _, s := range p.Schema.Sensors {
		types[s.Type]++
	}
	var ts []string
	for t := generator.Boolean; t <= generator.LastType; t++ {
		if types[t] > 0 {
			ts = append(ts, fmt.Sprintf("%s %d", t, types[t]))
		}
	}
	fmt.Fprintf(w, "Sensor types: %s\n", strings.Join(ts, ", "))
	if pacing := p.pacing(); pacing != "" {
		fmt.Fprintf(w, "Pacing: %s\n", pacing)
	}
	if !c.ClientBind {
		fmt.Fprintf(w, "Devices: every client writes the next batch of any device, from one shared queue (IS_CLIENT_BIND=false)\n")
		return
	}
	for k, devs := range p.Clients {
		if k >= 5 {
			fmt.Fprintf(w, "... %d more clients\n", len(p.Clients)-k)
			break
		}
		var names []string
		for i, d := range devs {
			if i == 8 {
				names = append(names, fmt.Sprintf("... (%d)", len(devs)))
				break
			}
			names = append(names, p.Schema.Devices[d].Name)
		}
		fmt.Fprintf(w, "client %d: %s\n", k, strings.Join(names, " "))
	}
}

// warmupText says what the warm-up of a phase is.
func (p *Plan) warmupText() string {
	if p.Config.WarmupOperations > 0 {
		return fmt.Sprintf("warm-up until every client has run %d operations", p.Config.WarmupOperations)
	}
	return fmt.Sprintf("warm-up of the first %d s", p.Config.WarmupTimeS)
}
