package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/changepoint"
	"github.com/tsbench/tsbench/history"
	"github.com/tsbench/tsbench/htmlreport"
	"github.com/tsbench/tsbench/report"
)

// historyFormats are the tables' formats and the HTML page with a trend
// chart of every series that changed.
var historyFormats = report.TableFormats.With("bench history", report.HTML)

func newHistory(stdout, stderr io.Writer) *cobra.Command {
	var (
		results, format string
		output          string
		q               = history.Request{Options: changepoint.Defaults}
		o               = &q.Options
		newest          int
		above           float64
	)
	cmd := &cobra.Command{
		Use:   "history LABEL|PATTERN...",
		Short: "Results over time and where they changed: change points of every metric over the runs of labels",
		Long: `Line up the saved runs of labels in time (a pattern such as 'master-*' names
several) and find where each metric changed level. A label is a point (the
median of its runs); labels come in the order their first runs started.
For each metric, operation and phase group, the change points: between which
two labels, the levels before and after, the change and its p-value, and
whether it is worse or better. The method is Apache Otava's (E-divisive means
over windows of --window points, each change kept at p < --max-p by
Student's t-test between the neighbouring levels, then the weak ones
merged away); the same runs give the same change points.

--order FILE places the labels by a list instead, a line each, oldest first
(git log --reverse --format=%h master > order.txt): a label is placed by the
line that is the label, its part after the last '-' (master-a2b704d), or a
commit that part starts; labels the list does not place are left out, named.

--fail-on-change N exits 1 when a change point among the newest N points
makes a metric worse by more than --fail-above percent: a cron job on master.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := historyFormats.Parse(format)
			if err != nil {
				return usageError(err)
			}
			if err := o.Check(); err != nil {
				return usageError(fmt.Errorf("--window, --max-p or --min-magnitude: %w", err))
			}
			if newest < 0 || !(above >= 0) {
				return usageError(fmt.Errorf("--fail-on-change %d --fail-above %g: a number of points and a percentage, 0 or more", newest, above))
			}
			c, err := openSaved(stderr, results)
			if err != nil {
				return err
			}
			entries, err := c.Select(args)
			if err != nil {
				return usageError(err)
			}
			runs, err := history.FromEntries(entries, q.Metrics, len(q.Server) > 0)
			if err != nil {
				return failedError(err)
			}
			h, warnings, err := q.Make(runs)
			if err != nil {
				return usageError(err)
			}
			for _, w := range warnings {
				fmt.Fprintln(stderr, w)
			}
			title := strings.Join(args, " ")
			var buf bytes.Buffer
			if err := htmlreport.WriteHistory(&buf, f, toolVersion(), h, title); err != nil {
				return failedError(err)
			}
			if err := writeHTML(stdout, stderr, output, buf.Bytes()); err != nil {
				return err
			}
			writeProse(stderr, f, report.HistoryTables(h, title))
			if newest == 0 {
				return nil
			}
			if regs := h.Regressions(newest, above); len(regs) > 0 {
				return &exitError{exitRegressed, fmt.Errorf("change points among the newest %d points, worse by more than %g%%:\n%s", newest, above, strings.Join(regs, "\n"))}
			}
			fmt.Fprintf(stderr, "no change point among the newest %d points is worse by more than %g%%\n", newest, above)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&results, "results", resultsDir(), resultsHelp)
	formatFlag(cmd, &format, historyFormats, "output format")
	fl.StringVarP(&output, "output", "o", "", "write to this file (atomically) instead of stdout")
	fl.StringArrayVar(&q.Metrics, "metric", history.DefaultMetrics, "a metric to follow, as compare names it (repeatable)")
	fl.IntVar(&o.Window, "window", o.Window, "points one E-divisive pass looks at")
	fl.Float64Var(&o.MaxP, "max-p", o.MaxP, "the p-value a change point must be below")
	fl.Float64Var(&o.MinMagnitude, "min-magnitude", o.MinMagnitude, "the relative change a change point must exceed (0.05 is 5%)")
	fl.StringArrayVar(&q.Server, "server", nil, "a server figure to follow too, as compare's Server tables name it (\"Bytes per point\", \"CPU\"; \"*\" for all; repeatable): shown, never gated")
	fl.StringVar(&q.OrderFile, "order", "", "order the labels by this list (a label or commit a line, oldest first) instead of by time")
	fl.IntVar(&newest, "fail-on-change", 0, "exit 1 when a change point among the newest N points is a regression beyond --fail-above (off unless given)")
	fl.Float64Var(&above, "fail-above", 0, "with --fail-on-change: the percentage a regression must exceed")
	return cmd
}
