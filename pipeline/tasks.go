package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
	"github.com/tsbench/tsbench/runner"
)

// Task is a step of a run made alone on a configuration's database: bench
// verify and bench clean.
type Task struct {
	Config   string
	Sets     []string
	Registry adapters.Registry
	Tool     string // the tsbench build's version, printed
	// Stdout gets the step's result; Log its notes.
	Stdout, Log io.Writer
}

// load is Load with the task's notes and warnings said.
func (t Task) load(sets []string) (*Prepared, error) {
	p, err := Load(t.Config, sets, t.Registry)
	if err != nil {
		return nil, err
	}
	for _, n := range p.Loaded.Notes {
		fmt.Fprintf(t.Log, "note: %s\n", n)
	}
	for _, wn := range p.Loaded.Warnings {
		fmt.Fprintf(t.Log, "warning: %s\n", wn)
	}
	return p, nil
}

// Verify counts the points the database holds per device and compares
// them with what the configuration's runs write, as a run's VERIFY step
// does, and writes the table. A count that differs is a failure.
func (t Task) Verify(ctx context.Context) error {
	// VERIFY=true lets the loader refuse a database that cannot count.
	p, err := t.load(append(t.Sets, "VERIFY=true"))
	if err != nil {
		return err
	}
	c, drv, plan := p.Loaded.Config, p.Driver, p.Plan
	if err := plan.PrepareTrack(ctx, func(s string) { fmt.Fprintf(t.Log, "%s...\n", s) }); err != nil {
		return bad(err)
	}
	a, err := drv.Open(ctx, adapters.Params{Config: c, Schema: plan.Schema, Existing: true, Track: plan.Track})
	if err != nil {
		return fmt.Errorf("%w %s: %w", runner.ErrConnect, drv.Name, err)
	}
	defer a.Close()
	cnt := a.(adapters.Counter) // Validate checked the capability
	var counts []runner.DeviceCount
	if dw, ok := a.(adapters.DocumentWriter); ok && plan.Track != nil {
		counts = runner.VerifyTrack(ctx, plan, dw)
	} else if counts, err = runner.VerifyAll(ctx, plan, cnt); err != nil {
		return bad(err)
	}
	v := runner.VerifyRecord(counts)
	what := "a complete run"
	if c.Distributed() {
		what = fmt.Sprintf("complete runs of all %d instances", c.BenchmarkInstances)
	}
	fmt.Fprintf(t.Stdout, "tsbench %s: verifying %s%s against %s of %s\n", t.Tool, drv.Name, Where(drv, c), what, t.Config)
	if err := report.WriteTables(t.Stdout, report.Text, report.RunTables(&record.Record{Verify: v})); err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("verify: %s", v.Summary())
	}
	return nil
}

// Clean removes the data the configuration's runs write, as a run does
// first with IS_DELETE_DATA=true, then waits INIT_WAIT_TIME as a run does;
// the database is claimed as a run claims it.
func (t Task) Clean(ctx context.Context) error {
	p, err := t.load(t.Sets)
	if err != nil {
		return err
	}
	c, drv := p.Loaded.Config, p.Driver
	release, err := Claim(ctx, drv, c, t.Log)
	if err != nil {
		return err
	}
	defer release()
	cleaned := false
	err = runner.Clean(ctx, p.Plan, drv, func(wait time.Duration) {
		cleaned = true
		fmt.Fprintf(t.Stdout, "cleaned %s%s\n", drv.Name, Where(drv, c))
		if wait > 0 {
			fmt.Fprintf(t.Log, "waiting INIT_WAIT_TIME=%d ms for the server to finish the cleanup\n", c.InitWaitMS)
		}
	})
	if err != nil && !cleaned && !errors.Is(err, runner.ErrConnect) {
		return fmt.Errorf("clean %s%s: %w", drv.Name, Where(drv, c), err)
	}
	return err
}
