package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/metrics"
	"github.com/tsbench/tsbench/pace"
	"github.com/tsbench/tsbench/queries"
	"github.com/tsbench/tsbench/telemetry"
)

// Options are how a run reports while it works.
type Options struct {
	// Log receives one-line messages (steps, warnings); Progress receives
	// the progress display. Either may be io.Discard.
	Log      io.Writer
	Progress io.Writer
	// Terminal draws a live bar on Progress instead of periodic lines.
	Terminal bool
	// StartAt, when set, is when the first measured phase begins: the
	// instances of a distributed run prepare (cleanup, schema) in their own
	// time and then start together. An instance that is ready only after
	// it stops rather than measure a run that is not simultaneous.
	StartAt time.Time
	// Env is added to the environment of the lifecycle's commands (bench
	// routine: TSBENCH_SIDE, which an external side's commands read).
	Env []string
	// Announce writes a line on Progress as each measured phase starts
	// (bench routine, whose runs' own output goes to a log: the user sees
	// which round and class runs now).
	Announce bool
}

// Step is a lifecycle step's outcome.
type Step struct {
	Name    string
	Phase   string // the phase it prepared, if any
	Round   int
	Variant string
	Elapsed time.Duration
	Err     error
	Skipped string // why it did not run, when it did not
	Output  string // what a shell command printed (trimmed)
}

// Phase is one measured phase's outcome.
type Phase struct {
	Name       string
	Round      int
	Variant    string // query rounds: the variant this phase ran
	Clients    int
	Started    time.Time
	Elapsed    time.Duration
	Operations []*metrics.Snapshot
	// Cut says why the phase ended before its schedule (TEST_MAX_TIME);
	// empty when every scheduled operation ran.
	Cut string
	// Warmup is what ran before the measured part (WARMUP_TIME,
	// WARMUP_OPERATIONS): Started and Elapsed above then begin where it
	// ended. Nil for a phase without one.
	Warmup *Warmup
	// Server is the telemetry sampled over the phase, its warm-up
	// included (SERVER_METRICS_INTERVAL); nil when off.
	Server []telemetry.Source
	// Requests are the first of a variant's own requests, as the first
	// client sent them; nil for the family's queries.
	Requests []string
}

// Warmup is a phase's warm-up: its operations, kept apart from the
// phase's own, and how long it lasted.
type Warmup struct {
	Elapsed    time.Duration
	Operations []*metrics.Snapshot
}

// DeviceCount is one device's verify result.
type DeviceCount struct {
	Device   *generator.Device
	Expected int64
	Found    int64
	Err      error
	// Documents says the count is an index's documents (a track's run,
	// VerifyTrack): Device names the index.
	Documents bool
}

// Result is what a run did, also when it stopped early.
type Result struct {
	Started, Finished time.Time
	ServerVersion     string
	ServerBuild       string // adapters.Builder's answer, if the adapter has one
	// Wire is how the adapter sent the data (adapters.Wirer), if it says.
	Wire   string
	Steps  []Step
	Phases []Phase
	Verify []DeviceCount // nil unless VERIFY
	// ServerMetrics are the database's own figures over the run (its
	// MetricsReporter): counters as their change, the rest as read at the end.
	ServerMetrics []adapters.ServerMetric
	// Footprint is the data's size after the ingest (adapters.Sizer,
	// with SERVER_METRICS_INTERVAL on); nil when not measured.
	Footprint *Footprint
	// ServerMetricsErr says why they could not be read, if they could not.
	ServerMetricsErr error
	// Stopped says why the run ended before its plan was done (a signal, a
	// failed step); nil for a complete run.
	Stopped error
	// DataSet is the id of FILE_PATH's files when they are not the
	// workload's generated points (Plan.DataSet); the record's fingerprint
	// holds it as DATA_SET.
	DataSet string
	// DataFingerprint names the data the run wrote (Plan.DataFingerprint);
	// "" when it wrote nothing.
	DataFingerprint string
	// Track is the identity of TRACK_PATH's documents (Plan.TrackID); the
	// record's fingerprint holds it as TrackKey.
	Track string
	// Notes are facts of the run a reader must know (a phase that
	// TEST_MAX_TIME ended early).
	Notes []string
	// AnswersNotChecked says why CHECK_ANSWERS checked no answer of the
	// query rounds: the ingest did not store the whole workload.
	AnswersNotChecked string
}

// VerifyFailed reports whether a verify found a device that differs.
func (r *Result) VerifyFailed() bool {
	for _, v := range r.Verify {
		if v.Err != nil || v.Expected != v.Found {
			return true
		}
	}
	return false
}

// ErrConnect marks failures to open the database.
var ErrConnect = errors.New("cannot open the database")

// Run executes a plan against a driver's database. It always returns a
// Result (check Result.Stopped); the error is non-nil only when nothing
// could run at all (the database could not be opened).
func Run(ctx context.Context, p *Plan, drv *adapters.Driver, opts Options) (*Result, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	c := p.Config
	res := &Result{Started: time.Now(), DataSet: p.DataSet}
	if p.RowsPerDevice > 0 && p.Track == nil {
		res.DataFingerprint = p.DataFingerprint()
	}
	defer func() { res.Finished = time.Now() }()
	if p.Data != nil {
		res.Notes = append(res.Notes, p.dataNote)
	}

	openCtx, cancel := context.WithTimeout(ctx, time.Duration(c.WriteTimeoutMS)*time.Millisecond)
	a, err := drv.Open(openCtx, adapters.Params{Config: c, Schema: p.Schema, Track: p.Track})
	cancel()
	if err != nil {
		return res, fmt.Errorf("%w %s: %w", ErrConnect, drv.Name, err)
	}
	defer a.Close()
	if p.Track != nil {
		if _, ok := a.(adapters.DocumentWriter); !ok || p.TrackID == "" {
			return res, fmt.Errorf("TRACK_PATH: %s writes no documents, or the track was not prepared (Plan.PrepareTrack)", drv.Name)
		}
		res.Track = p.TrackID
	}
	if v, ok := a.(adapters.Versioner); ok {
		vctx, cancel := context.WithTimeout(ctx, time.Duration(c.ReadTimeoutMS)*time.Millisecond)
		res.ServerVersion, err = v.ServerVersion(vctx)
		cancel()
		if err != nil {
			return res, fmt.Errorf("%w %s: %w", ErrConnect, drv.Name, err)
		}
	}

	if b, ok := a.(adapters.Builder); ok {
		res.ServerBuild = b.ServerBuild()
	}
	if wr, ok := a.(adapters.Wirer); ok {
		res.Wire = wr.Wire()
	}

	w := walker{p: p, a: a, drv: drv, opts: opts, res: res,
		lc: lifecycle{c: c, a: a, drv: drv, log: opts.Log, res: res, env: opts.Env}, wrong: &wrongLog{w: opts.Log}}
	if c.CheckAnswers {
		// Validate refuses CHECK_ANSWERS for a driver without answers.
		if w.answerer, _ = a.(adapters.Answerer); w.answerer == nil {
			return res, fmt.Errorf("CHECK_ANSWERS: %s returns no answers to check", drv.Name)
		}
	}
	mr, _ := a.(adapters.MetricsReporter)
	var before []adapters.ServerMetric
	measuring, started := false, false
	for _, st := range p.Steps {
		measured := st.Kind != StepCleanup && st.Kind != StepSchema && st.Kind != StepVerify
		if measured && !started {
			started = true
			if !opts.StartAt.IsZero() && !w.waitForStart(ctx) {
				break
			}
		}
		if mr != nil && measured && !measuring {
			measuring = true
			before, res.ServerMetricsErr = w.serverMetrics(ctx, mr)
		}
		if mr != nil && st.Kind == StepVerify && measuring {
			w.finishServerMetrics(ctx, mr, before)
			measuring = false
		}
		if !w.do(ctx, st) {
			break
		}
	}
	if mr != nil && measuring {
		w.finishServerMetrics(ctx, mr, before)
	}
	return res, nil
}

func (w *walker) serverMetrics(ctx context.Context, mr adapters.MetricsReporter) ([]adapters.ServerMetric, error) {
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(w.p.Config.ReadTimeoutMS)*time.Millisecond)
	defer cancel()
	return mr.ServerMetrics(mctx)
}

// finishServerMetrics reads the metrics after the measured phases: a
// counter becomes its change since before (its value when the server was
// restarted in between and the counter began again), the rest stay as read.
func (w *walker) finishServerMetrics(ctx context.Context, mr adapters.MetricsReporter, before []adapters.ServerMetric) {
	after, err := w.serverMetrics(ctx, mr)
	if err != nil {
		w.res.ServerMetricsErr = err
		return
	}
	start := map[string]float64{}
	for _, m := range before {
		if !m.NotReported {
			start[m.Name] = m.Value
		}
	}
	for i, m := range after {
		if !m.Counter || m.NotReported {
			continue
		}
		b, ok := start[m.Name]
		switch {
		case !ok:
			// Its change over the run is unknown: not its total.
			after[i].NotReported, after[i].Value = true, 0
		case m.Value >= b:
			after[i].Value = m.Value - b
		}
	}
	w.res.ServerMetrics = after
}

// waitForStart waits until Options.StartAt; false when the run must stop,
// because it is too late or was interrupted.
func (w *walker) waitForStart(ctx context.Context) bool {
	at := w.opts.StartAt
	return w.step(ctx, "wait for the start time "+at.UTC().Format(time.RFC3339Nano), "", func(ctx context.Context) error {
		if late := time.Since(at); late > 0 {
			return fmt.Errorf("this instance was ready %s after the start time %s that all instances were to begin their measured phase at: its phase would not overlap theirs (give a later --start-at, or start the instances sooner)", late.Round(time.Millisecond), at.UTC().Format(time.RFC3339))
		}
		return pace.Until(ctx, at)
	})
}

// walker carries what Run's steps share.
type walker struct {
	p    *Plan
	a    adapters.Adapter
	drv  *adapters.Driver
	opts Options
	res  *Result
	lc   lifecycle
	// answerer checks answers (CHECK_ANSWERS); nil when none are checked.
	answerer adapters.Answerer
	wrong    *wrongLog
	// sampler is the phases' telemetry; nil until the first phase and
	// after a lifecycle step, when the server's processes are looked up.
	sampler *telemetry.Sampler
}

// do runs one step of the plan and reports whether the run may go on.
func (w *walker) do(ctx context.Context, st PlanStep) bool {
	p, c, res := w.p, w.p.Config, w.res
	switch st.Kind {
	case StepCleanup:
		return w.step(ctx, "cleanup", st.Skip, func(ctx context.Context) error {
			if err := w.a.Cleanup(ctx); err != nil {
				return err
			}
			return pace.For(ctx, st.Wait)
		})
	case StepSchema:
		return w.step(ctx, "create schema", st.Skip, w.a.CreateSchema)
	case StepMixed:
		wk := mixedWork(p)
		wk.warm = st.Warmed(c)
		ok := w.phase(ctx, wk)
		w.footprint(ctx, &res.Phases[len(res.Phases)-1])
		return ok
	case StepIngest:
		wk := work{name: "ingest", schedule: schedule{n: p.Counts[Write], one: Write}, queries: p.Queries, warm: st.Warmed(c)}
		wk.names[Write] = config.Ingestion
		ok := w.phase(ctx, wk)
		w.footprint(ctx, &res.Phases[len(res.Phases)-1])
		return ok
	case StepLifecycle:
		name := ""
		if st.Variant != nil {
			name = st.Variant.Name
		}
		w.sampler = nil
		return w.lc.run(ctx, st.Round, name)
	case StepQuery:
		v := st.Variant
		wk := work{name: "query", round: st.Round, variant: v.Name, queries: v.Queries, schedule: schedule{n: c.QueryLoop, one: int(v.Family)}, warm: st.Warmed(c)}
		wk.names[int(v.Family)] = v.Name
		if v.Request != "" {
			wk.own = v
		}
		// A variant's own request has no model to check its answer by.
		if w.answerer != nil && w.ingestStored() && wk.own == nil {
			wk.check = &answerCheck{ans: w.answerer, gen: p.Generator, ratio: c.CheckAnswersRatio, seed: uint64(c.QuerySeed), wrong: w.wrong}
		}
		return w.phase(ctx, wk)
	case StepVerify:
		cnt, ok := w.a.(adapters.Counter)
		if !ok {
			res.Stopped = fmt.Errorf("verify: %s cannot count points", w.drv.Name)
			return false
		}
		skip := ""
		for _, ph := range res.Phases {
			if ph.Cut != "" {
				// The workload was not all written, by the user's choice:
				// a count against it would report that choice as a loss.
				skip = ph.Cut + ", so the workload was not all written"
			}
		}
		return w.step(ctx, "verify", skip, func(ctx context.Context) error {
			if dw, ok := w.a.(adapters.DocumentWriter); ok && p.Track != nil {
				res.Verify = VerifyTrack(ctx, p, dw)
			} else {
				res.Verify = Verify(ctx, p, cnt)
			}
			// A count that failed proves nothing either way: the step says
			// so instead of "ok" beside devices that seem to differ.
			failed, first := 0, error(nil)
			for _, d := range res.Verify {
				if d.Err != nil {
					if failed == 0 {
						first = d.Err
					}
					failed++
				}
			}
			if failed > 0 {
				return fmt.Errorf("could not count %d of %d devices: %w", failed, len(res.Verify), first)
			}
			return nil
		})
	}
	res.Stopped = fmt.Errorf("the plan holds a step tsbench cannot run: %s", st)
	return false
}

// step runs a named setup step, recording its outcome; a failure stops the run.
func (w *walker) step(ctx context.Context, name, skip string, f func(context.Context) error) bool {
	if skip != "" {
		w.res.Steps = append(w.res.Steps, Step{Name: name, Skipped: skip})
		return true
	}
	fmt.Fprintf(w.opts.Log, "%s...\n", name)
	t0 := time.Now()
	err := f(ctx)
	w.res.Steps = append(w.res.Steps, Step{Name: name, Elapsed: time.Since(t0), Err: err})
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// Ctrl-C or TEST_MAX_TIME ended it: the step did not fail.
			w.res.Stopped = fmt.Errorf("%s interrupted: %w", name, ctx.Err())
			return false
		}
		w.res.Stopped = fmt.Errorf("%s failed: %w", name, err)
		return false
	}
	return true
}

// phase runs one measured phase; an interrupt stops the run after it.
func (w *walker) phase(ctx context.Context, wk work) bool {
	wk.docs = w.drv.Documents
	sm := w.sampling(ctx)
	ph := runPhase(ctx, w.p, w.a, wk, w.opts)
	if sm != nil {
		ph.Server = sm.Stop()
	}
	w.res.Phases = append(w.res.Phases, ph)
	if ph.Cut != "" {
		w.res.Notes = append(w.res.Notes, ph.Cut)
	}
	if ph.Warmup != nil && ctx.Err() == nil {
		var measured int64
		for _, s := range ph.Operations {
			measured += s.OKOps + s.FailOps
		}
		if measured == 0 {
			// The user asked for figures of this phase and gets none: say
			// so where they look, not only in an empty row.
			note := fmt.Sprintf("the warm-up lasted the whole %s phase (%.2f s): nothing of it was measured; a phase this short needs WARMUP_OPERATIONS, or a shorter WARMUP_TIME", phaseName(&wk), ph.Warmup.Elapsed.Seconds())
			w.res.Notes = append(w.res.Notes, note)
			fmt.Fprintln(w.opts.Log, "warning: "+note)
		}
	}
	if err := ctx.Err(); err != nil {
		w.res.Stopped = fmt.Errorf("interrupted: %w", context.Cause(ctx))
		return false
	}
	if err := w.p.dataFailed(); err != nil {
		w.res.Stopped = err
		return false
	}
	return true
}

// sharedDevices is IS_CLIENT_BIND=false: every client takes the next
// device batch from one queue over all written devices.
type sharedDevices struct {
	next    atomic.Int64
	devices []int
	streams []batches
	locks   []sync.Mutex
}

// work is what one phase runs: a schedule of operation indices (Write or a
// query family), the query parameters, and the report name of each index.
type work struct {
	name     string
	round    int
	variant  string
	schedule schedule
	queries  *queries.Generator
	names    [config.NumOperations]string
	docs     bool // the database counts rows as documents (Driver.Documents)
	// warm: WARMUP_TIME or WARMUP_OPERATIONS applies to this phase.
	warm bool
	// check is CHECK_ANSWERS in a query round; nil when not checked.
	check *answerCheck
	// own is the query round's variant when it sends a request of its own
	// (UseRequests); nil: the family's query.
	own *PlannedVariant
}

// schedule is the operation index of each of a client's n iterations:
// ops for a mix (a byte each), or one index for a phase of one operation,
// which then takes no memory however long it is.
type schedule struct {
	n   int64
	ops []uint8
	one int
}

func (s schedule) at(i int64) int {
	if s.ops == nil {
		return s.one
	}
	return int(s.ops[i])
}

// mixedWork is iot-benchmark's single phase: LOOP operations per client in
// OPERATION_PROPORTION's mix.
func mixedWork(p *Plan) work {
	var w work
	kinds, total, only := 0, int64(0), 0
	for i, n := range p.Counts {
		if n > 0 {
			kinds, total, only = kinds+1, total+n, i
		}
	}
	if kinds == 1 {
		// One operation (a write-only run): nothing to interleave.
		w = work{name: "main", schedule: schedule{n: total, one: only}, queries: p.Queries}
	} else {
		ops := p.MainSchedule()
		w = work{name: "main", schedule: schedule{n: int64(len(ops)), ops: ops}, queries: p.Queries}
	}
	for i, n := range p.Counts {
		if n > 0 {
			w.names[i] = OperationName(i)
		}
	}
	return w
}

// client is one data client's state.
type client struct {
	id       int
	sent     []string  // the first of a variant's own requests this client sent
	start    time.Time // the phase's start, from which a schedule counts
	p        *Plan
	w        *work
	a        adapters.Adapter
	rec      *metrics.Recorder
	ops      [config.NumOperations]*metrics.Op
	queries  *queries.Client
	batches  []*generator.Batch // DEVICE_NUM_PER_WRITE of them, reused
	filled   []*generator.Batch // the batches of the request in flight
	multi    adapters.MultiWriter
	streams  []batches // bound mode: the client's written devices
	shared   *sharedDevices
	share    int           // unbound mode: batches per write operation
	done     *atomic.Int64 // operations finished, all clients
	points   *atomic.Int64 // points written, all clients
	pacing   *rand.Rand
	recent   int64
	response *adapters.ResponseClock // in the contexts of the client's operations
	docs     bool                    // the database counts rows as documents (Driver.Documents)
	// warm is the phase's warm-up, nil without one: while it lasts the
	// client records into warmOps; rec and ops are made when it ends.
	warm    *warmState
	warmRec *metrics.Recorder
	warmOps [config.NumOperations]*metrics.Op
	check   *answerCheck // CHECK_ANSWERS; nil when not checked
	pick    *rand.Rand   // which queries check picks
}

// phaseName names a phase in messages: "ingest", "query GROUP_BY round 2".
func phaseName(w *work) string {
	if w.variant != "" {
		return fmt.Sprintf("%s %s round %d", w.name, w.variant, w.round)
	}
	return w.name
}

func runPhase(ctx context.Context, p *Plan, a adapters.Adapter, w work, opts Options) Phase {
	c := p.Config
	name := phaseName(&w)
	start := time.Now()
	// TEST_MAX_TIME stops clients from starting new operations; the
	// operation in flight finishes (or times out) on its own context.
	limit := ctx
	if c.TestMaxTimeMS > 0 {
		var cancel context.CancelFunc
		limit, cancel = context.WithTimeout(ctx, time.Duration(c.TestMaxTimeMS)*time.Millisecond)
		defer cancel()
	}
	// A track's clients send documents (ingestDocs): no rows to make.
	rows := p.Track == nil
	var shared *sharedDevices
	if !c.ClientBind && rows {
		shared = &sharedDevices{}
		for _, d := range p.Schema.Canonical {
			if p.Schema.Devices[d].Written {
				shared.devices = append(shared.devices, d)
				shared.streams = append(shared.streams, p.stream(d))
			}
		}
		shared.locks = make([]sync.Mutex, len(shared.devices))
	}
	var done, points atomic.Int64
	var ws *warmState
	if w.warm {
		ws = &warmState{time: c.WarmupTimeS > 0, ops: c.WarmupOperations}
		if ws.time {
			ws.end.Store(start.Add(time.Duration(c.WarmupTimeS) * time.Second).UnixNano())
		}
		ws.pending.Store(int64(c.DataClients))
	}
	clients := make([]*client, c.DataClients)
	for k := range clients {
		cl := &client{id: k, start: start, p: p, w: &w, a: a, queries: w.queries.Client(k),
			shared: shared, done: &done, points: &points, recent: -1, docs: w.docs,
			pacing: rand.New(rand.NewPCG(uint64(c.DataSeed), uint64(k))), warm: ws, check: w.check}
		if w.check != nil {
			cl.pick = w.check.picker(k, w.round, w.variant)
		}
		for i := 0; rows && i < max(c.DevicesPerWrite, 1); i++ {
			cl.batches = append(cl.batches, p.Generator.NewBatch())
		}
		cl.multi, _ = a.(adapters.MultiWriter)
		for _, d := range p.Clients[k] {
			if rows && p.Schema.Devices[d].Written {
				cl.streams = append(cl.streams, p.stream(d))
				cl.share++
			}
		}
		if ws == nil {
			cl.measure(start)
		} else {
			cl.warmRec = metrics.NewRecorder(start)
			for i, n := range w.names {
				if n != "" {
					cl.warmOps[i] = cl.warmRec.Op(n)
				}
			}
		}
		clients[k] = cl
	}
	total, unit := int64(c.DataClients)*w.schedule.n, "client steps"
	if p.Track != nil {
		total, unit = p.Track.Documents(), "documents"
	}
	if opts.Announce && !opts.Terminal {
		fmt.Fprintf(opts.Progress, "%s...\n", name)
	}
	prog := startProgress(opts, name, unit, total, &done, &points, start, time.Duration(c.LogPrintInterval)*time.Second)
	// A panic in a client (an adapter's bug) would end the process from
	// its goroutine with Go's status 2, read as bad usage: it stops the
	// other clients' new operations and is raised again here, on the
	// caller's goroutine, where the command reports a bug.
	limit, stopAll := context.WithCancel(limit)
	defer stopAll()
	var crash atomic.Pointer[ClientPanic]
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					crash.CompareAndSwap(nil, &ClientPanic{Client: cl.id, Value: v, Stack: debug.Stack()})
					stopAll()
				}
			}()
			cl.run(ctx, limit)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	prog.stop()
	if cp := crash.Load(); cp != nil {
		panic(cp)
	}
	var parts, warmParts [][]*metrics.Snapshot
	for _, cl := range clients {
		if cl.rec != nil {
			parts = append(parts, cl.rec.Snapshots())
		}
		if cl.warmRec != nil {
			warmParts = append(warmParts, cl.warmRec.Snapshots())
		}
	}
	ph := Phase{Name: w.name, Round: w.round, Variant: w.variant, Clients: c.DataClients, Started: start, Elapsed: elapsed, Operations: orderOps(&w, metrics.Merge(parts...)),
		Requests: clients[0].sent}
	if ws != nil {
		// The phase is measured from the end of its warm-up; a warm-up
		// that outlasted the phase leaves a measured part of no time.
		warmed := elapsed
		if e := ws.end.Load(); e != 0 {
			warmed = min(time.Unix(0, e).Sub(start), elapsed)
		}
		ph.Started, ph.Elapsed = start.Add(warmed), elapsed-warmed
		ph.Warmup = &Warmup{Elapsed: warmed, Operations: orderOps(&w, metrics.Merge(warmParts...))}
	}
	if limit.Err() != nil && ctx.Err() == nil && done.Load() < total {
		var ops int64
		for _, s := range ph.Operations {
			ops += s.OKOps + s.FailOps
		}
		ph.Cut = fmt.Sprintf("TEST_MAX_TIME=%d ms ended the %s phase after %d of its %d %s (%d operations in the Result Matrix)", c.TestMaxTimeMS, name, done.Load(), total, unit, ops)
	}
	return ph
}

// ClientPanic is a panic in a client's goroutine, raised again by Run on
// its caller's goroutine.
type ClientPanic struct {
	Client int
	Value  any
	Stack  []byte // the client's, where it panicked
}

func (p *ClientPanic) String() string { return fmt.Sprintf("client %d: %v", p.Client, p.Value) }

// orderOps lists the phase's operations in OPERATION_PROPORTION order,
// including kinds that never completed.
func orderOps(w *work, merged []*metrics.Snapshot) []*metrics.Snapshot {
	by := map[string]*metrics.Snapshot{}
	for _, s := range merged {
		by[s.Operation] = s
	}
	var out []*metrics.Snapshot
	for _, name := range w.names {
		if name == "" {
			continue
		}
		s, ok := by[name]
		if !ok {
			s = &metrics.Snapshot{Operation: name}
		}
		out = append(out, s)
	}
	return out
}

func (cl *client) run(ctx, limit context.Context) {
	if cl.p.Track != nil {
		// loadTrack refuses queries: the phase is the documents' ingest.
		cl.ingestDocs(ctx, limit)
		return
	}
	c := cl.p.Config
	ctx, cl.response = adapters.WithResponseClock(ctx)
	sched := cl.w.schedule
	// Each client starts at its own offset in the schedule, so clients
	// spread over the mix instead of all running the same family at once.
	var off int64
	if sched.n > 0 {
		off = int64(cl.id) * sched.n / int64(c.DataClients) % sched.n
	}
	// TARGET_THROUGHPUT: operation i of this client is due at a fixed time,
	// the clients' schedules interleaved evenly; an operation that is due
	// while the previous one still runs starts at once, and its wait counts.
	var interval time.Duration
	var first time.Time
	if c.TargetThroughput > 0 {
		interval = time.Duration(float64(c.DataClients) / c.TargetThroughput * float64(time.Second))
		first = cl.start.Add(interval * time.Duration(cl.id) / time.Duration(c.DataClients))
	}
	for i := int64(0); i < sched.n; i++ {
		if limit.Err() != nil {
			return
		}
		var due time.Time // zero: no schedule
		if interval > 0 {
			due = first.Add(interval * time.Duration(i))
			if err := pace.Until(limit, due); err != nil {
				return
			}
		}
		t0 := time.Now()
		op := sched.at((i + off) % sched.n)
		if op == Write {
			cl.write(ctx, limit, due)
		} else {
			cl.query(ctx, queries.FamilyByIndex(op), due)
		}
		cl.done.Add(1)
		if cl.warm != nil && !cl.warm.time && i+1 == cl.warm.ops {
			cl.warm.clientDone()
		}
		if c.OpMinIntervalMS > 0 {
			min := time.Duration(c.OpMinIntervalMS) * time.Millisecond
			if c.OpMinIntervalRand {
				min = time.Duration(cl.pacing.Float64() * float64(min))
			}
			if err := pace.For(limit, min-time.Since(t0)); err != nil {
				return
			}
		}
	}
}

// waited is how long a request sent at start waited behind the time its
// operation was due: -1 without a schedule (a zero due). It is taken when
// the request is sent, not when the schedule wakes the client, so that what
// the client does in between (generating a batch, building a query) is in
// the latency, as Rally and wrk2 measure from the intended start.
func waited(due, start time.Time) time.Duration {
	if due.IsZero() {
		return -1
	}
	return max(start.Sub(due), 0)
}

// recordOp adds one request's outcome: with a schedule (wait ≥ 0) latency
// and service time apart, else the request's time as its latency.
func recordOp(op *metrics.Op, start time.Time, d, wait time.Duration, points int64, err error) {
	if wait < 0 {
		op.Record(start, d, points, err)
		return
	}
	op.RecordWaited(start, d, wait, points, err)
}

// write performs one write operation: one batch for every device the
// client owns (or its share of the shared queue), DEVICE_NUM_PER_WRITE
// devices a request. With a schedule, the first request's latency counts
// from the operation's due time; each next one's from the moment the one
// before it ended.
func (cl *client) write(ctx, limit context.Context, due time.Time) {
	c := cl.p.Config
	n := len(cl.streams)
	if cl.shared != nil {
		n = cl.share
	}
	per := len(cl.batches)
	for k := 0; k < n; k += per {
		if limit.Err() != nil {
			return
		}
		t0 := time.Now()
		cl.filled = cl.filled[:0]
		for j := 0; j < per && k+j < n; j++ {
			if cl.nextBatch(k+j, cl.batches[j]) {
				cl.filled = append(cl.filled, cl.batches[j])
			}
		}
		if len(cl.filled) == 0 {
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, time.Duration(c.WriteTimeoutMS)*time.Millisecond)
		cl.response.Reset()
		start := time.Now()
		var err error
		if per == 1 {
			err = cl.a.Write(wctx, cl.filled[0])
		} else {
			// Validate refuses DEVICE_NUM_PER_WRITE > 1 for an adapter
			// without MultiWriter.
			err = cl.multi.WriteDevices(wctx, cl.filled)
		}
		d := cl.response.Since(start)
		if err == nil {
			err = overdue(wctx) // a write that outlived its timeout is a failure, whatever the adapter says
		}
		cancel()
		if err != nil && ctx.Err() != nil {
			return // interrupted by the user, not failed by the database: not recorded
		}
		var pts int64
		for _, b := range cl.filled {
			pts += b.Points()
		}
		var partial *adapters.PartialWriteError
		op := cl.op(Write, start)
		switch {
		case errors.As(err, &partial) && partial.Failed < pts:
			// Some documents of a bulk were stored: they count as written.
			op.RecordPartial(start, d, pts-partial.Failed, partial.Failed, err)
			cl.points.Add(pts - partial.Failed)
		default:
			recordOp(op, start, d, waited(due, start), pts, err)
		}
		if err == nil {
			cl.points.Add(pts)
			if cl.docs || cl.response.Bytes() > 0 {
				var rows int64
				if cl.docs {
					for _, b := range cl.filled {
						rows += int64(b.Len())
					}
				}
				op.AddVolume(rows, cl.response.Bytes())
			}
			for _, b := range cl.filled {
				if last := b.Timestamps[b.Len()-1]; last > cl.recent {
					cl.recent = last
				}
			}
		}
		if c.BatchIntervalMS > 0 {
			if pace.For(limit, time.Duration(c.BatchIntervalMS)*time.Millisecond-time.Since(t0)) != nil {
				return
			}
		}
		if !due.IsZero() {
			// The next request of this operation is due now: its wait is
			// the time its own batch takes to make.
			due = time.Now()
		}
	}
}

// nextBatch fills b with the k-th batch of this write operation.
func (cl *client) nextBatch(k int, b *generator.Batch) bool {
	if cl.shared == nil {
		return cl.streams[k].Next(b)
	}
	sh := cl.shared
	if len(sh.devices) == 0 {
		return false
	}
	x := int(sh.next.Add(1)-1) % len(sh.devices)
	sh.locks[x].Lock()
	defer sh.locks[x].Unlock()
	return sh.streams[x].Next(b)
}

func (cl *client) query(ctx context.Context, f queries.Family, due time.Time) {
	c := cl.p.Config
	if c.RecentQuery && cl.recent >= 0 {
		cl.queries.SetRecent(cl.recent)
	}
	q := cl.queries.Next(f)
	if v := cl.w.own; v != nil {
		q.Variant = v.Name // its errors name the variant, not the family
		var err error
		if q.Request, err = cl.p.fill(v, &q); err != nil {
			// UseRequests filled the first query: not expected.
			start := time.Now()
			recordOp(cl.op(int(f), start), start, 0, waited(due, start), 0, err)
			return
		}
		if cl.id == 0 && len(cl.sent) < sentRequests {
			cl.sent = append(cl.sent, q.Request)
		}
	}
	checked := cl.check != nil && cl.check.picks(cl.pick)
	qctx, cancel := context.WithTimeout(ctx, time.Duration(c.ReadTimeoutMS)*time.Millisecond)
	cl.response.Reset()
	start := time.Now()
	var n int64
	var err error
	var answer queries.Answer
	if checked {
		// The same request and decoding as Query, keeping the cells.
		answer, err = cl.check.ans.Answer(qctx, &q)
		n = int64(len(answer))
	} else {
		n, err = cl.a.Query(qctx, &q)
	}
	d := cl.response.Since(start)
	if err == nil {
		err = overdue(qctx) // never count a timed-out query as a success (iot-benchmark does)
	}
	cancel()
	if err != nil && ctx.Err() != nil {
		return // interrupted by the user, not failed by the database: not recorded
	}
	if err != nil {
		n = 0
	}
	op := cl.op(int(f), start)
	if checked && err == nil {
		// After the clock: the model's answer and the comparison are
		// tsbench's work, not the database's.
		t := time.Now()
		err = cl.check.verify(&q, answer, cl.id)
		op.CountAnswer(err != nil, time.Since(t))
	}
	recordOp(op, start, d, waited(due, start), n, err)
}

// measure makes the recorder of the phase's measured operations, whose
// one-second windows count from start.
func (cl *client) measure(start time.Time) {
	cl.rec = metrics.NewRecorder(start)
	for i, n := range cl.w.names {
		if n != "" {
			cl.ops[i] = cl.rec.Op(n)
		}
	}
}

// op is where an operation of kind i that started at t is recorded: the
// warm-up's, or the phase's own.
func (cl *client) op(i int, t time.Time) *metrics.Op {
	if cl.warm != nil {
		end := cl.warm.end.Load()
		if end == 0 || t.UnixNano() < end {
			return cl.warmOps[i]
		}
		if cl.rec == nil {
			cl.measure(time.Unix(0, end))
		}
	}
	return cl.ops[i]
}

// warmState is a phase's warm-up, shared by its clients: it ends at a
// fixed time (WARMUP_TIME), or when the last client has done its warm-up
// operations (WARMUP_OPERATIONS), so that the measured part has one start
// and its one-second windows line up.
type warmState struct {
	time    bool
	ops     int64
	end     atomic.Int64 // Unix nanoseconds; 0 while the warm-up lasts
	pending atomic.Int64 // clients still in their warm-up operations
}

func (ws *warmState) clientDone() {
	if ws.pending.Add(-1) == 0 {
		ws.end.Store(time.Now().UnixNano())
	}
}

// Clean removes the data p's runs write, as a run's cleanup step does
// (IS_DELETE_DATA), then pauses INIT_WAIT_TIME as the step does: a server
// that drops data asynchronously (IoTDB holds writes to a recreated
// database) must be done before the instances of a distributed run start
// writing. cleaned is called between the two with the pause to come. An
// error opening the database wraps ErrConnect.
func Clean(ctx context.Context, p *Plan, drv *adapters.Driver, cleaned func(wait time.Duration)) error {
	c := p.Config
	octx, cancel := context.WithTimeout(ctx, time.Duration(c.WriteTimeoutMS)*time.Millisecond)
	defer cancel()
	a, err := drv.Open(octx, adapters.Params{Config: c, Schema: p.Schema, Track: p.Track})
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrConnect, drv.Name, err)
	}
	defer a.Close()
	if err := a.Cleanup(octx); err != nil {
		return err
	}
	wait := time.Duration(c.InitWaitMS) * time.Millisecond
	cleaned(wait)
	if wait == 0 {
		return nil
	}
	return pace.For(ctx, wait)
}

// overdue is the error of an operation whose context's deadline has passed:
// the context's own error, or DeadlineExceeded by the clock while the
// context's timer has not yet run. On a stalled machine the adapter's
// wake-up and the context's cancellation both come late, and the adapter's
// may come first; the clock then still says the operation was too slow.
func overdue(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}
