// Command bench is tsbench: a benchmark for time-series databases that reads
// iot-benchmark's config.properties, generates deterministic sensor data and
// queries, runs them against a database and reports iot-benchmark's result
// and latency matrices.
//
//	bench -c config.properties            run a benchmark (same as bench run)
//	bench run -c FILE --set KEY=VALUE     override keys; --label tags the run
//	bench show RUN                        print a saved run again
//	bench verify -c FILE                  count the points a database holds
//	bench version                         version and supported databases
//
// Exit status: 0 ok, 2 bad usage or input, 3 the run failed.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}
