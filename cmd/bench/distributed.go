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

// startAtEnv gives --start-at its value where flags are awkward to vary
// (a Kubernetes manifest sets it for every pod).
const startAtEnv = "TSBENCH_START_AT"

func newMerge(stdout, stderr io.Writer) *cobra.Command {
	var results, label, format string
	var force bool
	cmd := &cobra.Command{
		Use:   "merge RUN... [--label L]",
		Short: "Merge the records of a distributed run's instances into one record",
		Long: `Merge the records of the instances of one distributed run (BENCHMARK_CLUSTER=true,
BENCHMARK_INSTANCES=n, each with its BENCHMARK_INDEX) into one record, saved in
the results folder like any run: show, compare and report read it.

Counts and points are summed, latency histograms merged exactly (the merged
percentiles are those of every operation, not averages of percentiles),
per-second throughput windows aligned on wall-clock time (to the second) and
summed. Each argument is a run id, id prefix, label or record file; a label
the instances share (bench run --label) gives them all.

Refused: runs that are not instances, instances of different workloads,
tsbench builds or databases, the same instance twice, and missing instances
(--force merges what there is; the record is then incomplete and names them).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := report.TableFormats.Parse(format)
			if err != nil {
				return usageError(err)
			}
			store := record.Store{Dir: results}
			sides, _, err := resolveRuns(stderr, results, args, true)
			if err != nil {
				return err
			}
			saved, _ := store.List()
			m, err := record.Merge(slices.Concat(sides...), record.MergeOptions{Label: label, Force: force, Existing: saved})
			if err != nil {
				return usageError(err)
			}
			path, indexErr, err := catalog.Save(store, m)
			if err != nil {
				return failedError(err)
			}
			warnIndex(stderr, indexErr)
			if err := report.WriteRun(stdout, f, m); err != nil {
				return failedError(err)
			}
			writeProse(stderr, f, report.RunTables(m))
			fmt.Fprintf(stderr, "merged %d instances into run %s (label %s): %s\n", len(m.Instance.Merged), m.ID, m.Label, path)
			if m.Status != record.StatusComplete {
				return failedError(fmt.Errorf("the merged run is %s: %s", m.Status, m.Error))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", resultsDir(), resultsHelp)
	f.StringVar(&label, "label", "", "label of the merged record (default: the instances' label with -merged)")
	formatFlag(cmd, &format, report.TableFormats, "output format of the merged run's tables")
	f.BoolVar(&force, "force", false, "merge although instances are missing (the record is marked incomplete)")
	return cmd
}

func newClean(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	t := pipeline.Task{Tool: toolVersion(), Stdout: stdout, Log: stderr}
	cmd := &cobra.Command{
		Use:   "clean -c FILE",
		Short: "Remove the benchmark's data from the database (what IS_DELETE_DATA does before a run)",
		Long: `Remove the data a config's runs write, as a run does first with IS_DELETE_DATA=true,
then pause INIT_WAIT_TIME as a run does after its cleanup.
The instances of a distributed run (BENCHMARK_INSTANCES > 1) do not clean up, since
each would delete the others' data: run bench clean once before starting them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if t.Config == "" {
				return usageError(errors.New("give a config file with -c, e.g. bench clean -c config.properties"))
			}
			return runTask(&t, func(t pipeline.Task) error { return t.Clean(ctx) })
		},
	}
	cmd.Flags().StringVarP(&t.Config, "config", "c", "", "config.properties file whose data to remove")
	cmd.Flags().StringArrayVar(&t.Sets, "set", nil, "override a key: --set KEY=VALUE (repeatable)")
	return cmd
}

// startAtFlag is --start-at's default: TSBENCH_START_AT.
func startAtFlag() string { return strings.TrimSpace(os.Getenv(startAtEnv)) }
