// Command bench is tsbench: a benchmark for time-series databases that reads
// iot-benchmark's config.properties, generates deterministic sensor data and
// queries, runs them against a database and reports iot-benchmark's result
// and latency matrices.
//
//	bench -c config.properties            run a benchmark (same as bench run)
//	bench run -c FILE --set KEY=VALUE     override keys; --label tags the run
//	bench show RUN                        print a saved run again
//	bench compare BASE CONTENDER          ratio tables with verdicts; --fail-above gates
//	bench verify -c FILE                  count the points a database holds
//	bench version                         version and supported databases
//
// Exit status: 0 ok; 1 compare --fail-above found a regression; 2 bad usage
// or input (nothing runs); 3 the run failed or is incomplete (its record is
// saved); 4 the gate (compare --fail-above, routine) is inconclusive; 70 an
// internal error, a bug. The statuses are the constants in cli.go.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}
