package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/pipeline"
)

func newGenerate(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	g := pipeline.Generate{Tool: toolVersion(), Stdout: stdout, Log: stderr}
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
			reg, err := sabotaged(registry())
			if err != nil {
				return usageError(err)
			}
			g.Registry = reg
			return exitOf(g.Do(ctx))
		},
	}
	cmd.Flags().StringVarP(&g.Config, "config", "c", "", "config.properties file whose data to write")
	cmd.Flags().StringVarP(&g.Out, "out", "o", "", "folder to write the data set to (default: FILE_PATH)")
	cmd.Flags().StringVar(&g.Queries, "queries", "", "also write the queries the runs send to this file, a JSON line each")
	cmd.Flags().StringVar(&g.Format, "format", "csv", "csv (iot-benchmark's data-set layout, FILE_PATH replays it) or track (a Rally track of a document database's documents, TRACK_PATH replays it)")
	cmd.Flags().StringArrayVar(&g.Sets, "set", nil, "override a key: --set KEY=VALUE (repeatable)")
	return cmd
}
