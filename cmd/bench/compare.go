package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/charts"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/htmlreport"
	"github.com/tsbench/tsbench/report"
)

// compareFormats are the tables' formats and the HTML page.
var compareFormats = report.TableFormats.With("bench compare", report.HTML)

func newCompare(stdout, stderr io.Writer) *cobra.Command {
	var (
		results, format, layout, output string
		pngDir                          string
		failAbove, minEffect, minAbs    float64
		alpha, confidence               float64
		force, paired                   bool
		untested                        string
		gateServer                      []string
	)
	cmd := &cobra.Command{
		Use:   "compare BASELINE CONTENDER...",
		Short: "Compare runs: ratio tables with verdicts that tell change from noise",
		Long: `Compare a baseline with one or more contenders. Each argument is a run id (or
id prefix), a label or a record file; a label that several runs share (bench run
--repeat N) makes a side with N runs, which lets compare test whether a change is
real.

Layouts: rally (Metric, Operation, Baseline, Contender, Diff, Unit, Diff %, Ratio,
Verdict) and pr (one row per operation or query variant; per round baseline,
contender and contender/baseline, like the IoTDB weekly regression report).

The gate (--fail-above N) judges every gated row three ways: worse, when a
one-sided test shows it worse by more than N percent (Holm-adjusted over
every gated row, so the chance of any false alarm stays below --alpha);
within, when the worse end of its interval (--confidence, 90% two-sided:
one-sided 95%) is inside N percent: proven no worse; inconclusive
otherwise, with the bound it could prove and about how many runs a side
would settle it. The gate passes only when every gated row is within or
better (an intersection-union test: no correction is needed for a pass).
Every row has its interval, on log values as its test.
Verdicts: Welch's t-test on the per-run values of each side; the p-values of all
tested rows of a contender are adjusted by Holm–Bonferroni, so the chance of any
false alarm in a comparison stays below --alpha; a change smaller than
--min-effect percent, or a latency change smaller than --min-abs ms, is "~".
` + report.Wrap(compare.GateRules, 80) + `
A gated row that cannot be tested (fewer runs, no successful operation on a
side, every operation failed on both) is listed, never passed in silence.
Deterministic server figures (bytes per point, data size on disk, what the
server counted per point written) are gated by default by their ratio, each
against a limit of its own from its measured A/A spread. Other server
metrics and server telemetry (what the machine, the server's processes and
its metrics endpoints did per phase group, a counter's total and a gauge's
mean) are gated only when --gate-server NAME names one: it then fails when
the contender's median is larger by more than --fail-above.
Different databases, tsbench builds, workloads (--force) or hosts are named
at the top of every format.

Exit status: 0 passed (every gated row proven within --fail-above, or
better; without --fail-above, no gate); 1 a regression; 2 bad usage or input
(including runs of different workloads or failed runs, unless --force); 4
inconclusive: no regression, but some gated rows are neither proven within
nor shown worse, could not be tested or were not measured (--untested=ratio
judges untestable rows by their ratio instead).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := compareFormats.Parse(format)
			if err != nil {
				return usageError(err)
			}
			if pngDir != "" && f != report.HTML {
				return usageError(fmt.Errorf("--png goes with --format html (the charts are the HTML page's), not --format %s", format))
			}
			lay, err := report.ParseLayout(layout)
			if err != nil {
				return usageError(err)
			}
			opt := compare.Options{Alpha: alpha, MinEffect: minEffect, MinAbsMS: minAbs, Paired: paired, GateServer: gateServer, Confidence: confidence}
			gated := cmd.Flags().Changed("fail-above")
			if err := opt.Check(failAbove, gated, untested); err != nil {
				return usageError(err)
			}
			cmp, warnings, err := buildComparison(stderr, results, args, opt, force)
			if err != nil {
				return err
			}
			if gated {
				// Before the report is written: the verdict is its first line.
				cmp.Decide(failAbove, untested)
			}
			var buf bytes.Buffer
			if err := htmlreport.WriteComparison(&buf, f, lay, toolVersion(), cmp); err != nil {
				return failedError(err)
			}
			if err := writeHTML(stdout, stderr, output, buf.Bytes()); err != nil {
				return err
			}
			writeProse(stderr, f, lay.Tables(cmp))
			if err := writePNGs(stderr, pngDir, charts.ForComparison(cmp).Charts); err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(stderr, w)
			}
			if !gated {
				return nil
			}
			return gateExit(stderr, cmp.Verdict)
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", resultsDir(), resultsHelp)
	formatFlag(cmd, &format, compareFormats, "output format")
	f.StringVar(&layout, "layout", string(report.Rally), "rally or pr")
	f.StringVarP(&output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&pngDir, "png", "", "with --format html: also write every chart as a PNG file into this folder")
	f.Float64Var(&failAbove, "fail-above", 0, "gate: exit 1 when a gated row is significantly worse by more than this percentage (off unless given)")
	f.Float64Var(&minEffect, "min-effect", 5, "percent: significant changes smaller than this are reported as ~")
	f.Float64Var(&minAbs, "min-abs", compare.DefaultMinAbsMS, "latency noise floor in ms: a change of the median smaller than this is ~ (0 judges every change)")
	f.Float64Var(&alpha, "alpha", compare.DefaultAlpha, "family-wise significance level: the chance of any false alarm in a comparison (Holm)")
	f.Float64Var(&confidence, "confidence", compare.DefaultConfidence, "two-sided level of the intervals; a gated row is proven within --fail-above when its interval's worse end is inside it (one-sided (1+level)/2)")
	f.StringVar(&untested, "untested", compare.UntestedFail, "what --fail-above does with gated rows it cannot test: fail (exit 4) or ratio (judge them by their ratio alone)")
	f.StringArrayVar(&gateServer, "gate-server", nil, "with --fail-above: also gate this server metric or telemetry figure (e.g. \"Bytes per point\"), failing when the contender's is larger by more than the threshold (repeatable)")
	f.BoolVar(&paired, "paired", false, "test each contender run against the baseline run of its block, on log-ratios (runs of bench routine; others are tested unpaired, with a warning)")
	f.BoolVar(&force, "force", false, "compare runs of different workloads (their differing keys are listed) or failed runs")
	return cmd
}

// buildComparison resolves the sides' runs in results (refs: the baseline
// first), refuses what does not compare (unless force) and compares them;
// the warnings are in the comparison for every report, and returned for
// stderr.
func buildComparison(stderr io.Writer, results string, refs []string, opt compare.Options, force bool) (*compare.Comparison, []string, error) {
	runs, damaged, err := resolveRuns(stderr, results, refs, false)
	if err != nil {
		return nil, nil, err
	}
	cmp, warnings, err := compare.Build(refs, runs, damaged, opt, force)
	if err != nil {
		return nil, nil, usageError(err)
	}
	return cmp, warnings, nil
}

// gateExit turns the gate's verdict into the exit status: 1 for a
// regression, 4 for an inconclusive gate (rows neither proven within nor
// shown worse, untested or not measured), 0 when every gated row passed;
// the verdict's lines go to stderr in the words of the reports.
func gateExit(stderr io.Writer, v *compare.Verdict) error {
	msg := errors.New(strings.Join(v.Lines(), "\n"))
	switch v.Status {
	case compare.Regression:
		return &exitError{exitRegressed, msg}
	case compare.Undetermined:
		return &exitError{exitUntested, msg}
	}
	fmt.Fprintln(stderr, v.Headline)
	return nil
}

func newList(stdout, stderr io.Writer) *cobra.Command {
	var results, format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.TableFormats.Parse(format)
			if err != nil {
				return usageError(err)
			}
			c, err := openSaved(stderr, results)
			if err != nil {
				return err
			}
			return report.WriteList(stdout, f, c)
		},
	}
	cmd.Flags().StringVar(&results, "results", resultsDir(), resultsHelp)
	formatFlag(cmd, &format, report.TableFormats, "output format")
	return cmd
}

// openSaved opens a --results folder that must hold saved runs (refused,
// saying where runs save their records, when it is not there), its damaged
// files named.
func openSaved(stderr io.Writer, results string) (*catalog.Catalog, error) {
	if _, err := os.Stat(results); err != nil {
		return nil, usageError(fmt.Errorf("--results %s: %w (runs save their records in RESULTS_DIR, ./results unless set)", results, errors.Unwrap(err)))
	}
	c, err := openResults(stderr, results)
	if err != nil {
		return nil, err
	}
	warnDamaged(stderr, c.Damaged)
	return c, nil
}
