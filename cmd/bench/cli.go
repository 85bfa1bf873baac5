package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/adapters/elasticsearch"
	"github.com/tsbench/tsbench/adapters/iotdb"
	"github.com/tsbench/tsbench/adapters/null"
	"github.com/tsbench/tsbench/adapters/sqlite"
	"github.com/tsbench/tsbench/pipeline"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
)

// Exit statuses.
const (
	exitOK        = 0
	exitRegressed = 1 // compare --fail-above found a regression
	exitUsage     = 2 // bad usage or input
	exitFailed    = 3 // the run itself failed
	exitUntested  = 4 // the gate is inconclusive: a gated row neither proven within nor shown worse
	// exitBug is a panic in the command: sysexits' EX_SOFTWARE, so that
	// it is never read as bad usage (Go's own panic status is 2).
	exitBug = 70
)

// exitError carries an exit status; its message is printed as is.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(err error) error  { return &exitError{exitUsage, err} }
func failedError(err error) error { return &exitError{exitFailed, err} }

// registry is every database this build knows.
func registry() adapters.Registry {
	return adapters.Registry{sqlite.Driver(), iotdb.Driver(), elasticsearch.Driver(), null.Driver()}
}

// version is set at build time with -ldflags "-X main.version=..."; else it
// comes from the module's build information.
var version = ""

func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				return "dev-" + s.Value[:7]
			}
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
	}
	return "dev"
}

// Main runs the command line and returns the exit status. main only wires
// it to the process, so tests run the whole CLI in-process.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "bench: internal error, a bug in tsbench: %v (please report it with the command that led to it)\n", p)
			code = exitBug
		}
	}()
	root := newRoot(ctx, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	code = exitUsage // cobra's own errors are usage errors
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(stderr, "bench: %s\n", line)
	}
	return code
}

type runFlags struct {
	repeat int
	config string
	sets   []string
	label  string
	format string
	dryRun bool
	// cpuProfile is where --cpuprofile writes the tool's own CPU profile.
	cpuProfile string
	// startAt is --start-at: when the measured phase begins.
	startAt string
}

func newRoot(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var rf runFlags
	root := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark time-series databases with iot-benchmark's config.properties",
		Long: `tsbench runs iot-benchmark style workloads (config.properties) against a
database and reports iot-benchmark's Result and Latency matrices.

  bench -c config.properties        run the benchmark in the file
  bench show RUN                    print a saved run again

Run status (bench list, show, the record): complete (also when TEST_MAX_TIME,
the user's own bound, ended a phase: its Result Matrix says so); incomplete
(cut short: interrupted, a step that failed); failed (ran to its end, but
more operations failed than MAX_ERROR_RATE allows, 0% by default, or VERIFY
found a difference).

Exit status: 0 ok; 1 bench compare --fail-above found a regression; 2 bad
usage or input (nothing runs); 3 the run failed or is incomplete (its record
is saved); 4 the gate of bench compare --fail-above or bench routine is
inconclusive (no regression, but a gated row neither proven within the limit
nor shown worse); 70 an internal error (a bug in tsbench: please report it).`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rf.config == "" {
				cmd.SetOut(stderr)
				_ = cmd.Help()
			}
			return runBenchmark(ctx, rf, "bench", stdout, stderr)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	// Every command's path flags, before it does anything.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return checkPathFlags(cmd) }
	addRunFlags(root, &rf)

	var rf2 runFlags
	run := &cobra.Command{
		Use:   "run -c FILE",
		Short: "Run a benchmark",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchmark(ctx, rf2, "bench run", stdout, stderr)
		},
	}
	addRunFlags(run, &rf2)
	root.AddCommand(run, newShow(stdout, stderr), newReport(stdout, stderr), newList(stdout, stderr), newCompare(stdout, stderr), newHistory(stdout, stderr), newExport(ctx, stdout, stderr), newVerify(ctx, stdout, stderr), newMerge(stdout, stderr), newClean(ctx, stdout, stderr), newGenerate(ctx, stdout, stderr), newVersion(stdout), newServer(ctx, stdout, stderr), newRoutine(ctx, stdout, stderr))
	return root
}

func addRunFlags(cmd *cobra.Command, rf *runFlags) {
	f := cmd.Flags()
	f.StringVarP(&rf.config, "config", "c", "", "config.properties file to run")
	f.StringArrayVar(&rf.sets, "set", nil, "override a key: --set KEY=VALUE (repeatable)")
	f.StringVar(&rf.label, "label", "", "tag the run, e.g. master-a2b704d (bench show and compare find runs by label)")
	formatFlag(cmd, &rf.format, report.TableFormats, "output format")
	f.BoolVar(&rf.dryRun, "dry-run", false, "print the configuration and the plan, run nothing")
	f.IntVar(&rf.repeat, "repeat", 1, "run N times, each saved as its own record under the same label (for compare's statistics)")
	f.StringVar(&rf.cpuProfile, "cpuprofile", "", "write tsbench's own CPU profile over the whole run to FILE (go tool pprof FILE), to see what the tool spends")
	f.StringVar(&rf.startAt, "start-at", startAtFlag(), "begin the measured phase at this time (RFC 3339 or Unix seconds; TSBENCH_START_AT sets it): the instances of a distributed run start together; an instance ready after it fails")
}

// runTask makes a verify or clean (pipeline.Task) on the registry.
func runTask(t *pipeline.Task, do func(pipeline.Task) error) error {
	reg, err := sabotaged(registry())
	if err != nil {
		return usageError(err)
	}
	t.Registry = reg
	return exitOf(do(*t))
}

// exitOf gives a pipeline's error its exit status: bad input is bad
// usage, anything else a failed run.
func exitOf(err error) error {
	var bi *pipeline.BadInput
	switch {
	case err == nil:
		return nil
	case errors.As(err, &bi):
		return usageError(err)
	}
	return failedError(err)
}

// formatFlag adds --format for the formats a command writes, its help
// made from them; what names the output ("output format").
func formatFlag(cmd *cobra.Command, p *string, fs report.Formats, what string) {
	cmd.Flags().StringVar(p, "format", string(report.Text), what+": "+fs.Help())
}

// runBenchmark is bench and bench run (the command's name, for the
// refusal of a missing config file).
func runBenchmark(ctx context.Context, rf runFlags, name string, stdout, stderr io.Writer) error {
	if rf.config == "" {
		return usageError(fmt.Errorf("give a config file with -c, e.g. %s -c config.properties", name))
	}
	if rf.repeat < 1 {
		return usageError(fmt.Errorf("--repeat=%d must be at least 1", rf.repeat))
	}
	if rf.repeat > 1 && rf.startAt != "" {
		return usageError(fmt.Errorf("--start-at=%s with --repeat=%d: the repeats cannot all start at one time (valid: one of them)", rf.startAt, rf.repeat))
	}
	if rf.cpuProfile != "" {
		f, err := os.Create(rf.cpuProfile)
		if err != nil {
			return usageError(fmt.Errorf("--cpuprofile: %w", err))
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	return exitOf(pipeline.Repeat(ctx, rf.repeat, stderr, func() error { return runOnce(ctx, rf, stdout, stderr) }))
}

// runOnce is one run; its error is the pipeline's.
func runOnce(ctx context.Context, rf runFlags, stdout, stderr io.Writer) error {
	format, err := report.TableFormats.Parse(rf.format)
	if err != nil {
		return &pipeline.BadInput{Err: err}
	}
	reg, err := sabotaged(registry())
	if err != nil {
		return &pipeline.BadInput{Err: err}
	}
	p, err := pipeline.Load(rf.config, rf.sets, reg)
	if err != nil {
		return err
	}
	// Text and markdown go to stdout with the tables; with csv or json the
	// tables must stay machine-readable, so the human lines go to stderr.
	human := stdout
	if format.MachineReadable() {
		human = stderr
	}
	o := pipeline.Options{Label: rf.label, DryRun: rf.dryRun, StartAt: rf.startAt, Tool: toolVersion(),
		Human: human, Log: stderr, Progress: stderr, Terminal: isTerminal(stderr)}
	o.Report = func(rec *record.Record) error {
		if err := report.WriteRun(stdout, format, rec); err != nil {
			return err
		}
		writeProse(stderr, format, report.RunTables(rec))
		return nil
	}
	_, err = p.Run(ctx, o)
	return err
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
