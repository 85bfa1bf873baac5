package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/dataset"
	"github.com/tsbench/tsbench/pipeline"
)

func newGenerate(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var cfgPath, out, format, queryFile string
	var sets []string
	cmd := &cobra.Command{
		Use:   "generate -c FILE [--out DIR]",
		Short: "Write a config's data to files, for runs that replay them (FILE_PATH)",
		Long: `Write the data a config's runs send, batch for batch and in their order (out-of-order
rows included), to files in iot-benchmark's data-set layout: DIR/schema.txt, DIR/info.txt,
and DIR/<device>/BigBatch_0.csv. A run with FILE_PATH=DIR then sends these files instead of
generating: generation stays out of the measured load, and every build or tool loads the
same bytes. The files are the points a run generates: a replay and a generated run compare.
DIR is --out, or FILE_PATH's value; it must not hold a data set already.

--format track writes, for a document database (Elasticsearch, OpenSearch),
a Rally track instead: DIR/track.json, an index body and a documents file
(a JSON document a line, as the adapter sends them) a group's index, the
bulk task BATCH_SIZE_PER_WRITE documents a bulk and DATA_CLIENT_NUMBER
clients. A run with TRACK_PATH=DIR sends those documents, and so does
esrally race --track-path=DIR: two tools, the same bytes.

--queries FILE writes the queries the config's runs send, as JSON lines:
each client's, in its order, with the phase, variant, client, step, the
family, devices, sensors, time range, value bound, aggregate, window and
limit (and a suite's own request, filled). The query rounds send the same
queries every round. Given alone (no --out, no FILE_PATH), only the
queries are written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfgPath == "" {
				return usageError(errors.New("give a config file with -c, e.g. bench generate -c config.properties --out data"))
			}
			// The plan of the files: FILE_PATH names where they go, not
			// data to read.
			if format != "csv" && format != "track" {
				return usageError(fmt.Errorf("--format %s: csv (iot-benchmark's data-set layout) or track (a Rally track, for Elasticsearch and OpenSearch)", format))
			}
			l, drv, plan, err := prepare(cfgPath, append(append([]string(nil), sets...), "FILE_PATH="))
			if err != nil {
				return err
			}
			printNotes(l, stderr)
			c := l.Config
			if c.TrackPath != "" {
				return usageError(&config.Error{Key: "TRACK_PATH", Value: c.TrackPath, Msg: "names documents of their own; bench generate writes the generated rows", Valid: "empty"})
			}
			if out == "" {
				fl, err := config.Load(config.Source{Path: cfgPath, Sets: sets, Catalog: registry()})
				if err != nil {
					return usageError(err)
				}
				out = fl.Config.FilePath
				if err := pipeline.CheckPath(out, true); out != "" && err != nil {
					return usageError(&config.Error{Key: "FILE_PATH", Value: out, Msg: err.Error(), Valid: "a folder, or a path where one can be made"})
				}
			}
			if queryFile != "" {
				if err := plan.WriteDraws(queryFile); err != nil {
					var ce *config.Error
					if errors.As(err, &ce) {
						return usageError(err)
					}
					return failedError(fmt.Errorf("write the queries to %s: %w", queryFile, err))
				}
				fmt.Fprintf(stdout, "wrote the queries to %s\n", queryFile)
				if out == "" {
					return nil
				}
			}
			if out == "" {
				return usageError(errors.New("give the folder to write with --out DIR (or FILE_PATH in the config)"))
			}
			if format == "track" && drv.Track == nil {
				return usageError(fmt.Errorf("--format track: %s stores rows, not documents; a track is for Elasticsearch and OpenSearch (--format csv writes rows)", drv.Name))
			}
			if _, err := os.Stat(filepath.Join(out, dataset.SchemaFile)); err == nil {
				return usageError(fmt.Errorf("--out %s holds a data set already: give an empty or new folder", out))
			}
			total := plan.WrittenPoints()
			if total == 0 {
				return usageError(&config.Error{Key: "OPERATION_PROPORTION", Value: fmt.Sprint(c.OperationProportion), Msg: "gives the writes no share: the config writes no data to generate", Valid: "a write weight above 0"})
			}
			var info strings.Builder
			fmt.Fprintf(&info, "tsbench %s generate\n%s%s\n", toolVersion(), dataset.FingerprintLine, config.Fingerprint(c.Values(), c.WorkloadKeys()))
			c.WriteDump(&info)
			start, next := time.Now(), 0.1
			progress := func(unit string, total int64) func(int64) {
				return func(n int64) {
					if f := float64(n) / float64(total); f >= next && n < total {
						fmt.Fprintf(stderr, "generate: %d of %d %s (%.0f%%)\n", n, total, unit, 100*f)
						next = f + 0.1
					}
				}
			}
			if format == "track" {
				rows := plan.RowsPerDevice * int64(plan.Schema.WrittenDevices())
				desc := fmt.Sprintf("tsbench %s generate: %d documents of %s's workload (%s%s)", toolVersion(), rows, cfgPath, dataset.FingerprintLine, config.Fingerprint(c.Values(), c.WorkloadKeys()))
				err = drv.Track(ctx, out, adapters.TrackParams{Config: c, Schema: plan.Schema, Generator: plan.Generator, Description: desc, Done: progress("documents", rows)})
				if err != nil {
					if ctx.Err() != nil {
						return failedError(fmt.Errorf("interrupted: %s holds no track", out))
					}
					return failedError(fmt.Errorf("write the track to %s: %w", out, err))
				}
				fmt.Fprintf(stdout, "wrote %d documents of %d devices to %s in %.1f s, a Rally track; replay them with TRACK_PATH=%s (or esrally race --track-path=%s)\n",
					rows, plan.Schema.WrittenDevices(), out, time.Since(start).Seconds(), out, out)
				return nil
			}
			err = dataset.Write(ctx, out, plan.Schema, plan.Generator, info.String(), progress("points", total))
			if err != nil {
				if ctx.Err() != nil {
					return failedError(fmt.Errorf("interrupted: %s holds no data set", out))
				}
				return failedError(fmt.Errorf("write the data set to %s: %w", out, err))
			}
			fmt.Fprintf(stdout, "wrote %d points of %d devices to %s in %.1f s; replay them with FILE_PATH=%s\n",
				total, plan.Schema.WrittenDevices(), out, time.Since(start).Seconds(), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&cfgPath, "config", "c", "", "config.properties file whose data to write")
	cmd.Flags().StringVarP(&out, "out", "o", "", "folder to write the data set to (default: FILE_PATH)")
	cmd.Flags().StringVar(&queryFile, "queries", "", "also write the queries the runs send to this file, a JSON line each")
	cmd.Flags().StringVar(&format, "format", "csv", "csv (iot-benchmark's data-set layout, FILE_PATH replays it) or track (a Rally track of a document database's documents, TRACK_PATH replays it)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a key: --set KEY=VALUE (repeatable)")
	return cmd
}
