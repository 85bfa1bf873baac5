package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/pace"
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
	// Together, when set, is called before each measured step (a phase,
	// a lifecycle) and returns when the step may begin: bench routine
	// --duet holds each side's run there until the other sides' runs reach
	// the same step, so that the sides' phases and cold rounds happen at
	// the same time. An error stops the run before the step.
	Together func(ctx context.Context, step string) error
}

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
		if measured && opts.Together != nil {
			if err := opts.Together(ctx, st.String()); err != nil {
				res.Stopped = fmt.Errorf("%s: %w", st, err)
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
