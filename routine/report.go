package routine

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tsbench/tsbench/charts"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/htmlreport"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
)

// Report is what a routine's report is made of: its comparison, decided,
// and what the routine knows of its own runs.
type Report struct {
	// Out is the routine's folder; Labels its sides, the baseline first.
	Out    string
	Labels []string
	// Runs is the runs a side; Paired says the rows were tested in pairs.
	Runs   int
	Paired bool
	// Tool is the tsbench build's version, on the HTML page.
	Tool       string
	Comparison *compare.Comparison
	// Warnings are the comparison's, for the summary.
	Warnings []string
	// Provisioning is the time the servers took to be made ready; Timing
	// where the routine's own time went.
	Provisioning time.Duration
	Timing       Timing
	// Unchecked says why CHECK_ANSWERS is off, if it is.
	Unchecked string
	// ClearCold says the runs' cold rounds came without a restart.
	ClearCold bool
	// Duet says each block's runs were made at once.
	Duet bool
	// Resumed is the runs an earlier invocation made (--resume).
	Resumed int
	// RestartEvery is --restart-every: the kept-running servers restarted
	// every so many blocks.
	RestartEvery int
	// OneServer says each side's runs met one server process, kept running
	// and never restarted.
	OneServer bool
}

// Write writes the report into Out: report.md (the PR layout), report.html
// with its charts (and their PNGs in charts/), report.json, report.txt
// (Rally's layout) and summary.txt, each starting with the same verdict,
// and returns the summary.
func (r Report) Write() ([]byte, error) {
	cmp, out := r.Comparison, r.Out
	md, html, txt, js, sumPath := filepath.Join(out, "report.md"), filepath.Join(out, "report.html"), filepath.Join(out, "report.txt"), filepath.Join(out, "report.json"), filepath.Join(out, "summary.txt")
	pr := report.PR.Tables(cmp)
	for _, w := range []struct {
		path  string
		write func(io.Writer) error
	}{
		{md, func(w io.Writer) error { return report.WriteTables(w, report.Markdown, pr) }},
		{html, func(w io.Writer) error { return htmlreport.Comparison(w, r.Tool, cmp, pr) }},
		{js, func(w io.Writer) error { return report.WriteJSON(w, report.ComparisonJSON(cmp)) }},
		{txt, func(w io.Writer) error { return report.WriteTables(w, report.Text, report.Rally.Tables(cmp)) }},
	} {
		var buf bytes.Buffer
		if err := w.write(&buf); err != nil {
			return nil, fmt.Errorf("write %s: %w", w.path, err)
		}
		if err := record.WriteFileAtomic(w.path, buf.Bytes()); err != nil {
			return nil, fmt.Errorf("write %s: %w", w.path, err)
		}
	}
	if _, err := htmlreport.WritePNGs(filepath.Join(out, "charts"), charts.ForComparison(cmp).Charts); err != nil {
		return nil, fmt.Errorf("--png %s: %w", filepath.Join(out, "charts"), err)
	}
	// The summary: the verdict first, then the servers, where the time
	// went, what else the runs say, the files; on stdout and in summary.txt.
	var sum bytes.Buffer
	design := map[bool]string{false: "Welch's test, unpaired", true: "tested in pairs within blocks"}[r.Paired]
	lines := report.Summary(cmp)
	fmt.Fprintln(&sum, lines[0])
	fmt.Fprintf(&sum, "Routine: %s vs %s, %d runs a side in balanced blocks (%s)\n", r.Labels[0], strings.Join(r.Labels[1:], ", "), r.Runs, design)
	if cmp.Sequential != "" {
		fmt.Fprintln(&sum, cmp.Sequential)
	}
	if r.Resumed > 0 {
		fmt.Fprintf(&sum, "Resumed (--resume): runs 1 to %d were made by an earlier invocation, in the same order; the wall time below is this invocation's\n", r.Resumed)
	}
	if r.Duet {
		fmt.Fprintln(&sum, DuetWords)
	}
	if r.ClearCold {
		fmt.Fprintln(&sum, ClearColdWords)
	}
	// A routine that stopped before its first restart met one process a
	// side, and compare tested its runs one by one.
	processes := 0
	if r.RestartEvery > 0 {
		processes = (r.Runs + r.RestartEvery - 1) / r.RestartEvery
	}
	switch {
	case processes > 1:
		fmt.Fprintf(&sum, "Servers restarted every %d blocks (--restart-every): each side's runs measured %d server processes, and a row's test and interval take each process's mean as one sample, so that how processes differ is inside the intervals instead of leaning the routine\n", r.RestartEvery, processes)
	case processes == 1:
		fmt.Fprintf(&sum, "Servers restarted every %d blocks (--restart-every), but the routine ended after %d runs a side, before the first restart\n", r.RestartEvery, r.Runs)
	}
	if r.ClearCold && !r.Duet {
		fmt.Fprintln(&sum, OneProcessWords)
	} else if r.OneServer || processes == 1 && r.Resumed == 0 {
		fmt.Fprintln(&sum, OneServerWords)
	}
	for _, l := range slices.Concat(lines[1:], cmp.Lead()) {
		fmt.Fprintln(&sum, l)
	}
	results := Results(out)
	recs, _ := record.Store{Dir: results}.List()
	st := Summarize(recs)
	tm := r.Timing
	warm := ""
	if tm.Warmup > 0 {
		warm = fmt.Sprintf(", the warm-up runs %s (not compared)", tm.Warmup.Round(time.Second))
	}
	if r.Duet {
		warm += "; the runs' own figures are summed over the sides, which ran at once"
	}
	fmt.Fprintf(&sum, "Wall time %s: making the servers ready %s, starting/stopping/wiping them around the runs %s, the runs %s (measured phases %s, lifecycle steps %s, setup and verify %s)%s\n",
		(r.Provisioning + tm.Total).Round(time.Second), r.Provisioning.Round(time.Second), tm.Servers.Round(time.Second), tm.Runs.Round(time.Second),
		st.Measured.Round(time.Second), st.Lifecycle.Round(time.Second), st.Setup.Round(time.Second), warm)
	fmt.Fprintln(&sum, st.AnswersLine(r.Unchecked))
	for _, w := range r.Warnings {
		fmt.Fprintln(&sum, w)
	}
	fmt.Fprintf(&sum, "Report: %s (Markdown, PR layout), %s with charts in %s, %s, %s, this summary in %s; records in %s\n", md, html, filepath.Join(out, "charts"), txt, js, sumPath, results)
	if err := record.WriteFileAtomic(sumPath, sum.Bytes()); err != nil {
		return nil, fmt.Errorf("write %s: %w", sumPath, err)
	}
	return sum.Bytes(), nil
}
