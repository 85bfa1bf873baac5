package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/dataset"
)

// Generate writes the data a configuration's runs send to files that a run
// replays (bench generate): iot-benchmark's data-set layout (Format "csv",
// FILE_PATH replays it) or a Rally track (Format "track", TRACK_PATH), and
// the queries the runs send (Queries).
type Generate struct {
	Config  string
	Sets    []string
	Out     string // the folder ("": FILE_PATH's)
	Format  string // csv or track
	Queries string // a file for the queries, a JSON line each ("": none)
	// Registry finds the database's driver; Tool is the tsbench build's
	// version, written into the files.
	Registry adapters.Registry
	Tool     string
	// Stdout gets what was written; Log the notes and the progress.
	Stdout, Log io.Writer
}

// Do writes the files. Its errors are *BadInput before anything is
// written, else a failure that leaves no data set behind.
func (g Generate) Do(ctx context.Context) error {
	if g.Config == "" {
		return bad(errors.New("give a config file with -c, e.g. bench generate -c config.properties --out data"))
	}
	if g.Format != "csv" && g.Format != "track" {
		return bad(fmt.Errorf("--format %s: csv (iot-benchmark's data-set layout) or track (a Rally track, for Elasticsearch and OpenSearch)", g.Format))
	}
	// The plan of the files: FILE_PATH names where they go, not data to read.
	p, err := Load(g.Config, append(append([]string(nil), g.Sets...), "FILE_PATH="), g.Registry)
	if err != nil {
		return err
	}
	for _, n := range p.Loaded.Notes {
		fmt.Fprintf(g.Log, "note: %s\n", n)
	}
	for _, wn := range p.Loaded.Warnings {
		fmt.Fprintf(g.Log, "warning: %s\n", wn)
	}
	c, drv, plan := p.Loaded.Config, p.Driver, p.Plan
	if c.TrackPath != "" {
		return bad(&config.Error{Key: "TRACK_PATH", Value: c.TrackPath, Msg: "names documents of their own; bench generate writes the generated rows", Valid: "empty"})
	}
	out := g.Out
	if out == "" {
		fl, err := config.Load(config.Source{Path: g.Config, Sets: g.Sets, Catalog: g.Registry})
		if err != nil {
			return bad(err)
		}
		out = fl.Config.FilePath
		if err := CheckPath(out, true); out != "" && err != nil {
			return bad(&config.Error{Key: "FILE_PATH", Value: out, Msg: err.Error(), Valid: "a folder, or a path where one can be made"})
		}
	}
	if g.Queries != "" {
		if err := plan.WriteDraws(g.Queries); err != nil {
			var ce *config.Error
			if errors.As(err, &ce) {
				return bad(err)
			}
			return fmt.Errorf("write the queries to %s: %w", g.Queries, err)
		}
		fmt.Fprintf(g.Stdout, "wrote the queries to %s\n", g.Queries)
		if out == "" {
			return nil
		}
	}
	if out == "" {
		return bad(errors.New("give the folder to write with --out DIR (or FILE_PATH in the config)"))
	}
	if g.Format == "track" && drv.Track == nil {
		return bad(fmt.Errorf("--format track: %s stores rows, not documents; a track is for Elasticsearch and OpenSearch (--format csv writes rows)", drv.Name))
	}
	if _, err := os.Stat(filepath.Join(out, dataset.SchemaFile)); err == nil {
		return bad(fmt.Errorf("--out %s holds a data set already: give an empty or new folder", out))
	}
	total := plan.WrittenPoints()
	if total == 0 {
		return bad(&config.Error{Key: "OPERATION_PROPORTION", Value: fmt.Sprint(c.OperationProportion), Msg: "gives the writes no share: the config writes no data to generate", Valid: "a write weight above 0"})
	}
	fingerprint := dataset.FingerprintLine + config.Fingerprint(c.Values(), c.WorkloadKeys())
	start, next := time.Now(), 0.1
	progress := func(unit string, total int64) func(int64) {
		return func(n int64) {
			if f := float64(n) / float64(total); f >= next && n < total {
				fmt.Fprintf(g.Log, "generate: %d of %d %s (%.0f%%)\n", n, total, unit, 100*f)
				next = f + 0.1
			}
		}
	}
	devices := plan.Schema.WrittenDevices()
	if g.Format == "track" {
		rows := plan.RowsPerDevice * int64(devices)
		desc := fmt.Sprintf("tsbench %s generate: %d documents of %s's workload (%s)", g.Tool, rows, g.Config, fingerprint)
		err = drv.Track(ctx, out, adapters.TrackParams{Config: c, Schema: plan.Schema, Generator: plan.Generator, Description: desc, Done: progress("documents", rows)})
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted: %s holds no track", out)
			}
			return fmt.Errorf("write the track to %s: %w", out, err)
		}
		fmt.Fprintf(g.Stdout, "wrote %d documents of %d devices to %s in %.1f s, a Rally track; replay them with TRACK_PATH=%s (or esrally race --track-path=%s)\n",
			rows, devices, out, time.Since(start).Seconds(), out, out)
		return nil
	}
	var info strings.Builder
	fmt.Fprintf(&info, "tsbench %s generate\n%s\n", g.Tool, fingerprint)
	c.WriteDump(&info)
	if err := dataset.Write(ctx, out, plan.Schema, plan.Generator, info.String(), progress("points", total)); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %s holds no data set", out)
		}
		return fmt.Errorf("write the data set to %s: %w", out, err)
	}
	fmt.Fprintf(g.Stdout, "wrote %d points of %d devices to %s in %.1f s; replay them with FILE_PATH=%s\n",
		total, devices, out, time.Since(start).Seconds(), out)
	return nil
}
