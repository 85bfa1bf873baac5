package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
)

// ExpectedPoints is what device d holds after a complete run of the plan
// (or, for a query-only plan, after the run that wrote its data): every
// sensor of every row, nothing for a device REAL_INSERT_RATE leaves out.
// Out-of-order modes permute rows and overwrite none, so they do not change it.
func (p *Plan) ExpectedPoints(d *generator.Device) int64 {
	if !d.Written {
		return 0
	}
	return p.DataRows * int64(len(p.Schema.Sensors))
}

// Verify counts the points every device of the plan holds and sets them
// against ExpectedPoints: the one check behind both the VERIFY step and
// `bench verify`, so the two cannot disagree about what a complete run is.
// Each count has READ_OPERATION_TIMEOUT_MS.
//
// Against a cluster (several HOST entries) a device found short is counted
// again every half second for up to settleTime: replicas apply writes
// after acknowledging them (IoTDB's IoTConsensus), and a count read from a
// follower right after the last write missed its last batch, which the
// same count found a second later.
func Verify(ctx context.Context, p *Plan, cnt adapters.Counter) []DeviceCount {
	timeout := time.Duration(p.Config.ReadTimeoutMS) * time.Millisecond
	count := func(d *generator.Device) DeviceCount {
		qctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		n, err := cnt.CountPoints(qctx, d)
		return DeviceCount{Device: d, Expected: p.ExpectedPoints(d), Found: n, Err: err}
	}
	out := make([]DeviceCount, 0, len(p.Schema.Devices))
	for i := range p.Schema.Devices {
		out = append(out, count(&p.Schema.Devices[i]))
	}
	if len(p.Config.Hosts) < 2 {
		return out
	}
	deadline := time.Now().Add(settleTime)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		short := false
		for i, dc := range out {
			if dc.Err == nil && dc.Found < dc.Expected {
				out[i] = count(dc.Device)
				short = short || out[i].Found < out[i].Expected
			}
		}
		if !short {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	return out
}

// settleTime bounds how long VERIFY waits for a cluster's replicas.
const settleTime = 10 * time.Second

// VerifyAll counts every device of the plan's whole workload: the plan's
// own devices, or for an instance of a distributed run every instance's
// (each its own device range), with one connection: `bench verify` after a
// distributed run checks what all of them wrote.
func VerifyAll(ctx context.Context, p *Plan, cnt adapters.Counter) ([]DeviceCount, error) {
	c := p.Config
	if !c.Distributed() {
		return Verify(ctx, p, cnt), nil
	}
	var out []DeviceCount
	for i := 0; i < c.BenchmarkInstances; i++ {
		ci := *c
		ci.BenchmarkIndex = i
		pi, err := NewPlan(&ci)
		if err != nil {
			return nil, fmt.Errorf("instance %d: %w", i, err)
		}
		out = append(out, Verify(ctx, pi, cnt)...)
	}
	return out, nil
}
