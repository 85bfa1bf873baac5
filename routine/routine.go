// Package routine runs the weekly regression routine end to end: the
// sides' servers made ready (a release, a distribution, an archive, a git
// ref built once per commit), the runs of every side in balanced blocks,
// each on a server of its own with fresh state, every record marked with
// its side, block and position and the server it measured — and refuses to
// start when two sides are one build, unless an A/A is declared. Each run
// is package pipeline's, as bench run makes it, so the routine measures
// exactly what bench run measures; the comparison is package compare's, as
// bench compare makes it. Request is the whole routine as the command
// takes it; Run is its loop of runs.
package routine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
)

// Slot is one run of the routine: which side, in which block, at which
// position of the block (1-based).
type Slot struct {
	Side, Block, Position int
}

// Order places runs runs of each of n sides in blocks of one run a side.
// Blocks come in pairs, one in the sides' order and one reversed (A B, B A),
// so that over the pairs every side has the same mean position: a drift
// over the session (a file that grows, a cache that warms, a disk that
// fills) lands on every side alike. Which block of a pair comes first is
// drawn from seed: in a fixed A B B A rhythm a load on the machine that
// comes back every two blocks (another benchmark's cycle) always meets the
// same side, and that side is then slower in an A/A comparison. runs must
// be even for n > 1.
func Order(n, runs int, seed uint64) []Slot {
	rng := rand.New(rand.NewPCG(seed, 0x7473626e))
	var out []Slot
	flip := false
	for b := 0; b < runs; b++ {
		if b%2 == 0 {
			flip = rng.IntN(2) == 1
		}
		reversed := (b%2 == 1) != flip
		for p := 0; p < n; p++ {
			side := p
			if reversed {
				side = n - 1 - p
			}
			out = append(out, Slot{Side: side, Block: b + 1, Position: p + 1})
		}
	}
	return out
}

// Job is one run for the bench command to make.
type Job struct {
	Side  Resolved
	Label string
	// Sets are the keys the routine sets for the run (the server's stop
	// and start commands, which the lifecycle calls).
	Sets []string
	// Fresh asks for an embedded database's state to be discarded first,
	// so that no run inherits the previous run's file.
	Fresh bool
	// Annotate marks the record before it is saved.
	Annotate func(*record.Record)
	// Env is added to the run's lifecycle commands' environment.
	Env []string
	// Warmup is the warm-up run's number (from 1), 0 for a measured run:
	// a warm-up's record is kept apart from the compared ones.
	Warmup int
	// Together is the run's place in a duet (Options.Duet): nil when the
	// run is made alone.
	Together *Party
}

// Options are the routine's.
type Options struct {
	Sides []Resolved // the baseline first
	Runs  int        // runs a side, even
	// Seed draws which block of each pair comes first (Order).
	Seed uint64
	// AA declares the sides one build on purpose.
	AA bool
	// Change is the keys the sides' configurations differ in
	// (ConfigChange), marked in every record (record.Routine.Change).
	Change []string
	// KeepState keeps a server's state folder from run to run (default:
	// wiped before each run).
	KeepState bool
	// KeepRunning starts every side's server once, each on ports of its
	// own (Server.ClientSets), and keeps them all running through the
	// routine: a run then cleans its side's data (IS_DELETE_DATA) instead of
	// waiting for its server to be stopped, wiped and started, and both
	// servers share the machine the whole time. The runs' own lifecycle
	// steps (a cold round's restart) still stop and start their side's.
	KeepRunning bool
	// ClearCold makes a run's cold round without restarting its server
	// (--cold clear): the run's lifecycle is then its flush, the OS caches
	// dropped and the server's own cache clear, its STOP_COMMAND and
	// START_COMMAND empty. The server's process, its compiled code and its
	// connections stay warm; only what it and the OS cache of the data is
	// cold.
	ClearCold bool
	// WarmupRuns is the runs a side made before the first block and not
	// compared: with KeepRunning a server's first run finds it fresh
	// (IoTDB 2.0.10 ingested twice as fast into it as into a server whose
	// earlier data was deleted) and, with ClearCold, its code not yet
	// compiled.
	WarmupRuns int
	// Duet makes each block's runs at the same time, one a side, each
	// measured step (a phase, the cold round's lifecycle) begun by every
	// side together (Job.Together), so that what the machine does meanwhile
	// falls on all sides alike. Its sides' servers run all along
	// (KeepRunning) and restart nothing (ClearCold).
	Duet bool
	// RestartEvery restarts every kept-running server (KeepRunning)
	// before every RestartEvery-th block after the first, the warm-up runs
	// made again: a side's runs then measure several processes, whose
	// differences (JIT, memory layout) would otherwise lean the whole
	// routine one way. 0: never.
	RestartEvery int
	// Processes is the server processes a side's runs measured before (a
	// resumed routine's, Routine.Process): this invocation's count on.
	Processes int
	// From is the runs of the order made before (a resumed routine): the
	// routine begins with the next, after its warm-up runs.
	From int
	// StateDir holds the servers' state folders, one a side.
	StateDir string
	// Port is the port of an Elasticsearch/OpenSearch server (PORT).
	Port int
	// Properties are extra IoTDB server settings for every side.
	Properties string
	Log        io.Writer
	// RunOne makes a run; its error is the run's failure.
	RunOne func(ctx context.Context, j Job) error
	// AfterFirstBlock is called once every side has run once: the
	// caller checks there what only the servers could say (their builds).
	AfterFirstBlock func() error
	// Look, when set, is asked after block FirstLook whether the routine
	// may stop (it knows enough, or its budget ends): it returns the block
	// after which to ask next, or 0 to stop; Runs is then the most runs a
	// side. blocks is the blocks made so far: the runs a side; warm is
	// the wall time of the warm-up runs so far (a duet's made at once
	// count once).
	Look      func(blocks int, warm time.Duration) (next int, err error)
	FirstLook int
}

// Timing is where the routine's wall time went.
type Timing struct {
	Servers time.Duration // starting, stopping and wiping servers between runs
	Runs    time.Duration // the runs themselves (their own lifecycle steps included)
	Warmup  time.Duration // the warm-up runs (WarmupRuns), not in Runs
	Total   time.Duration
}

// ErrSameBuild is two sides that resolve to one build without --aa.
var ErrSameBuild = errors.New("two sides are the same build")

// CheckBuilds refuses sides that resolve to an identical build (the files
// of their distributions), unless the A/A is declared.
func CheckBuilds(sides []Resolved, aa bool) error {
	if aa {
		return nil
	}
	var names []string
	var ts []record.Target
	for _, s := range sides {
		if s.Record == nil {
			continue
		}
		names = append(names, s.Name)
		ts = append(ts, record.Target{Server: s.Record})
	}
	if same := compare.IdenticalBuilds(names, ts); len(same) > 0 {
		return fmt.Errorf("%w: %s; a comparison of a build with itself would be reported as a PR (declare an A/A with --aa)", ErrSameBuild, strings.Join(same, ", "))
	}
	return nil
}

// Run makes every run of the routine in its order and returns where the
// time went. It stops at the first run that fails (its record is saved).
func Run(ctx context.Context, o Options) (tm Timing, err error) {
	start := time.Now()
	defer func() { tm.Total = time.Since(start) }()
	slots := Order(len(o.Sides), o.Runs, o.Seed)
	next := o.FirstLook
	var runTime time.Duration
	running := map[int]*provision.Server{}
	if o.KeepRunning {
		defer func() {
			t0 := time.Now()
			stopErr := o.together(running, "stop its server", func(srv provision.Server, w io.Writer) error {
				return srv.Run(context.WithoutCancel(ctx), "stop", w, w)
			})
			if stopErr != nil && err == nil {
				err = stopErr
			}
			tm.Servers += time.Since(t0)
		}()
		for i, side := range o.Sides {
			srv := o.server(side)
			if srv == nil {
				continue
			}
			srv.Port = provision.DefaultPort(srv.Kind) + i*provision.PortStride(srv.Kind)
			if srv.Kind != provision.IoTDB && o.Port != 0 {
				srv.Port = o.Port + i*provision.PortStride(srv.Kind)
			}
			fmt.Fprintf(o.Log, "routine: starting side %s's server on 127.0.0.1:%d; it keeps running through the routine (--keep-running)\n", side.Name, srv.Port)
			running[i] = srv // stopped at the end even when its start failed half way
		}
		// The sides' servers start together, as they restart: one after
		// the other, two IoTDB starts took about half a minute.
		t0 := time.Now()
		err := o.together(running, "start its server", func(srv provision.Server, w io.Writer) error {
			lo := o
			lo.Log = w
			return lo.startServer(ctx, srv)
		})
		tm.Servers += time.Since(t0)
		if err != nil {
			return tm, err
		}
		fmt.Fprintf(o.Log, "routine: every side's server started in %.1f s\n", time.Since(t0).Seconds())
	}
	all := o.plan(slots)
	last := lastRuns(all)
	measuredFrom := time.Now()
	size := 1 // the runs made at once: a duet's block, else one
	if o.Duet {
		size = len(o.Sides)
	}
	process := o.Processes + 1 // the kept-running servers' start, one more at each restart
	for g := 0; g < len(all); g += size {
		if all[g].restart {
			process++
			fmt.Fprintf(o.Log, "routine: restarting every side's server before block %d (--restart-every %d): process %d of each side\n", all[g].before, o.RestartEvery, process)
			t0 := time.Now()
			err := o.restart(ctx, running)
			tm.Servers += time.Since(t0)
			if err != nil {
				return tm, err
			}
			fmt.Fprintf(o.Log, "routine: every side's server restarted in %.1f s\n", time.Since(t0).Seconds())
		}
		type run struct {
			sl            Slot
			i, warmup     int
			which         string
			job           Job
			srv, up       *provision.Server
			runErr, after error
			// wipe ends the run's server with a wipe, not a stop: its
			// side runs again from one (last)
			wipe bool
		}
		var group []*run
		for k := g; k < g+size && k < len(all); k++ {
			sl := all[k].Slot
			side := o.Sides[sl.Side]
			r := &run{sl: sl, i: all[k].i, warmup: all[k].warmup, wipe: o.wipeAfter(all, last, k, next)}
			r.which = fmt.Sprintf("run %d of %d", r.i+1, len(slots))
			if r.warmup > 0 {
				r.which = fmt.Sprintf("warm-up run %d", r.warmup)
				if size == 1 || sl.Side == 0 {
					fmt.Fprintf(o.Log, "routine: warm-up run %d of %s, not compared\n", r.warmup, map[bool]string{true: "side " + side.Name, false: "every side at once (--duet)"}[size == 1])
				}
			} else {
				if r.i == o.From {
					measuredFrom = time.Now()
				}
				left := ""
				if r.i > o.From {
					per := time.Since(measuredFrom) / time.Duration(r.i-o.From)
					left = fmt.Sprintf(", about %s left", (per * time.Duration(len(slots)-r.i)).Round(time.Second))
				}
				most := ""
				if o.Look != nil {
					most = "at most "
				}
				if size == 1 {
					fmt.Fprintf(o.Log, "routine: run %d of %s%d: side %s (block %d, position %d)%s\n", r.i+1, most, len(slots), side.Name, sl.Block, sl.Position, left)
				} else if r.i%size == 0 {
					fmt.Fprintf(o.Log, "routine: block %d (runs %d to %d of %s%d): every side at once (--duet)%s\n", sl.Block, r.i+1, r.i+size, most, len(slots), left)
				}
			}
			r.job = o.job(side, sl, r.warmup, process)
			r.srv, r.up = o.server(side), running[sl.Side]
			if r.up != nil {
				r.srv = r.up
			}
			if r.srv != nil {
				// One description file for whichever side runs: the lifecycle
				// commands, keys of the workload, are then the same on every
				// side. (A duet's runs restart nothing: --cold clear.)
				current := filepath.Join(o.StateDir, "current.json")
				if err := os.MkdirAll(o.StateDir, 0o755); err != nil {
					return tm, err
				}
				if err := r.srv.Save(current); err != nil {
					return tm, err
				}
				r.job.Sets = []string{"STOP_COMMAND=" + provision.SpecCommandLine(r.srv.Bench, "stop", current), "START_COMMAND=" + provision.SpecCommandLine(r.srv.Bench, "start", current)}
				if o.ClearCold || side.NoRounds {
					r.job.Sets = noRestart()
				}
				if r.srv.Secure {
					// The commands that restart it (bench server --spec)
					// read the user's password here, never from a file.
					r.job.Env = []string{provision.PasswordEnv + "=" + r.srv.Password}
				}
				if r.up != nil {
					r.job.Sets = append(r.job.Sets, r.srv.ClientSets()...)
				} else {
					r.job.Sets = append(r.job.Sets, r.srv.TrustSets()...)
					t0 := time.Now()
					err := o.startServer(ctx, *r.srv)
					tm.Servers += time.Since(t0)
					if err != nil {
						return tm, fmt.Errorf("side %s, %s: %w", side.Name, r.which, err)
					}
				}
			} else if side.Form == External {
				// In the environment, not in the commands: the commands are
				// keys of the workload, the same on every side.
				r.job.Env = []string{"TSBENCH_SIDE=" + side.Name}
				if o.ClearCold || side.NoRounds {
					r.job.Sets = noRestart()
				}
				t0 := time.Now()
				err := o.external(ctx, side, "START_COMMAND")
				tm.Servers += time.Since(t0)
				if err != nil {
					return tm, fmt.Errorf("side %s, %s: %w", side.Name, r.which, err)
				}
			}
			group = append(group, r)
		}
		t0 := time.Now()
		if len(group) == 1 {
			group[0].runErr = o.RunOne(ctx, group[0].job)
		} else {
			// A duet: the block's runs at once, each step begun together.
			d := newDuet(len(group))
			var wg sync.WaitGroup
			for _, r := range group {
				r.job.Together = d.party()
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer r.job.Together.Leave()
					r.runErr = o.RunOne(ctx, r.job)
				}()
			}
			wg.Wait()
		}
		if group[0].warmup > 0 {
			tm.Warmup += time.Since(t0)
		} else {
			runTime += time.Since(t0)
			tm.Runs = runTime
		}
		t0 = time.Now()
		for _, r := range group {
			side := o.Sides[r.sl.Side]
			switch {
			case r.up != nil: // kept running
			case r.srv != nil && r.wipe && r.runErr == nil && ctx.Err() == nil:
				// A failed or interrupted run's server is stopped and
				// kept, with its logs.
				r.after = r.srv.Run(context.WithoutCancel(ctx), "wipe", o.Log, o.Log)
			case r.srv != nil:
				r.after = r.srv.Run(context.WithoutCancel(ctx), "stop", o.Log, o.Log)
			case side.Form == External:
				r.after = o.external(context.WithoutCancel(ctx), side, "STOP_COMMAND")
			}
		}
		tm.Servers += time.Since(t0)
		for _, r := range group {
			side := o.Sides[r.sl.Side]
			if r.runErr != nil && r.warmup > 0 {
				return tm, fmt.Errorf("side %s, %s: %w", side.Name, r.which, r.runErr)
			}
			if r.runErr != nil {
				return tm, fmt.Errorf("side %s, %s (block %d): %w", side.Name, r.which, r.sl.Block, r.runErr)
			}
			if r.after != nil {
				return tm, fmt.Errorf("side %s, %s: stop its server: %w", side.Name, r.which, r.after)
			}
		}
		if err := ctx.Err(); err != nil {
			return tm, err
		}
		for _, r := range group {
			if r.warmup > 0 {
				continue
			}
			if r.i == len(o.Sides)-1 && o.AfterFirstBlock != nil {
				if err := o.AfterFirstBlock(); err != nil {
					return tm, err
				}
			}
			if o.Look != nil && r.sl.Position == len(o.Sides) && r.sl.Block == next {
				n, err := o.Look(r.sl.Block, tm.Warmup)
				if err != nil || n == 0 {
					return tm, err
				}
				next = n
			}
		}
	}
	return tm, nil
}

// job is a slot's run, its record marked with the routine's side, block
// and position and the server it measured.
func (o Options) job(side Resolved, sl Slot, warmup, process int) Job {
	job := Job{Side: side, Label: side.Name, Fresh: !o.KeepState, Warmup: warmup}
	routine := &record.Routine{Side: side.Name, Block: sl.Block, Position: sl.Position, AA: o.AA, Seed: o.Seed, Warmup: warmup > 0, Change: o.Change}
	if o.KeepRunning && o.RestartEvery > 0 {
		routine.Process = process
	}
	job.Annotate = func(r *record.Record) {
		r.Routine = routine
		if side.Record != nil {
			srv := *side.Record
			r.Target.Server = &srv
		}
	}
	return job
}

// planned is a run in the order the routine makes them: a measured run
// (i, from 0, its place in the order) or a warm-up (warmup, from 1; i
// below 0), and whether every kept-running server restarts before it
// (restart, before the measured block numbered before).
type planned struct {
	Slot
	i, warmup int
	restart   bool
	before    int
}

// plan is the runs the routine makes, from the order's slots: the warm-up
// runs first (block 0, in the sides' order), then the slots from From,
// and with RestartEvery every kept-running server restarted before every
// RestartEvery-th block after the first, the warm-up runs made again on
// the new processes.
func (o Options) plan(slots []Slot) []planned {
	var out []planned
	warmups := 0
	warm := func(restart bool, before int) {
		for w := 0; w < o.WarmupRuns; w++ {
			warmups++
			for p := range o.Sides {
				out = append(out, planned{Slot: Slot{Side: p, Block: 0, Position: p + 1}, i: -1, warmup: warmups, restart: restart && w == 0 && p == 0, before: before})
			}
		}
	}
	warm(false, 0)
	for i := o.From; i < len(slots); i++ {
		sl := slots[i]
		restart := o.KeepRunning && o.RestartEvery > 0 && i > o.From && sl.Position == 1 && (sl.Block-1)%o.RestartEvery == 0
		if restart && o.WarmupRuns > 0 {
			warm(true, sl.Block)
			restart = false
		}
		out = append(out, planned{Slot: sl, i: i, restart: restart, before: sl.Block})
	}
	return out
}

// lastRuns is each side's last run in the plan, by its index there.
func lastRuns(all []planned) map[int]int {
	last := map[int]int{}
	for k, p := range all {
		last[p.Side] = k
	}
	return last
}

// wipeAfter says whether run k of the plan ends with a wipe of its server
// instead of a stop (a server started for the run, not kept running). The
// side's next run starts from a wipe anyway, and a wipe ends the server at
// once, where a stop makes it flush data about to be deleted (an IoTDB stop
// took about 13 s). A side's last run, one in the block a look follows
// (next: that look may end the routine) and any run with --keep-state end
// with a stop, their state and logs kept.
func (o Options) wipeAfter(all []planned, last map[int]int, k, next int) bool {
	p := all[k]
	return !o.KeepState && last[p.Side] != k && !(o.Look != nil && p.warmup == 0 && p.Block == next)
}

// restart ends every kept-running server and starts it again, from fresh
// state unless kept: the sides' next runs measure new processes. The sides'
// servers end together and start together, as a duet's lifecycle is made:
// a restart of two IoTDB servers one after the other took about a minute,
// which a routine that restarts often pays many times. A server whose state
// the start wipes is ended by that wipe, not stopped first: a stop would
// flush data about to be deleted (an IoTDB stop took about 13 s). With
// --keep-state the servers are stopped, then started on their data.
func (o Options) restart(ctx context.Context, running map[int]*provision.Server) error {
	if o.KeepState {
		if err := o.together(running, "restart its server", func(srv provision.Server, w io.Writer) error {
			return srv.Run(context.WithoutCancel(ctx), "stop", w, w)
		}); err != nil {
			return err
		}
	}
	return o.together(running, "restart its server", func(srv provision.Server, w io.Writer) error {
		lo := o
		lo.Log = w
		return lo.startServer(ctx, srv)
	})
}

// together runs step on every side's running server at once. Each side's
// messages go to the log after its step, not interleaved; the first side's
// error is returned, saying what failed (what: "start its server").
func (o Options) together(running map[int]*provision.Server, what string, step func(provision.Server, io.Writer) error) error {
	logs := make([]bytes.Buffer, len(o.Sides))
	errs := make([]error, len(o.Sides))
	var wg sync.WaitGroup
	for i := range o.Sides {
		if srv := running[i]; srv != nil {
			wg.Go(func() { errs[i] = step(*srv, &logs[i]) })
		}
	}
	wg.Wait()
	for i := range o.Sides {
		_, _ = o.Log.Write(logs[i].Bytes())
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("side %s: %s: %w", o.Sides[i].Name, what, err)
		}
	}
	return nil
}

// noRestart is a run's keys with --cold clear: no command stops or
// starts its server between the ingest and the cold round (the same keys on
// every side, as the restart commands are).
func noRestart() []string { return []string{"STOP_COMMAND=", "START_COMMAND="} }

// server is the provisioned server of a side, with its own state folder.
func (o Options) server(side Resolved) *provision.Server {
	if side.Server == nil {
		return nil
	}
	s := *side.Server
	s.Home = provision.StateFolder(s.Kind, o.StateDir, side.Name)
	if s.Kind != provision.IoTDB {
		s.Port = o.Port
	} else {
		s.Properties = o.Properties
	}
	return &s
}

// startServer starts a side's server, from fresh state unless kept.
func (o Options) startServer(ctx context.Context, s provision.Server) error {
	if !o.KeepState {
		if err := s.Run(ctx, "wipe", o.Log, o.Log); err != nil {
			return err
		}
	}
	return s.Run(ctx, "start", o.Log, o.Log)
}

// external runs the config's START_COMMAND or STOP_COMMAND for a side the
// routine cannot provision, with TSBENCH_SIDE naming the side.
func (o Options) external(ctx context.Context, side Resolved, key string) error {
	cmdline := side.Commands[key]
	if cmdline == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	cmd.Env = append(os.Environ(), "TSBENCH_SIDE="+side.Name)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s (%s): %w", key, cmdline, err)
	}
	return nil
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:8]
}
