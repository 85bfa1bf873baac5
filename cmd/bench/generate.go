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

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/dataset"
)

func newGenerate(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var cfgPath, out string
	var sets []string
	cmd := &cobra.Command{
		Use:   "generate -c FILE [--out DIR]",
		Short: "Write a config's data to files, for runs that replay them (FILE_PATH)",
		Long: `Write the data a config's runs send, batch for batch and in their order (out-of-order
rows included), to files in iot-benchmark's data-set layout: DIR/schema.txt, DIR/info.txt,
and DIR/<device>/BigBatch_0.csv. A run with FILE_PATH=DIR then sends these files instead of
generating: generation stays out of the measured load, and every build or tool loads the
same bytes. The files are the points a run generates: a replay and a generated run compare.
DIR is --out, or FILE_PATH's value; it must not hold a data set already.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfgPath == "" {
				return usageError(errors.New("give a config file with -c, e.g. bench generate -c config.properties --out data"))
			}
			// The plan of the files: FILE_PATH names where they go, not
			// data to read.
			l, _, plan, err := prepare(cfgPath, append(append([]string(nil), sets...), "FILE_PATH="))
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
			}
			if out == "" {
				return usageError(errors.New("give the folder to write with --out DIR (or FILE_PATH in the config)"))
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
			err = dataset.Write(ctx, out, plan.Schema, plan.Generator, info.String(), func(points int64) {
				if f := float64(points) / float64(total); f >= next && points < total {
					fmt.Fprintf(stderr, "generate: %d of %d points (%.0f%%)\n", points, total, 100*f)
					next = f + 0.1
				}
			})
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
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a key: --set KEY=VALUE (repeatable)")
	return cmd
}
