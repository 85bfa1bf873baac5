package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/charts"
	"github.com/tsbench/tsbench/htmlreport"
	"github.com/tsbench/tsbench/record"
)

func newReport(stdout, stderr io.Writer) *cobra.Command {
	var results, output, pngDir string
	cmd := &cobra.Command{
		Use:   "report RUN... [-o report.html] [--png DIR]",
		Short: "Write saved runs as one self-contained HTML file with charts, and the charts as PNG files",
		Long: `Write one HTML file (no scripts, fonts or images from elsewhere: it opens offline)
with the runs' facts, their charts and their matrices. Each argument is a run
id (or id prefix), a label or a record file; every run gets a colour of its own.

Charts: throughput per one-second window over time (per operation, phase and
round boundaries marked), latency by percentile (per operation, a line per run
and round), and cold vs warm rounds per query class when a run has two rounds.
--png DIR writes the same charts as PNG files with stable names
(throughput-OPERATION.png, latency-OPERATION.png, cold-warm.png,
server-cpu.png, server-memory.png).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sides, _, err := resolveRuns(stderr, results, args, true)
			if err != nil {
				return err
			}
			runs := slices.Concat(sides...)
			var buf bytes.Buffer
			if err := htmlreport.Runs(&buf, toolVersion(), runs); err != nil {
				return failedError(err)
			}
			if err := writeHTML(stdout, stderr, output, buf.Bytes()); err != nil {
				return err
			}
			return writePNGs(stderr, pngDir, charts.ForRuns(runs).Charts)
		},
	}
	cmd.Flags().StringVar(&results, "results", resultsDir(), resultsHelp)
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the HTML to this file (atomically) instead of stdout")
	cmd.Flags().StringVar(&pngDir, "png", "", "also write every chart as a PNG file into this folder")
	return cmd
}

// writeHTML writes a page to --output, or to stdout without one.
func writeHTML(stdout, stderr io.Writer, output string, page []byte) error {
	if output == "" {
		_, err := stdout.Write(page)
		return err
	}
	// As --png creates its folder, --output creates the file's.
	if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
		return failedError(fmt.Errorf("write --output %s: %w", output, err))
	}
	if err := record.WriteFileAtomic(output, page); err != nil {
		return failedError(fmt.Errorf("write --output %s: %w", output, err))
	}
	fmt.Fprintf(stderr, "wrote %s (%.0f KB)\n", output, float64(len(page))/1024)
	return nil
}

// writePNGs writes the charts as PNG files when --png names a folder.
func writePNGs(stderr io.Writer, dir string, cs []charts.Chart) error {
	if dir == "" {
		return nil
	}
	paths, err := htmlreport.WritePNGs(dir, cs)
	if err != nil {
		return failedError(fmt.Errorf("--png %s: %w", dir, err))
	}
	fmt.Fprintf(stderr, "wrote %d PNG charts to %s\n", len(paths), dir)
	return nil
}
