package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/report"
)

func newCompare(stdout, stderr io.Writer) *cobra.Command {
	var (
		results, format, layout, output string
		failAbove, minEffect, minAbs    float64
		alpha                           float64
		force                           bool
	)
	cmd := &cobra.Command{
		Use:   "compare BASELINE CONTENDER...",
		Short: "Compare runs: ratio tables with verdicts that tell change from noise",
		Long: `Compare a baseline with one or more contenders. Each argument is a run id (or
id prefix), a label or a record file; a label that several runs share (bench run
--repeat N) makes a side with N runs, which lets compare test whether a change is
real (Mann-Whitney U, as benchstat does).

Layouts: rally (Metric, Operation, Baseline, Contender, Diff, Unit, Diff %, Ratio,
Verdict) and pr (one row per operation or query variant; per round baseline,
contender and contender/baseline, like the IoTDB weekly regression report).

Exit status: 1 when --fail-above finds a significant regression, 2 bad usage or
input (including runs of different workloads, unless --force).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := report.CheckFormat(format); err != nil {
				return usageError(err)
			}
			if layout != "rally" && layout != "pr" {
				return usageError(fmt.Errorf("--layout=%s is not a layout (valid: rally, pr)", layout))
			}
			if alpha <= 0 || alpha >= 1 {
				return usageError(fmt.Errorf("--alpha=%g must be between 0 and 1", alpha))
			}
			store := report.Store{Dir: results}
			var sides []report.Side
			for _, ref := range args {
				recs, err := store.Find(ref)
				if err != nil {
					return usageError(err)
				}
				label := ref
				if len(recs) == 1 && recs[0].Label != "" && !strings.HasSuffix(ref, ".json") && recs[0].Label != ref {
					label = recs[0].Label
				}
				sides = append(sides, report.Side{Label: label, Runs: recs})
			}
			var warnings []string
			base := sides[0].Runs[0]
			var mismatched []string
			for _, s := range sides {
				for _, r := range s.Runs {
					if r.Fingerprint != base.Fingerprint {
						diff := report.FingerprintDiff(base, r)
						mismatched = append(mismatched, fmt.Sprintf("run %s (%s) has workload %s, the baseline %s: %s", r.ID, s.Label, r.Fingerprint, base.Fingerprint, strings.Join(diff, "; ")))
					}
					if r.Status != report.StatusComplete {
						warnings = append(warnings, fmt.Sprintf("warning: run %s (%s) is %s: %s", r.ID, s.Label, r.Status, r.Error))
					}
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
			cmp.Warnings = warnings
			var buf bytes.Buffer
			if format == "json" {
				if err := report.WriteJSON(&buf, cmp.JSON()); err != nil {
					return failedError(err)
				}
			} else {
				tables := cmp.RallyTables()
				if layout == "pr" {
					tables = cmp.PRTables()
				}
				if err := report.WriteTables(&buf, format, tables); err != nil {
					return failedError(err)
				}
			}
			if output != "" {
				if err := report.WriteFileAtomic(output, buf.Bytes()); err != nil {
					return failedError(fmt.Errorf("write --output %s: %w", output, err))
				}
			} else {
				stdout.Write(buf.Bytes())
			}
			for _, w := range warnings {
				fmt.Fprintln(stderr, w)
			}
			if failAbove >= 0 {
				if regs := cmp.Regressions(failAbove); len(regs) > 0 {
					return &exitError{exitRegressed, errors.New("regressions beyond --fail-above " + fmt.Sprint(failAbove) + "%:\n" + strings.Join(regs, "\n"))}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", "results", "results folder (RESULTS_DIR of the runs)")
	f.StringVar(&format, "format", "text", "output format: text, markdown, csv or json")
	f.StringVar(&layout, "layout", "rally", "rally or pr")
	f.StringVar(&output, "output", "", "write to this file (atomically) instead of stdout")
	f.Float64Var(&failAbove, "fail-above", -1, "exit 1 when a significant worse-direction change exceeds this percentage")
	f.Float64Var(&minEffect, "min-effect", 5, "percent: significant changes smaller than this are reported as ~")
	f.Float64Var(&minAbs, "min-abs", 0, "latency noise floor in ms: rows where both sides are below it are marked, not judged")
	f.Float64Var(&alpha, "alpha", 0.05, "significance level of the test")
	f.BoolVar(&force, "force", false, "compare runs of different workloads (their differing keys are listed)")
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
			recs, errs := report.Store{Dir: results}.List()
			for _, e := range errs {
				fmt.Fprintf(stderr, "warning: %v\n", e)
			}
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
	cmd.Flags().StringVar(&results, "results", "results", "results folder (RESULTS_DIR of the runs)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, markdown, csv or json")
	return cmd
}
