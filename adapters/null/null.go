// Package null is the adapter that accepts everything and stores nothing:
// a run against it measures tsbench's own ceiling (generation, scheduling,
// recording) with no database in the way. With NULL_DELAY_MS it is also the
// delay target: every operation takes a known time, and one operation can be
// made slower by a known share, so a controlled regression runs end to end
// through bench run (how the compare gate's detection rate is measured).
package null

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/pace"
	"github.com/tsbench/tsbench/queries"
)

// Driver is the Null database (DB_SWITCH=Null).
func Driver() adapters.Driver {
	return adapters.Driver{
		Name:        "Null",
		Aliases:     []string{"FakeDB"},
		Description: "accepts every write, answers every query with nothing: measures tsbench itself, or with NULL_DELAY_MS is a target of known latency",
		Can:         adapters.Capabilities{Flush: true, MultiWrite: true},
		Keys:        Keys(),
		Check:       check,
		Open: func(ctx context.Context, p adapters.Params) (adapters.Adapter, error) {
			a := &Adapter{opt: *config.OptionsOrDefaults[Options](p.Config, Keys()), schema: p.Schema}
			if a.opt.DelayMS > 0 || a.opt.JitterMS > 0 {
				// Each adapter draws its own jitter from its own seed, as each
				// connection to a server sees its own noise.
				a.rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), rand.Uint64()))
			}
			if a.opt.Trace != "" {
				f, err := os.Create(a.opt.Trace)
				if err != nil {
					return nil, fmt.Errorf("NULL_TRACE: %w", err)
				}
				a.trace = &tracer{f: f}
			}
			return a, nil
		},
	}
}

// check refuses a NULL_SLOW_OPERATION that names no operation the run
// performs: it would slow nothing, and a check of a regression gate that
// rests on it would pass without checking anything.
func check(c *config.Config) config.Errors {
	opt := config.OptionsOrDefaults[Options](c, Keys())
	if opt.SlowOp == "" {
		return nil
	}
	ops := operations(c)
	if slices.Contains(ops, opt.SlowOp) {
		return nil
	}
	valid := "empty (no operation is slowed)"
	if len(ops) > 0 {
		valid = strings.Join(ops, ", ") + ", or empty"
	}
	return config.Errors{{Key: "NULL_SLOW_OPERATION", Value: opt.SlowOp, Msg: "names no operation of this run, so it would slow nothing", Valid: valid}}
}

// operations are the names of the operations a run of c performs, as its
// reports name them: INGESTION when it writes, then the query families with
// weight, or the variants of its QUERY_SUITE.
func operations(c *config.Config) []string {
	var ops []string
	if c.HasWrites() {
		ops = append(ops, config.Ingestion)
	}
	if c.QuerySuite != "" {
		if s, err := queries.LoadSuite(c.QuerySuite); err == nil {
			for _, v := range s.Variants {
				ops = append(ops, v.Name)
			}
		}
		return ops
	}
	for _, f := range queries.Families {
		if int(f) < len(c.OperationProportion) && c.OperationProportion[f] > 0 {
			ops = append(ops, f.String())
		}
	}
	return ops
}

// Options are the delay target's keys. They describe the database, not the
// workload (as a server build would), so runs that differ only in them
// compare without --force: that is how a known slowdown is produced.
type Options struct {
	DelayMS     float64 // NULL_DELAY_MS
	JitterMS    float64 // NULL_JITTER_MS
	SlowOp      string  // NULL_SLOW_OPERATION
	SlowdownPct float64 // NULL_SLOWDOWN_PCT
	Trace       string  // NULL_TRACE
}

// Keys is the Null database's key set.
func Keys() *config.KeySet {
	return config.NewKeySet[Options]("Null", "Null delay target", []config.Key{
		config.Float("NULL_DELAY_MS", "0", 0, 60000, "0..60000", "Every write and query of the Null database takes this many milliseconds (a delay target of known latency; 0 answers at once).", func(o *Options) *float64 { return &o.DelayMS }),
		config.Float("NULL_JITTER_MS", "0", 0, 60000, "0..60000", "Plus a random delay drawn uniformly from [0, NULL_JITTER_MS) per operation: run-to-run and operation-to-operation noise.", func(o *Options) *float64 { return &o.JitterMS }),
		config.String("NULL_SLOW_OPERATION", "", "Operation whose delay NULL_SLOWDOWN_PCT scales: INGESTION or a query's name as reports show it (PRECISE_POINT, Q4b3, ...); empty scales none. A name of no operation the run performs is refused.", func(o *Options) *string { return &o.SlowOp }),
		config.Float("NULL_SLOWDOWN_PCT", "0", -99, 10000, "-99..10000", "Percent by which the delay and jitter of NULL_SLOW_OPERATION grow: 30 makes it 1.3 times as slow, a controlled regression.", func(o *Options) *float64 { return &o.SlowdownPct }),
		config.String("NULL_TRACE", "", "File the Null database writes what it receives to, one line an operation: the schema, each write's device, rows, time range and a digest of its values, each query's parameters. Shows what a configuration sends without a database (lines of concurrent clients interleave); empty writes none.", func(o *Options) *string { return &o.Trace }),
	}, nil)
}

// Adapter does nothing, successfully, after its delay, unless its context
// is done.
type Adapter struct {
	opt    Options
	mu     sync.Mutex
	rng    *rand.Rand
	schema *generator.Schema
	trace  *tracer // NULL_TRACE; nil without
}

var (
	_ adapters.Adapter = (*Adapter)(nil)
	_ adapters.Flusher = (*Adapter)(nil)
)

// wait sleeps the operation's delay; a done context ends it early with the
// context's error, as a server's timeout would.
func (a *Adapter) wait(ctx context.Context, op string) error {
	if a.rng == nil {
		return ctx.Err()
	}
	a.mu.Lock()
	ms := a.opt.DelayMS + a.opt.JitterMS*a.rng.Float64()
	a.mu.Unlock()
	if op == a.opt.SlowOp {
		ms *= 1 + a.opt.SlowdownPct/100
	}
	if err := pace.For(ctx, time.Duration(ms*float64(time.Millisecond))); err != nil {
		return fmt.Errorf("null delay of %s: %w", op, err)
	}
	return nil
}

// Cleanup does nothing.
func (a *Adapter) Cleanup(ctx context.Context) error {
	a.trace.line("cleanup")
	return ctx.Err()
}

// CreateSchema does nothing.
func (a *Adapter) CreateSchema(ctx context.Context) error {
	if a.trace != nil {
		a.trace.schema(a.schema)
	}
	return ctx.Err()
}

// Write discards the batch after the delay.
func (a *Adapter) Write(ctx context.Context, b *generator.Batch) error {
	if a.trace != nil {
		a.trace.write("write", b)
	}
	return a.wait(ctx, config.Ingestion)
}

// WriteDevices discards the batches after one delay: the request of
// DEVICE_NUM_PER_WRITE devices, so that the tool's own multi-device path
// can be measured.
func (a *Adapter) WriteDevices(ctx context.Context, bs []*generator.Batch) error {
	if a.trace != nil {
		for _, b := range bs {
			a.trace.write(fmt.Sprintf("write of %d devices", len(bs)), b)
		}
	}
	return a.wait(ctx, config.Ingestion)
}

// Query returns no points after the delay.
func (a *Adapter) Query(ctx context.Context, q *queries.Query) (int64, error) {
	if a.trace != nil {
		a.trace.query(q)
	}
	return 0, a.wait(ctx, q.Variant)
}

// Flush does nothing.
func (a *Adapter) Flush(ctx context.Context) error {
	a.trace.line("flush")
	return ctx.Err()
}

// Close closes the trace.
func (a *Adapter) Close() error {
	if a.trace != nil {
		return a.trace.f.Close()
	}
	return nil
}
