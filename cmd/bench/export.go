package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/export"
)

func newExport(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var results, to, output string
	cmd := &cobra.Command{
		Use:   "export RUN|LABEL|PATTERN... --to DEST",
		Short: "Write saved runs as CSV or OpenMetrics, or into IoTDB or Elasticsearch for Grafana and Kibana",
		Long: `Export the values of saved runs (every metric compare reads, of every
operation in every phase), read from the results index:

  --to csv            the long format: a row per run, phase, operation and metric
  --to openmetrics    OpenMetrics text: a gauge family per metric, a sample per
                      run, phase and operation, at the run's start
  --to iotdb://[USER:PASSWORD@]HOST:PORT[/root.PATH]
                      a point per run on PATH.DB.PHASE.OPERATION, a measurement
                      per metric (default path ` + export.DefaultIoTDBPath + `, user root/root)
  --to http[s]://[USER:PASSWORD@]HOST:PORT[/INDEX]
                      Elasticsearch or OpenSearch: a document per run, phase and
                      operation (default index ` + export.DefaultIndex + `)

Runs are named as compare names them (id, label, start of an id) or by a label
pattern such as 'master-*'. deploy/grafana holds a dashboard for the
Elasticsearch store; docs/weekly-regression.md shows the layouts.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dest, err := export.ParseDest(to)
			if err != nil {
				return usageError(fmt.Errorf("--to %w", err))
			}
			if dest.Store() && output != "" {
				return usageError(fmt.Errorf("-o writes a file; --to %s writes into a store", dest))
			}
			c, err := openSaved(stderr, results)
			if err != nil {
				return err
			}
			entries, err := c.Select(args)
			if err != nil {
				return usageError(err)
			}
			runs, err := export.FromEntries(entries)
			if err != nil {
				return failedError(err)
			}
			var buf bytes.Buffer
			what, err := dest.Write(ctx, &buf, runs)
			if err != nil {
				return failedError(fmt.Errorf("export to %s: %w", dest, err))
			}
			if dest.Store() {
				fmt.Fprintf(stdout, "exported %d runs to %s: %s\n", len(runs), dest, what)
				return nil
			}
			return writeHTML(stdout, stderr, output, buf.Bytes())
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", resultsDir(), resultsHelp)
	f.StringVar(&to, "to", "", "where: "+export.DestHelp)
	f.StringVarP(&output, "output", "o", "", "with csv or openmetrics: write to this file (atomically) instead of stdout")
	cmd.MarkFlagRequired("to")
	return cmd
}
