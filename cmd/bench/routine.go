package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/routine"
)

func newRoutine(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	r := routine.Request{Compare: compare.Options{MinAbsMS: compare.DefaultMinAbsMS}, Stdout: stdout, Log: stderr, Tool: toolVersion()}
	cmd := &cobra.Command{
		Use:   "routine -c FILE --baseline NAME=SERVER --contender NAME=SERVER... [--runs 6] [--out DIR]",
		Short: "The weekly routine in one command: two server builds in, a PR report and a gate verdict out",
		Long: `bench routine runs the weekly regression routine end to end: it makes every
side's server ready, runs the config on each side in balanced blocks (one
run a side; blocks in pairs, one in the sides' order and one reversed, which
comes first drawn from --order-seed: every side the same mean position),
and writes the PR report, the HTML page and its charts, the records and a
summary; its exit status is the gate's.

The default design, where it fits: a duet (--duet, below) that stops when
it knows (--budget 30m): both sides' servers started once and kept running,
each block's runs made at the same time, tested in pairs, looked at after 6
runs a side and again as the runs grow, until every gated row is decided or
the half hour ends. A duet fits when every side is a server the routine
starts (not external, not embedded) that can be kept running
(IS_DELETE_DATA=true) and can clear its caches; where none fits the routine
says why, and each run gets a server started from a wiped state folder,
wiped at once after it where its side runs again (no shutdown's flush of
data about to be deleted), else stopped and kept with its logs. --duet=false, --keep-running or --cold choose another
design; --runs N without --budget makes exactly N runs a side.

A SERVER is one of:
  iotdb:VERSION, elasticsearch:VERSION, opensearch:VERSION
                   a released version, fetched once (as bench server does);
                   iotdb alone means the scripts' default version
  DIR              an unpacked distribution (your build)
  FILE.zip, FILE.tar.gz
                   an archive of one, unpacked once by its checksum
  git:PATH@REF     a git checkout and a ref: checked out into a worktree of
                   its own and built with --build, once per commit; the
                   distribution is found by --dist-glob (default: IoTDB's
                   distribution/target/*-all-bin/*-all-bin, then
                   distribution/target/*-bin/*-bin, then dist). A build that
                   fails or makes no distribution stops the routine (exit 3)
                   before anything is measured: never a fallback.
  external         a server tsbench cannot start: the config's START_COMMAND
                   and STOP_COMMAND, which see TSBENCH_SIDE=NAME
  embedded         no server (SQLite, Null): its file is discarded before
                   each run

Every record says which server it measured (version, the server's own
build id, commit, a checksum of the distribution's files, the spec) and
where it ran (side, block, position). Two sides whose distributions hold
identical files are refused (exit 2) unless --aa declares an A/A; so are
two sides whose servers report one build after the first block.

Sides of one build whose --side-set keys give them different values (an
ingest pipeline on one side, another shard count) are a comparison of
configurations, not an A/A: no --aa is needed (--aa is then refused), every
record names the keys, the report says CONFIGURATION CHANGE with each key's
values, and compare takes runs whose workloads differ in exactly those
keys. Where a server listens (HOST, PORT) is no change of configuration,
and secrets are never named.

The verdict: compare's gate (--fail-above, default 10) on the runs of each
contender against the baseline, as bench compare gives it: every gated row
is worse (shown beyond the limit), within (its interval's worse end inside
the limit) or inconclusive (with the bound it could prove and the runs a
side that would settle it); deterministic server figures (bytes per point)
are gated by default. The verdict is the first line of the summary,
summary.txt, report.md, report.html and report.json. Welch's test as bench
compare does; --paired tests each contender run against the baseline run
of its block instead (on log-ratios: drift both sides share cancels, at the
price of fewer degrees of freedom; docs/weekly-regression.md has both
measured).

--keep-running starts every side's server once, each on ports of its own
(IoTDB 6667, 6767, ...; Elasticsearch and OpenSearch PORT, PORT+1, ...), and
keeps them all up through the routine: a run cleans its side's data
(IS_DELETE_DATA) instead of waiting for a stop, a wipe and a start, and
both servers share the machine the whole time (an idle one included).
Since only a server's first run finds it fresh, each side first makes one
warm-up run (--warmup-runs), kept in OUT/warmup and not compared.

--cold clear makes each run's cold query round without a restart: the
server is flushed, the OS caches dropped and the server's own caches cleared
(IoTDB CLEAR CACHE, Elasticsearch's cache clear), and its process stays up.
The round then measures cold data with warm code (compiled, connected);
--cold restart (the default) stops and starts the server as well, which
costs about half a minute a run on IoTDB. With --keep-running as well, no
server is restarted from the routine's first run to its last.

--duet (the default where it fits) makes each block's runs at the same
time, one a side, on servers
kept running (it implies --keep-running and --cold clear): every measured
phase, and the cold round's flush and cache clears, begins on all sides
together, so that what the machine does meanwhile falls on every side
alike (duet benchmarking). The sides then share the machine's cores; the
blocks pair the runs (--paired reads the pairs).

--budget DURATION makes the routine sequential (stop when you know): after
--runs runs a side it compares what it has, and again each time the runs a
side have grown by a quarter (6, 8, 10, 14, 18, 24, 30, 38, ...), until
every gated row is decided, at the last of --looks looks (14), or when the
budget ends: if the next look would not fit, a last look comes after the
blocks that do. Each look tests at a share of --alpha and of the
intervals' error (O'Brien–Fleming-type spending, the looks combined by
Bonferroni's inequality; a last look the budget cut short spends what the
looks not made leave), so the gate's error rates hold wherever the routine
stops; the report says where it stopped and why.

--resume continues an interrupted routine (the same command line and
--out) from its last complete run, in the same order; OUT/routine.json, written
before the first run, is what it must find unchanged (the configuration's
checksum, the inputs, each side's server, the tsbench build).

Exit status: 0 passed: every gated row proven within --fail-above (or
better); 1 a regression beyond --fail-above; 2 bad usage or input, or two
sides of one build; 3 a side's server could not be made, or a run failed
(its record is saved); 4 inconclusive: no regression, but some gated rows
are neither proven within nor shown worse, untested or not measured.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRoutine(ctx, cmd, r)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&r.Config, "config", "c", "", "config.properties file to run on every side")
	fl.StringArrayVar(&r.Sets, "set", nil, "override a key on every side: --set KEY=VALUE (repeatable)")
	fl.StringArrayVar(&r.SideSets, "side-set", nil, "override a key on one side: --side-set NAME:KEY=VALUE (repeatable)")
	fl.StringVar(&r.Baseline, "baseline", "", "the baseline: NAME=SERVER, e.g. master=git:../iotdb@master")
	fl.StringArrayVar(&r.Contenders, "contender", nil, "a contender: NAME=SERVER (repeatable)")
	fl.Uint64Var(&r.Seed, "order-seed", 0, "draws which block of each pair of blocks comes first (default: from the clock, printed; give it to repeat an order)")
	fl.IntVar(&r.Runs, "runs", 6, "runs a side (even: an odd number is rounded up, so that the order is balanced); with a budget, the runs of the first look. Given without --budget: exactly these runs, no budget")
	fl.DurationVar(&r.Budget, "budget", 0, "stop when you know: after --runs runs a side, look again each time the runs a side grew by a quarter, and stop once every gated row is decided (worse, or proven within --fail-above), at the last look, or when this time ends (the levels are spent over the looks: valid under this optional stopping); default 30m unless --runs is given, 0: exactly --runs runs a side")
	fl.IntVar(&r.Looks, "looks", 0, "the most looks of a sequential routine (default 14 with a budget: from 6 runs a side up to 150; above 1 without one: stop when decided, at most this many looks)")
	fl.StringVar(&r.Out, "out", "", "the folder for the report, the charts and the records (default routine-<UTC time>)")
	fl.Float64Var(&r.FailAbove, "fail-above", 10, "gate: exit 1 when a gated row is significantly worse by more than this percentage")
	fl.Float64Var(&r.Compare.Alpha, "alpha", compare.DefaultAlpha, "family-wise significance level of the verdicts and the gate")
	fl.Float64Var(&r.Compare.Confidence, "confidence", compare.DefaultConfidence, "two-sided level of the intervals; a gated row is proven within --fail-above when its interval's worse end is inside it")
	fl.Float64Var(&r.Compare.MinEffect, "min-effect", 5, "percent: significant changes smaller than this are reported as ~")
	fl.BoolVar(&r.Compare.Paired, "paired", false, "test each contender run against the baseline run of its block (compare --paired) instead of Welch's unpaired test")
	fl.BoolVar(&r.Resume, "resume", false, "continue the interrupted routine in --out from its last complete run, in the same order (the same command line: refused if the config, the sides, their inputs or the tsbench build changed)")
	fl.BoolVar(&r.DryRun, "dry-run", false, "make the sides' servers ready (builds included) and print the order of the runs, run nothing")
	fl.BoolVar(&r.AA, "aa", false, "the sides are one build on purpose (an A/A comparison): do not refuse them")
	fl.BoolVar(&r.KeepRunning, "keep-running", false, "start every side's server once, on ports of its own, and keep them running through the routine: a run cleans its side's data (IS_DELETE_DATA) instead of waiting for a restart of its server")
	fl.BoolVar(&r.Duet, "duet", false, "make each block's runs at the same time, one a side, every measured step begun together, so that the machine's drift falls on both (implies --keep-running and --cold clear; not for external or embedded sides). The default where one fits, unless --keep-running or --cold is given; --duet=false restarts each run's server instead")
	fl.StringVar(&r.Cold, "cold", "", "how a run's first query round is made cold: restart (stop the server, drop the OS caches, start it: a cold process too; the default) or clear (flush, drop the OS caches, clear the server's own caches: no restart, the process stays warm; faster; the default with --duet)")
	fl.IntVar(&r.RestartEvery, "restart-every", 0, "with --keep-running or --duet: restart every side's server before every Nth block after the first (the warm-up runs made again), so that a side's runs measure several server processes, each process's mean then one sample of the tests and intervals; a sequential routine then looks after whole processes only, the first after 3 a side (0: never)")
	fl.IntVar(&r.WarmupRuns, "warmup-runs", -1, "runs a side made before the first block, kept in OUT/warmup and not compared (-1: 1 with --keep-running, whose servers are fresh only for their first run; else 0)")
	fl.BoolVar(&r.KeepState, "keep-state", false, "keep a server's data from run to run (default: wiped before each run)")
	fl.StringVar(&r.Build.Command, "build", "", "the command that builds a git side's distribution, run with sh -c in its worktree")
	fl.StringVar(&r.Build.Glob, "dist-glob", "", "where a git side's build leaves its distribution, relative to the worktree")
	fl.StringVar(&r.Properties, "iotdb-properties", "", "extra lines for every IoTDB side's iotdb-system.properties")
	return cmd
}

// runRoutine makes the routine (routine.Request) and turns its verdict
// into the exit status.
func runRoutine(ctx context.Context, cmd *cobra.Command, r routine.Request) error {
	reg, err := sabotaged(registry())
	if err != nil {
		return usageError(err)
	}
	if r.Bench, err = os.Executable(); err != nil {
		return failedError(fmt.Errorf("find the bench binary: %w", err))
	}
	fl := cmd.Flags()
	r.Registry, r.SeedGiven = reg, fl.Changed("order-seed")
	// The default design: a duet where one fits, stopping when it knows
	// within a budget; a design flag, --runs or --budget says otherwise.
	r.DuetAuto = !fl.Changed("duet") && !fl.Changed("keep-running") && !fl.Changed("cold")
	if !fl.Changed("budget") && !fl.Changed("runs") {
		r.Budget = routine.DefaultBudget
	}
	v, err := r.Do(ctx)
	switch {
	case err != nil:
		return exitOf(err)
	case v == nil: // a dry run
		return nil
	case v.Status == compare.Regression:
		return &exitError{exitRegressed, errors.New(v.Headline)}
	case v.Status == compare.Undetermined:
		return &exitError{exitUntested, errors.New(v.Headline)}
	}
	return nil
}
