package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/charts"
	"github.com/tsbench/tsbench/htmlreport"
	"github.com/tsbench/tsbench/report"
)

func newCompare(stdout, stderr io.Writer) *cobra.Command {
	var (
		results, format, layout, output string
		pngDir                          string
		failAbove, minEffect, minAbs    float64
		alpha                           float64
		force                           bool
		untested                        string
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

The gate (--fail-above N) fails on a row judged worse whose per-run values
show it worse by more than N percent (a one-sided Welch test against a change
of exactly N%, Holm-adjusted too); a row measured past N but not shown to
exceed it is noted, not failed.
Verdicts: Welch's t-test on the per-run values of each side; the p-values of all
tested rows of a contender are adjusted by Holm–Bonferroni, so the chance of any
false alarm in a comparison stays below --alpha; a change smaller than
--min-effect percent, or a latency change smaller than --min-abs ms, is "~".
` + wrap(report.GateRules, 80) + `
A gated row that cannot be tested (fewer runs, no successful operation on a
side, every operation failed on both) is listed, never passed in silence.
Different databases, tsbench builds, workloads (--force) or hosts are named
at the top of every format.

Exit status: 0 no regression; 1 --fail-above found a regression; 2 bad usage or
input (including runs of different workloads or failed runs, unless --force); 4 --fail-above
found no regression but could not test some gated rows (--untested=ratio judges
them by their ratio instead).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckFormat(format); err != nil && format != "html" {
				return usageError(fmt.Errorf("--format=%s is not a format bench compare writes (valid: %s, html)", format, strings.Join(report.Formats, ", ")))
			}
			if pngDir != "" && format != "html" {
				return usageError(fmt.Errorf("--png goes with --format html (the charts are the HTML page's), not --format %s", format))
			}
			if layout != "rally" && layout != "pr" {
				return usageError(fmt.Errorf("--layout=%s is not a layout (valid: rally, pr)", layout))
			}
			if err := checkGateFlags(cmd, alpha, failAbove, minEffect, minAbs, untested); err != nil {
				return usageError(err)
			}
			store := report.Store{Dir: results}
			var sides []report.Side
			var damaged []error
			for _, ref := range args {
				recs, bad, err := store.Find(ref)
				damaged = bad
				if err != nil {
					warnDamaged(stderr, damaged)
					return usageError(err)
				}
				label := ref
				if len(recs) == 1 && recs[0].Label != "" && !strings.HasSuffix(ref, ".json") && recs[0].Label != ref {
					label = recs[0].Label
				}
				sides = append(sides, report.Side{Label: label, Runs: recs})
			}
			var warnings []string
			for _, d := range damaged {
				// In the report too: a damaged record may be a run of one side.
				warnings = append(warnings, fmt.Sprintf("warning: %v; it is left out, so a side may have one run less", d))
			}
			base := sides[0].Runs[0]
			var mismatched, failed []string
			for _, s := range sides {
				for _, r := range s.Runs {
					if r.Fingerprint != base.Fingerprint {
						diff := report.FingerprintDiff(base, r)
						mismatched = append(mismatched, fmt.Sprintf("run %s (%s) has workload %s, the baseline %s: %s", r.ID, s.Label, r.Fingerprint, base.Fingerprint, strings.Join(diff, "; ")))
					}
					switch r.Status {
					case report.StatusComplete:
					case report.StatusFailed:
						failed = append(failed, fmt.Sprintf("run %s (%s) failed: %s", r.ID, s.Label, r.Error))
					default:
						warnings = append(warnings, fmt.Sprintf("warning: run %s (%s) is %s: %s", r.ID, s.Label, r.Status, r.Error))
					}
				}
			}
			if len(failed) > 0 {
				if !force {
					return usageError(fmt.Errorf("failed runs measure failures, not the database (--force compares them anyway):\n%s", strings.Join(failed, "\n")))
				}
				for _, f := range failed {
					warnings = append(warnings, "warning: "+f)
				}
			}
			if len(mismatched) > 0 {
				if !force {
					return usageError(fmt.Errorf("the runs did not do the same work, so their numbers do not compare (--force compares them anyway):\n%s", strings.Join(mismatched, "\n")))
				}
				for _, m := range mismatched {
					warnings = append(warnings, "warning: "+m)
				}
			}
			cmp := report.Compare(sides[0], sides[1:], report.CompareOptions{Alpha: alpha, MinEffect: minEffect, MinAbsMS: minAbs})
			for _, d := range cmp.Differences() {
				warnings = append(warnings, "warning: "+d)
			}
			cmp.Warnings = warnings
			var buf bytes.Buffer
			switch format {
			case "json":
				if err := report.WriteJSON(&buf, cmp.JSON()); err != nil {
					return failedError(err)
				}
			case "html":
				tables := cmp.RallyTables()
				if layout == "pr" {
					tables = cmp.PRTables()
				}
				if err := htmlreport.Comparison(&buf, toolVersion(), cmp, tables); err != nil {
					return failedError(err)
				}
			default:
				tables := cmp.RallyTables()
				if layout == "pr" {
					tables = cmp.PRTables()
				}
				if err := report.WriteTables(&buf, format, tables); err != nil {
					return failedError(err)
				}
			}
			if err := writeHTML(stdout, stderr, output, buf.Bytes()); err != nil {
				return err
			}
			if err := writePNGs(stderr, pngDir, charts.ForComparison(cmp).Charts); err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(stderr, w)
			}
			if !cmd.Flags().Changed("fail-above") {
				return nil
			}
			g := cmp.Gate(failAbove, untested)
			for _, u := range g.Unproven {
				fmt.Fprintf(stderr, "note: %s\n", u)
			}
			var msg []string
			if len(g.Untested) > 0 {
				msg = append(msg, fmt.Sprintf("%d gated rows could not be tested (--untested=ratio judges them by their ratio):\n%s", len(g.Untested), strings.Join(g.Untested, "\n")))
			}
			if len(g.Regressions) > 0 {
				msg = append([]string{fmt.Sprintf("regressions beyond --fail-above %g%%:\n%s", failAbove, strings.Join(g.Regressions, "\n"))}, msg...)
				return &exitError{exitRegressed, errors.New(strings.Join(msg, "\n"))}
			}
			if len(msg) > 0 {
				return &exitError{exitUntested, errors.New(strings.Join(msg, "\n"))}
			}
			fmt.Fprintf(stderr, "gate passed: no gated row is worse by more than %g%%\n", failAbove)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", resultsDir(), resultsHelp)
	f.StringVar(&format, "format", "text", "output format: text, markdown, csv, json or html (one self-contained page with charts)")
	f.StringVar(&layout, "layout", "rally", "rally or pr")
	f.StringVarP(&output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&pngDir, "png", "", "with --format html: also write every chart as a PNG file into this folder")
	f.Float64Var(&failAbove, "fail-above", 0, "gate: exit 1 when a gated row is significantly worse by more than this percentage (off unless given)")
	f.Float64Var(&minEffect, "min-effect", 5, "percent: significant changes smaller than this are reported as ~")
	f.Float64Var(&minAbs, "min-abs", report.DefaultMinAbsMS, "latency noise floor in ms: a change of the median smaller than this is ~ (0 judges every change)")
	f.Float64Var(&alpha, "alpha", report.DefaultAlpha, "family-wise significance level: the chance of any false alarm in a comparison (Holm)")
	f.StringVar(&untested, "untested", report.UntestedFail, "what --fail-above does with gated rows it cannot test: fail (exit 4) or ratio (judge them by their ratio alone)")
	f.BoolVar(&force, "force", false, "compare runs of different workloads (their differing keys are listed) or failed runs")
	return cmd
}

func newList(stdout, stderr io.Writer) *cobra.Command {
	var results, format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckFormat(format); err != nil {
				return usageError(err)
			}
			recs, damaged := report.Store{Dir: results}.List()
			warnDamaged(stderr, damaged)
			t := report.Table{Title: fmt.Sprintf("Runs in %s", results), Header: []string{"ID", "Started (UTC)", "Label", "DB", "Version", "Workload", "Status"}}
			for _, r := range recs {
				t.Rows = append(t.Rows, []string{r.ID, r.StartedAt.UTC().Format("2006-01-02 15:04:05"), r.Label, r.Target.DB, r.Target.Version, r.Fingerprint, r.Status})
			}
			if format == "json" {
				return report.WriteJSON(stdout, t)
			}
			return report.WriteTables(stdout, format, []report.Table{t})
		},
	}
	cmd.Flags().StringVar(&results, "results", resultsDir(), resultsHelp)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, markdown, csv or json")
	return cmd
}

// checkGateFlags refuses values that would make the gate's verdicts mean
// something else than the user asked for.
func checkGateFlags(cmd *cobra.Command, alpha, failAbove, minEffect, minAbs float64, untested string) error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	switch {
	case bad(alpha) || alpha <= 0 || alpha >= 1:
		return fmt.Errorf("--alpha=%g: a significance level is between 0 and 1, exclusive (e.g. 0.01)", alpha)
	case cmd.Flags().Changed("fail-above") && (bad(failAbove) || failAbove < 0):
		return fmt.Errorf("--fail-above=%g: a percentage of 0 or more (e.g. 10)", failAbove)
	case bad(minEffect) || minEffect < 0:
		return fmt.Errorf("--min-effect=%g: a percentage of 0 or more (e.g. 5)", minEffect)
	case bad(minAbs) || minAbs < 0:
		return fmt.Errorf("--min-abs=%g: milliseconds, 0 or more (0 judges every change)", minAbs)
	case !slices.Contains(report.UntestedRules, untested):
		return fmt.Errorf("--untested=%s is not a rule (valid: %s)", untested, strings.Join(report.UntestedRules, ", "))
	}
	return nil
}

// wrap breaks text into lines of at most width columns at spaces, for help
// texts that reuse a sentence of the reports.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}
