// Package pipeline is one run of a benchmark, from its configuration file
// to its saved record, as bench run, --repeat and bench routine make it
// (Rally's race control): the configuration loaded and its driver found,
// the plan built (Load); what lies outside the plan checked (Check: the
// results folder, the store); then (Run) a query-only run's earlier data,
// the label, the track's files, the target's claim, the size, the run
// itself, its record saved and exported. It writes what a run says while it
// works; the command prints the record's tables (Options.Report) and turns
// the error into an exit status: a *BadInput is the user's input, nothing
// ran; any other error is a run that failed or stopped, its record saved
// when there is one. Generate writes the files a run replays.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/export"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/runner"
)

// BadInput is an error of the user's input (the configuration, a flag's
// value, the target held by another run): the run did not start.
type BadInput struct{ Err error }

func (e *BadInput) Error() string { return e.Err.Error() }
func (e *BadInput) Unwrap() error { return e.Err }

func bad(err error) error { return &BadInput{err} }

// Prepared is a run whose configuration, driver and plan passed every
// check that needs no database.
type Prepared struct {
	Loaded *config.Loaded
	Driver *adapters.Driver
	Plan   *runner.Plan
	// Store is RESULTS_STORE's destination once Check has run; nil without
	// one.
	Store *export.Dest
}

// Load reads a configuration (the loader runs the driver's checks too),
// finds the database's driver in reg and builds the plan: everything that
// can reject a run before anything connects. Its errors are *BadInput.
func Load(path string, sets []string, reg adapters.Registry) (*Prepared, error) {
	l, err := config.Load(config.Source{Path: path, Sets: sets, Catalog: reg})
	if err != nil {
		var ce *config.Error
		var ces config.Errors
		if errors.As(err, &ce) || errors.As(err, &ces) {
			return nil, bad(err)
		}
		return nil, bad(fmt.Errorf("read %s: %w", path, err))
	}
	drv, err := reg.Lookup(l.Config.DBSwitch)
	if err != nil {
		return nil, bad(err)
	}
	plan, err := runner.NewPlan(l.Config)
	if err != nil {
		return nil, bad(err)
	}
	if err := plan.UseRequests(drv); err != nil {
		return nil, bad(err)
	}
	if err := plan.UseTrack(drv); err != nil {
		return nil, bad(err)
	}
	if l.Config.CheckAnswers {
		if err := runner.AnswersApply(plan, drv, false); err != nil {
			return nil, bad(err)
		}
	}
	return &Prepared{Loaded: l, Driver: drv, Plan: plan}, nil
}

// Check refuses what the configuration names outside the plan that cannot
// work, and keeps RESULTS_STORE's destination: a run, its dry run and
// bench routine check it before anything is built or started, so that each
// refuses the same.
func (p *Prepared) Check() error {
	c := p.Loaded.Config
	// The record is written last: a folder it cannot go into is refused
	// before the run, not found out after it.
	if err := CheckPath(c.ResultsDir, true); err != nil {
		return bad(&config.Error{Key: "RESULTS_DIR", Value: c.ResultsDir, Msg: err.Error(), Valid: "a folder, or a path where one can be made"})
	}
	if c.ResultsStore == "" {
		return nil
	}
	d, err := export.ParseDest(c.ResultsStore)
	if err != nil {
		return bad(fmt.Errorf("RESULTS_STORE: %w", err))
	}
	p.Store = &d
	return nil
}

// ForRoutine refuses what bench routine cannot run though a run alone can:
// a query-only run's CHECK_ANSWERS checks data an earlier run wrote, and
// the routine wipes each side's server before every run.
func (p *Prepared) ForRoutine() error {
	if p.Loaded.Config.CheckAnswers {
		if err := runner.AnswersApply(p.Plan, p.Driver, true); err != nil {
			return bad(err)
		}
	}
	return nil
}

// Options are a run's choices beyond its configuration, and where it
// writes while it works.
type Options struct {
	// Label tags the run (--label).
	Label string
	// DryRun prints the configuration and the plan and runs nothing.
	DryRun bool
	// StartAt is --start-at: when the measured phase begins ("" now).
	StartAt string
	// Tool is the tsbench build's version, printed and recorded.
	Tool string
	// Annotate marks the record before it is saved (bench routine: the
	// side, block and position, the server it provisioned); a run with it
	// is a routine's, whose labels are its own folder's.
	Annotate func(*record.Record)
	// Fresh discards an embedded database's file before the run (bench
	// routine), so that no run inherits the one before.
	Fresh bool
	// Env is added to the lifecycle commands' environment (bench routine).
	Env []string
	// Human gets the run's header, its configuration, size, plan and the
	// record's path; Log its notes and warnings (stderr).
	Human, Log io.Writer
	// Progress, Terminal and Announce are the runner's (runner.Options).
	Progress io.Writer
	Terminal bool
	Announce bool
	// Together is the runner's (runner.Options): bench routine --duet.
	Together func(ctx context.Context, step string) error
	// Report prints the saved record of a run that ran to its end, before
	// the record's path is said.
	Report func(*record.Record) error
}

// Run makes the run: the checks that need the results folder or the
// target, the run, its record saved and exported. It returns the record
// (nil when nothing ran) and why the run is not a success: a *BadInput
// before it started, else a failure after which the record is saved.
func (p *Prepared) Run(ctx context.Context, o Options) (*record.Record, error) {
	l, drv, plan := p.Loaded, p.Driver, p.Plan
	c := l.Config
	if err := p.Check(); err != nil {
		return nil, err
	}
	if plan.EarlierData {
		line, err := EarlierData(drv.Name, c, plan)
		if err != nil {
			var ce *config.Error
			if errors.As(err, &ce) {
				return nil, bad(err)
			}
			return nil, err
		}
		plan.Notes = append(plan.Notes, line)
	}
	startAt, err := ParseStartAt(o.StartAt, time.Now())
	if err != nil {
		return nil, bad(err)
	}
	var saved *catalog.Catalog
	if o.Label != "" {
		saved, err = catalog.Open(c.ResultsDir)
		if err != nil {
			return nil, err
		}
		if err := record.CheckLabel(o.Label, saved.Refs()); err != nil {
			return nil, bad(err)
		}
	}
	if !o.DryRun {
		// A track's compressed documents are decompressed once, before
		// anything is measured, and its files are checked against it.
		if err := plan.PrepareTrack(ctx, func(s string) { fmt.Fprintf(o.Log, "%s...\n", s) }); err != nil {
			return nil, bad(err)
		}
	}
	if saved != nil && o.Annotate == nil { // a routine's labels are its own folder's
		for _, w := range catalog.Joins(saved.Entries, o.Label, plan.Fingerprint(), time.Now()) {
			fmt.Fprintf(o.Log, "warning: %s\n", w)
		}
	}
	if !o.DryRun {
		// Before anything else is printed: the refusal is then the one line.
		release, err := Claim(ctx, drv, c, o.Log)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	fmt.Fprintf(o.Human, "tsbench %s: measuring %s%s\n", o.Tool, measured(drv, c), Where(drv, c))
	for _, n := range l.Notes {
		fmt.Fprintf(o.Log, "note: %s\n", n)
	}
	for _, wn := range l.Warnings {
		fmt.Fprintf(o.Log, "warning: %s\n", wn)
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(o.Log, "note: %s\n", n)
	}
	c.WriteDump(o.Human)
	size, tooBig := runner.SizeCheck(drv, plan)
	if tooBig != nil && !o.DryRun {
		return nil, bad(tooBig)
	}
	fmt.Fprintln(o.Human, size)
	if o.DryRun {
		plan.Describe(o.Human)
		plan.DescribeRequests(o.Human)
		if tooBig != nil {
			// The plan is shown, and the refusal the run would give.
			return nil, bad(tooBig)
		}
		return nil, nil
	}
	if o.Fresh && drv.Discard != nil {
		if err := drv.Discard(c); err != nil {
			var ce *config.Error
			if errors.As(err, &ce) {
				return nil, bad(err)
			}
			return nil, err
		}
	}
	opts := runner.Options{Log: o.Log, Progress: o.Progress, Terminal: o.Terminal, StartAt: startAt, Announce: o.Announce, Env: o.Env, Together: o.Together}
	res, runErr := runner.Run(ctx, plan, drv, opts)
	rec := res.Record(l, drv, o.Tool, o.Label, runErr)
	if o.Annotate != nil {
		o.Annotate(rec)
	}
	path, indexErr, saveErr := catalog.Save(record.Store{Dir: c.ResultsDir}, rec)
	if runErr == nil && o.Report != nil {
		if err := o.Report(rec); err != nil {
			return rec, fmt.Errorf("print results: %w", err)
		}
	}
	if saveErr != nil {
		return rec, saveErr
	}
	fmt.Fprintf(o.Human, "Run record: %s\n", path)
	if indexErr != nil {
		fmt.Fprintf(o.Log, "warning: %v\n", indexErr)
	}
	if p.Store != nil {
		exportRun(ctx, o.Human, o.Log, *p.Store, rec)
	}
	switch {
	case runErr != nil:
		return rec, runErr
	case res.Stopped != nil:
		return rec, fmt.Errorf("the run stopped early: %v (the record is marked incomplete)", res.Stopped)
	case rec.Status == record.StatusFailed:
		return rec, fmt.Errorf("the run failed: %s (the record keeps everything)", rec.Error)
	}
	return rec, nil
}

// Repeat makes n runs (bench run --repeat), each saved as its own record,
// with a line to log before each when there are several. Bad input ends
// it (every repeat would fail the same way), an interrupt too; a run that
// fails is said and the others still run.
func Repeat(ctx context.Context, n int, log io.Writer, run func() error) error {
	if n == 1 {
		return run()
	}
	var failed error
	for i := 1; i <= n; i++ {
		fmt.Fprintf(log, "== run %d of %d\n", i, n)
		err := run()
		var bi *BadInput
		if errors.As(err, &bi) {
			return err
		}
		if err != nil {
			fmt.Fprintf(log, "bench: run %d of %d: %v\n", i, n, err)
			failed = fmt.Errorf("%d repeats asked, run %d failed (its record is saved)", n, i)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return failed
}

// Claim takes the database for this process (Driver.Claim): a second run
// on the same target is refused at its start, naming the holder. Its note
// (a stale marker taken over, a server that keeps none) goes to log.
func Claim(ctx context.Context, drv *adapters.Driver, c *config.Config, log io.Writer) (release func(), err error) {
	if drv.Claim == nil {
		return func() {}, nil
	}
	release, note, err := drv.Claim(ctx, c)
	if err != nil {
		return nil, bad(err)
	}
	if note != "" {
		fmt.Fprintf(log, "note: %s\n", note)
	}
	return release, nil
}

// exportRun sends a saved run to RESULTS_STORE: a failure is a warning,
// the record is saved and bench export can try again.
func exportRun(ctx context.Context, human, log io.Writer, dest export.Dest, rec *record.Record) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	what, err := dest.Write(ctx, io.Discard, []export.Run{export.RunOf(rec)})
	if err != nil {
		fmt.Fprintf(log, "warning: RESULTS_STORE: the run was not exported to %s: %v (its record is saved; bench export %s --to URL tries again)\n", dest, err, rec.ID)
		return
	}
	fmt.Fprintf(human, "Exported to %s: %s\n", dest, what)
}

// Where says where the database is, for the run's first line.
func Where(drv *adapters.Driver, c *config.Config) string {
	if drv.Address == nil {
		return " (" + drv.Description + ")"
	}
	return " at " + strings.Join(drv.Address(c), ", ")
}

// measured names the database as the user did: DB_SWITCH=OpenSearch is
// measured by the Elasticsearch driver, but it is OpenSearch that is measured.
func measured(drv *adapters.Driver, c *config.Config) string {
	if c.DBSwitch == "" || strings.EqualFold(c.DBSwitch, drv.Name) {
		return drv.Name
	}
	return fmt.Sprintf("%s (%s driver)", c.DBSwitch, drv.Name)
}
