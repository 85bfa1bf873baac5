// Package headline reads a run record's headline figures — the ingestion
// throughput (documents/s for a document database) and every operation's
// median latency — for the scripts that study run-to-run spread
// (tools/runsaside, tools/pairsaside): scripts only.
package headline

import (
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

// Each calls f with every headline figure of r: its name (the operation,
// after its phase and round unless the phase is iot-benchmark's main
// phase), unit and value. Operations without a success are left out.
func Each(r *record.Record, f func(name, unit string, v float64)) {
	for i := range r.Phases {
		p := &r.Phases[i]
		for _, op := range p.Operations {
			if op.OKOps == 0 || p.Seconds <= 0 {
				continue
			}
			where := op.Operation
			if p.Name != "main" {
				where = p.Group() + " " + op.Operation
			}
			if op.Operation == config.Ingestion {
				if op.OKDocs > 0 {
					f(where+" throughput", "docs/s", float64(op.OKDocs)/p.Seconds)
				} else {
					f(where+" throughput", "point/s", float64(op.OKPoints)/p.Seconds)
				}
			}
			f(where+" median latency", "ms", op.Percentile(50))
		}
	}
}
