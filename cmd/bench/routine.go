package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/pipeline"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/routine"
	"github.com/tsbench/tsbench/runner"
)

type routineFlags struct {
	// answers says why the runs' answers are not checked, when they are
	// not (answersByDefault); for the summary.
	answers          string
	config           string
	sets, sideSets   []string
	baseline         string
	contenders       []string
	runs             int
	seed             uint64
	out              string
	failAbove        float64
	aa, keepState    bool
	build, distGlob  string
	properties       string
	paired, dryRun   bool
	alpha, minEffect float64
	confidence       float64
}

func newRoutine(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var f routineFlags
	cmd := &cobra.Command{
		Use:   "routine -c FILE --baseline NAME=SERVER --contender NAME=SERVER... [--runs 6] [--out DIR]",
		Short: "The weekly routine in one command: two server builds in, a PR report and a gate verdict out",
		Long: `bench routine runs the weekly regression routine end to end: it makes every
side's server ready, runs the config on each side in balanced blocks (one
run a side; blocks in pairs, one in the sides' order and one reversed, which
comes first drawn from --order-seed: every side the same mean position),
each run on a server started from a wiped state folder, and writes the PR report, the HTML page
and its charts, the records and a summary; its exit status is the gate's.

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

Exit status: 0 passed: every gated row proven within --fail-above (or
better); 1 a regression beyond --fail-above; 2 bad usage or input, or two
sides of one build; 3 a side's server could not be made, or a run failed
(its record is saved); 4 inconclusive: no regression, but some gated rows
are neither proven within nor shown worse, untested or not measured.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRoutine(ctx, cmd, f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.config, "config", "c", "", "config.properties file to run on every side")
	fl.StringArrayVar(&f.sets, "set", nil, "override a key on every side: --set KEY=VALUE (repeatable)")
	fl.StringArrayVar(&f.sideSets, "side-set", nil, "override a key on one side: --side-set NAME:KEY=VALUE (repeatable)")
	fl.StringVar(&f.baseline, "baseline", "", "the baseline: NAME=SERVER, e.g. master=git:../iotdb@master")
	fl.StringArrayVar(&f.contenders, "contender", nil, "a contender: NAME=SERVER (repeatable)")
	fl.Uint64Var(&f.seed, "order-seed", 0, "draws which block of each pair of blocks comes first (default: from the clock, printed; give it to repeat an order)")
	fl.IntVar(&f.runs, "runs", 6, "runs a side (even: an odd number is rounded up, so that the order is balanced)")
	fl.StringVar(&f.out, "out", "", "the folder for the report, the charts and the records (default routine-<UTC time>)")
	fl.Float64Var(&f.failAbove, "fail-above", 10, "gate: exit 1 when a gated row is significantly worse by more than this percentage")
	fl.Float64Var(&f.alpha, "alpha", compare.DefaultAlpha, "family-wise significance level of the verdicts and the gate")
	fl.Float64Var(&f.confidence, "confidence", compare.DefaultConfidence, "two-sided level of the intervals; a gated row is proven within --fail-above when its interval's worse end is inside it")
	fl.Float64Var(&f.minEffect, "min-effect", 5, "percent: significant changes smaller than this are reported as ~")
	fl.BoolVar(&f.paired, "paired", false, "test each contender run against the baseline run of its block (compare --paired) instead of Welch's unpaired test")
	fl.BoolVar(&f.dryRun, "dry-run", false, "make the sides' servers ready (builds included) and print the order of the runs, run nothing")
	fl.BoolVar(&f.aa, "aa", false, "the sides are one build on purpose (an A/A comparison): do not refuse them")
	fl.BoolVar(&f.keepState, "keep-state", false, "keep a server's data from run to run (default: wiped before each run)")
	fl.StringVar(&f.build, "build", "", "the command that builds a git side's distribution, run with sh -c in its worktree")
	fl.StringVar(&f.distGlob, "dist-glob", "", "where a git side's build leaves its distribution, relative to the worktree")
	fl.StringVar(&f.properties, "iotdb-properties", "", "extra lines for every IoTDB side's iotdb-system.properties")
	return cmd
}

func runRoutine(ctx context.Context, cmd *cobra.Command, f routineFlags, stdout, stderr io.Writer) error {
	if f.config == "" {
		return usageError(errors.New("give a config file with -c, e.g. bench routine -c weekly.properties --baseline master=iotdb:2.0.10 --contender pr=DIR"))
	}
	if f.baseline == "" || len(f.contenders) == 0 {
		return usageError(errors.New("give --baseline NAME=SERVER and at least one --contender NAME=SERVER"))
	}
	runs, note, err := routine.EvenRuns(f.runs)
	if err != nil {
		return usageError(err)
	}
	if note != "" {
		fmt.Fprintf(stderr, "note: %s\n", note)
	}
	f.runs = runs
	if err := f.compareOptions().Check(f.failAbove, true, compare.UntestedFail); err != nil {
		return usageError(err)
	}
	sides, err := routine.ParseSides(f.baseline, f.contenders)
	if err != nil {
		return usageError(err)
	}
	perSide, err := routine.SideSets(f.sideSets, sides)
	if err != nil {
		return usageError(err)
	}
	if !cmd.Flags().Changed("order-seed") {
		f.seed = uint64(time.Now().UnixNano())
	}
	out := f.out
	if out == "" {
		out = "routine-" + time.Now().UTC().Format("20060102T150405Z")
	}
	out, err = filepath.Abs(out)
	if err != nil {
		return usageError(err)
	}
	if err := routine.CheckOut(out); err != nil {
		return usageError(err)
	}
	results := routine.Results(out)
	// The configuration is checked once for every side before anything is
	// made or started: a bad key fails here, not after a build.
	base := append(slices.Clone(f.sets), "RESULTS_DIR="+results)
	base, f.answers, err = answersByDefault(f.config, base, stderr)
	if err != nil {
		return err
	}
	var port int
	commands := map[string]map[string]string{}
	for _, s := range sides {
		l, drv, plan, err := prepare(f.config, append(slices.Clone(base), perSide[s.Name]...))
		if err != nil {
			return err
		}
		// What each run would refuse at its start, refused here (and by --dry-run).
		p := &pipeline.Prepared{Loaded: l, Driver: drv, Plan: plan}
		if err := p.ForRoutine(); err != nil {
			return exitOf(err)
		}
		if err := p.Check(); err != nil {
			return exitOf(err)
		}
		if _, tooBig := runner.SizeCheck(drv, plan); tooBig != nil {
			return usageError(tooBig)
		}
		if err := s.Fits(drv.Name, drv.Servers, drv.Embedded()); err != nil {
			return usageError(err)
		}
		if len(l.Config.Ports) > 0 {
			port = l.Config.Ports[0]
		}
		commands[s.Name] = map[string]string{"START_COMMAND": l.Config.StartCommand, "STOP_COMMAND": l.Config.StopCommand}
	}
	self, err := os.Executable()
	if err != nil {
		return failedError(fmt.Errorf("find the bench binary: %w", err))
	}
	t0 := time.Now()
	res := routine.Resolver{Cache: provision.DefaultCache(), Bench: self, Build: routine.Build{Command: f.build, Glob: f.distGlob}, Log: stderr}
	var resolved []routine.Resolved
	for _, s := range sides {
		r, err := res.Resolve(ctx, s)
		if err != nil {
			if errors.Is(err, routine.ErrBuild) {
				return failedError(err)
			}
			return usageError(err)
		}
		r.Commands = commands[s.Name]
		resolved = append(resolved, r)
		id := "no server (embedded)"
		switch {
		case r.Record != nil:
			id = record.Target{DB: string(r.Kind), Server: r.Record}.Identity()
		case s.Form == routine.External:
			id = "external: the config's START_COMMAND and STOP_COMMAND"
		}
		fmt.Fprintf(stderr, "routine: %s: %s\n", s.Name, strings.TrimPrefix(id, " "))
	}
	provisioning := time.Since(t0)
	if err := routine.CheckBuilds(resolved, f.aa); err != nil {
		return usageError(err)
	}
	if f.dryRun {
		fmt.Fprintf(stdout, "Routine: %d runs a side in balanced blocks (--order-seed %d), into %s\n", f.runs, f.seed, out)
		for i, sl := range routine.Order(len(resolved), f.runs, f.seed) {
			fmt.Fprintf(stdout, "  run %d: side %s (block %d, position %d)\n", i+1, resolved[sl.Side].Name, sl.Block, sl.Position)
		}
		return nil
	}
	// Only now, with every side ready: a refusal leaves nothing behind.
	if err := os.MkdirAll(filepath.Join(out, "runs"), 0o755); err != nil {
		return usageError(fmt.Errorf("--out: %w", err))
	}
	n := 0
	o := routine.Options{
		Sides: resolved, Runs: f.runs, Seed: f.seed, AA: f.aa, KeepState: f.keepState,
		StateDir: filepath.Join(out, "servers"), Port: port, Properties: f.properties, Log: stderr,
		RunOne: func(ctx context.Context, j routine.Job) error {
			n++
			logPath := filepath.Join(out, "runs", fmt.Sprintf("%02d-%s.log", n, j.Label))
			logf, err := os.Create(logPath)
			if err != nil {
				return err
			}
			defer logf.Close()
			sets := slices.Concat(base, perSide[j.Label], j.Sets)
			rf := runFlags{config: f.config, sets: sets, label: j.Label, format: "text", repeat: 1, annotate: j.Annotate, fresh: j.Fresh, env: j.Env,
				progress: &prefixWriter{w: stderr, prefix: fmt.Sprintf("routine: %s, run %d of %d: ", j.Label, n, f.runs*len(resolved))}}
			if err := runOnce(ctx, rf, logf, logf); err != nil {
				return fmt.Errorf("%w (its log: %s)", err, logPath)
			}
			return nil
		},
		AfterFirstBlock: func() error {
			recs, _ := record.Store{Dir: results}.List()
			return routine.SameBuildsSeen(recs, sides, f.aa)
		},
	}
	fmt.Fprintf(stderr, "routine: %d runs a side, the order drawn with --order-seed %d\n", f.runs, f.seed)
	tm, runErr := routine.Run(ctx, o)
	if runErr != nil {
		var ee *exitError
		if errors.Is(runErr, routine.ErrSameBuild) || errors.As(runErr, &ee) && ee.code == exitUsage {
			return usageError(runErr)
		}
		return failedError(fmt.Errorf("the routine stopped: %w", runErr))
	}
	return routineReport(f, out, resolved, provisioning, tm, stdout, stderr)
}

// compareOptions are the verdicts' options: compare's, as bench compare
// takes them.
func (f routineFlags) compareOptions() compare.Options {
	return compare.Options{Alpha: f.alpha, MinEffect: f.minEffect, MinAbsMS: compare.DefaultMinAbsMS, Paired: f.paired, Confidence: f.confidence}
}

// routineReport compares the routine's runs (package compare), writes the
// PR report (Markdown), the HTML page and its charts, the JSON and the
// text tables (packages report and htmlreport) and the summary into out,
// prints the summary and returns the gate's verdict as the exit status.
// Every artefact starts with the same verdict.
func routineReport(f routineFlags, out string, sides []routine.Resolved, provisioning time.Duration, tm routine.Timing, stdout, stderr io.Writer) error {
	labels := []string{}
	for _, s := range sides {
		labels = append(labels, s.Name)
	}
	results := routine.Results(out)
	cmp, warnings, err := buildComparison(io.Discard, results, labels, f.compareOptions(), false)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return &exitError{ee.code, fmt.Errorf("compare the routine's runs: %w", ee.err)}
		}
		return failedError(fmt.Errorf("compare the routine's runs: %w", err))
	}
	v := cmp.Decide(f.failAbove, compare.UntestedFail)
	sum, err := routine.Report{Out: out, Labels: labels, Runs: f.runs, Paired: f.paired, Tool: toolVersion(), Comparison: cmp, Warnings: warnings,
		Provisioning: provisioning, Timing: tm, Unchecked: f.answers}.Write()
	if err != nil {
		return failedError(err)
	}
	if _, err := stdout.Write(sum); err != nil {
		return err
	}
	switch v.Status {
	case compare.Regression:
		return &exitError{exitRegressed, errors.New(v.Headline)}
	case compare.Undetermined:
		return &exitError{exitUntested, errors.New(v.Headline)}
	}
	return nil
}

// prefixWriter starts every line written through it with prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if !p.mid {
			out = append(out, p.prefix...)
			p.mid = true
		}
		out = append(out, c)
		if c == '\n' {
			p.mid = false
		}
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// answersByDefault is routine.AnswersByDefault on the routine's config,
// with the line that says what the routine chose.
func answersByDefault(path string, sets []string, stderr io.Writer) (_ []string, unchecked string, _ error) {
	l, _, _, err := prepare(path, sets)
	if err != nil {
		return nil, "", err
	}
	a, err := routine.AnswersByDefault(l.Config, sets, func(sets []string) error {
		l, drv, plan, err := prepare(path, sets)
		if err != nil {
			return err
		}
		return (&pipeline.Prepared{Loaded: l, Driver: drv, Plan: plan}).ForRoutine()
	})
	if err != nil {
		return nil, "", err
	}
	switch {
	case a.Chosen:
	case a.Unchecked != "":
		fmt.Fprintf(stderr, "routine: answers NOT checked: %s\n", a.Unchecked)
	default:
		fmt.Fprintf(stderr, "routine: answers checked (CHECK_ANSWERS=true, the routine's default; the summary says what it cost)\n")
	}
	return a.Sets, a.Unchecked, nil
}
