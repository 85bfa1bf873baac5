package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/telemetry"
)

// serverPorts are the ports of the database server where it listens on
// this machine: the processes behind them are the server's. An embedded
// database (no address) and a server elsewhere have none.
func serverPorts(c *config.Config, drv *adapters.Driver) []int {
	if drv.Embedded() {
		return nil
	}
	var ports []int
	for i, h := range c.Hosts {
		if !isLocal(h) {
			continue
		}
		port := 0
		switch {
		case i < len(c.Ports):
			port = c.Ports[i]
		case len(c.Ports) > 0:
			port = c.Ports[0]
		}
		if port > 0 && !slices.Contains(ports, port) {
			ports = append(ports, port)
		}
	}
	return ports
}

func isLocal(host string) bool {
	h := strings.Trim(strings.ToLower(host), "[]")
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// sampling starts the telemetry of a phase (SERVER_METRICS_INTERVAL); what
// it could not find is said once a run. Nil when it is off. The server's
// processes and the database's own sources (adapters.Telemetry) are looked
// up at the first phase and again after each lifecycle step (a restart
// changes them), not before every phase: the look-up reads every process's
// open files, 50 ms on a machine with a JVM server, and a weekly suite has
// 48 phases.
func (w *walker) sampling(ctx context.Context) *telemetry.Sampling {
	c := w.p.Config
	if c.ServerMetricsIntervalS <= 0 {
		return nil
	}
	if w.sampler == nil {
		s := &telemetry.Sampler{}
		var pids []int
		ports := serverPorts(c, w.drv)
		switch {
		case w.drv.Embedded():
			// The embedded database works inside this process.
			pids = []int{os.Getpid()}
		case len(ports) == 0:
			w.note("server metrics: the server is on another host (HOST " + strings.Join(c.Hosts, ",") + "): its machine and processes are not sampled here, only what the database reports itself")
		}
		if w.drv.Embedded() || len(ports) > 0 {
			host, notes, err := telemetry.Host(ports, pids...)
			if err != nil {
				w.note("server metrics: " + err.Error())
			} else {
				s = host
			}
			if addr := w.drv.Address; w.drv.Embedded() && addr != nil && len(addr(c)) > 0 && err == nil {
				// The embedded database's file: its folder's disk.
				if n := s.AddDisk(filepath.Dir(addr(c)[0])); n != "" {
					notes = append(notes, n)
				}
			}
			for _, n := range notes {
				w.note("server metrics: " + n)
			}
		}
		if t, ok := w.a.(adapters.Telemetry); ok {
			// A server that stopped answering costs the look-up a few reads'
			// time, never the phase.
			lctx, cancel := context.WithTimeout(ctx, 4*telemetry.ReadTimeout)
			rs, notes := t.TelemetrySources(lctx)
			cancel()
			s.Add(rs...)
			for _, n := range notes {
				w.note("server metrics: " + n)
			}
		}
		if len(s.Sources()) == 0 {
			return nil
		}
		s.Interval = time.Duration(c.ServerMetricsIntervalS * float64(time.Second))
		w.sampler = s
	}
	return w.sampler.Start(ctx)
}

// note adds a note of the run once, and says it in the log.
func (w *walker) note(n string) {
	if slices.Contains(w.res.Notes, n) {
		return
	}
	w.res.Notes = append(w.res.Notes, n)
	fmt.Fprintln(logOf(w.opts), "note: "+n)
}

func logOf(o Options) io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// Footprint is the disk footprint of a run's data after its ingest.
type Footprint struct {
	Bytes  int64
	Points int64 // the points the ingest wrote
	Where  string
	Took   time.Duration // the flush and the reading
}

// footprint measures the data size after the phase that wrote it, once a
// run, after a flush (a database holds recent writes in memory), when the
// adapter can say it (adapters.Sizer) and telemetry is on. A failure is a
// note, never the run's. Not measured where the database holds more than
// this run's points: earlier data kept (IS_DELETE_DATA=false), or the other
// instances' of a distributed run.
func (w *walker) footprint(ctx context.Context, ph *Phase) {
	c := w.p.Config
	sz, ok := w.a.(adapters.Sizer)
	if !ok || c.ServerMetricsIntervalS <= 0 || w.res.Footprint != nil || ctx.Err() != nil {
		return
	}
	switch {
	case !c.DeleteData:
		w.note("the disk footprint was not measured: with IS_DELETE_DATA=false the database may hold earlier runs' data, which bytes per point would count")
		return
	case c.Distributed():
		w.note("the disk footprint was not measured: the database holds every instance's data, and an instance knows only its own points")
		return
	}
	ops := ph.Operations
	if ph.Warmup != nil {
		ops = append(slices.Clone(ops), ph.Warmup.Operations...) // a warm-up's writes are stored too
	}
	var points int64
	for _, op := range ops {
		if op.Operation == config.Ingestion {
			points += op.OKPoints
		}
	}
	if points == 0 {
		return
	}
	fmt.Fprintln(logOf(w.opts), "flush and measure the data size...")
	start := time.Now()
	fctx, cancel := context.WithTimeout(ctx, time.Duration(w.p.Config.WriteTimeoutMS)*time.Millisecond)
	defer cancel()
	if f, ok := w.a.(adapters.Flusher); ok {
		if err := f.Flush(fctx); err != nil {
			w.note("the disk footprint was not measured: the flush before it failed: " + err.Error())
			return
		}
	}
	n, where, err := sz.DataSize(fctx)
	if err != nil {
		w.note("the disk footprint was not measured: " + err.Error())
		return
	}
	w.res.Footprint = &Footprint{Bytes: n, Points: points, Where: where, Took: time.Since(start)}
}
