package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/pipeline"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
)

func newShow(stdout, stderr io.Writer) *cobra.Command {
	var format, results string
	cmd := &cobra.Command{
		Use:   "show RUN...",
		Short: "Print saved runs again (by id, id prefix, label or record file)",
		Long: `Print saved runs again: each run's matrices, as bench run printed them. A
RUN is a run id, an id prefix, a label (every run of that label) or a record
file. With --format json one run is its record, several are an array of them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.TableFormats.Parse(format)
			if err != nil {
				return usageError(err)
			}
			sides, _, err := resolveRuns(stderr, results, args, true)
			if err != nil {
				return err
			}
			if err := report.WriteRuns(stdout, stderr, f, slices.Concat(sides...)); err != nil {
				return failedError(err)
			}
			return nil
		},
	}
	formatFlag(cmd, &format, report.TableFormats, "output format")
	cmd.Flags().StringVar(&results, "results", resultsDir(), resultsHelp)
	return cmd
}

func newVerify(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	t := pipeline.Task{Tool: toolVersion(), Stdout: stdout, Log: stderr}
	cmd := &cobra.Command{
		Use:   "verify -c FILE",
		Short: "Count the points the database holds per device and compare them with what the config writes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if t.Config == "" {
				return usageError(errors.New("give a config file with -c, e.g. bench verify -c config.properties"))
			}
			return runTask(&t, func(t pipeline.Task) error { return t.Verify(ctx) })
		},
	}
	cmd.Flags().StringVarP(&t.Config, "config", "c", "", "config.properties file whose data to check")
	cmd.Flags().StringArrayVar(&t.Sets, "set", nil, "override a key: --set KEY=VALUE (repeatable)")
	return cmd
}

func newVersion(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the databases this build supports",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(stdout, "tsbench %s\n", toolVersion())
			fmt.Fprintln(stdout, "DB_SWITCH values:")
			for _, d := range registry() {
				names := append([]string{d.Name}, d.Aliases...)
				fmt.Fprintf(stdout, "  %-20s %s\n", strings.Join(names, ", "), d.Description)
				if d.Wire != "" {
					fmt.Fprintf(stdout, "  %-20s wire: %s\n", "", d.Wire)
				}
			}
			return nil
		},
	}
}

// resolveRuns finds the runs of each argument (a side) by the results
// folder's index (catalog.Sides). The folder's damaged files are named when
// an argument names nothing, and otherwise with warn (compare reports them
// itself).
func resolveRuns(stderr io.Writer, results string, refs []string, warn bool) ([][]*record.Record, []error, error) {
	c, err := openResults(stderr, results)
	if err != nil {
		return nil, nil, err
	}
	runs, damaged, notes, err := c.Sides(refs)
	if err != nil || warn {
		warnDamaged(stderr, damaged)
	}
	if err != nil {
		return nil, damaged, usageError(err)
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	return runs, damaged, nil
}

// writeProse writes to stderr, for a CSV, what its one table leaves out:
// the lines around the tables (a comparison's verdict first).
func writeProse(stderr io.Writer, f report.Format, tables []report.Table) {
	if f != report.CSV {
		return
	}
	for _, l := range report.Prose(tables) {
		fmt.Fprintln(stderr, l)
	}
}

// openResults reads the results folder's index (brought up to date with
// the records), saying when it could not be written again.
func openResults(stderr io.Writer, results string) (*catalog.Catalog, error) {
	c, err := catalog.Open(results)
	if err != nil {
		return nil, failedError(err)
	}
	warnIndex(stderr, c.Warning)
	return c, nil
}

// warnIndex says that the results index could not be written: the runs
// are all there, a later reader adds what is missing.
func warnIndex(stderr io.Writer, err error) {
	if err != nil {
		fmt.Fprintf(stderr, "warning: %v\n", err)
	}
}

// warnDamaged names the files of the results folder that are not readable
// records: never dropped in silence.
func warnDamaged(stderr io.Writer, damaged []error) {
	for _, d := range damaged {
		fmt.Fprintf(stderr, "warning: %v; it is left out\n", d)
	}
}

const resultsHelp = "results folder (RESULTS_DIR of the runs; TSBENCH_RESULTS_DIR sets it as it does for runs)"

// resultsDir is the default of --results: the folder runs write to when
// nothing else is said, which TSBENCH_RESULTS_DIR changes for runs too.
func resultsDir() string {
	if d := os.Getenv("TSBENCH_RESULTS_DIR"); d != "" {
		return d
	}
	return "results"
}
