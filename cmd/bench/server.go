package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/tsbench/tsbench/adapters/iotdb"
	"github.com/tsbench/tsbench/provision"
)

func newServer(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var sf provision.Args
	cmd := &cobra.Command{
		Use:   "server start|stop|status|wipe|install|where iotdb|elasticsearch|opensearch [VERSION]",
		Short: "Start, stop or inspect a server on 127.0.0.1 with the scripts the binary carries",
		Long: `bench server runs the provisioning scripts of the repository's scripts/
folder, which the binary carries: a single node on 127.0.0.1, from a
released version (fetched through Maven, once, into TSBENCH_CACHE or
~/.cache/tsbench) or from your own build (--dist: an unpacked distribution,
or a .zip / .tar.gz of one).

  bench server start iotdb                  IoTDB 2.0.10 on 127.0.0.1:6667
  bench server start elasticsearch 7.17.29 --port 9201
  bench server start iotdb --dist ~/iotdb/distribution/target/…-all-bin/…-all-bin --home /tmp/pr
  bench server stop iotdb --home /tmp/pr
  bench server start iotdb --port 6767 --home /tmp/second   a second IoTDB beside the first (all its ports +100)
  bench server where iotdb 1.3.7             install it and print its folder

--home is the state folder (configuration, data, logs): one per build, so
two builds never share data. Stop and status need the same --home (and
--port) as the start. Needs bash, Java 17 and Maven (the scripts say what
is missing); Elasticsearch runs as the user "tsbench", created if missing.

Exit status: 0 done (status: running); 2 bad usage; 3 the script failed
(status: not running).`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return failedError(fmt.Errorf("find the bench binary: %w", err))
			}
			sf.Bench = self
			s, err := provision.FromArgs(args[0], args[1:], sf)
			if err != nil {
				return usageError(err)
			}
			if err := s.Run(ctx, args[0], stdout, stderr); err != nil {
				return failedError(err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sf.Dist, "dist", "", "run this build: an unpacked distribution, or a .zip or .tar.gz of one")
	f.StringVar(&sf.Home, "home", "", "the server's state folder (default: the script's, in the cache folder)")
	f.IntVar(&sf.Port, "port", 0, "the port clients connect to (default 9200 for Elasticsearch/OpenSearch, 6667 for IoTDB, whose other ports move with it)")
	f.StringVar(&sf.Spec, "spec", "", "the server as bench routine describes it in a file (instead of its name and the flags above)")
	f.StringVar(&sf.Properties, "properties", "", "IoTDB: extra lines for iotdb-system.properties (newline-separated)")
	cmd.AddCommand(newServerProbe(stderr))
	return cmd
}

// newServerProbe is the readiness probe scripts/iotdb runs when the binary
// carries it: a real write and read, not an open port.
func newServerProbe(stderr io.Writer) *cobra.Command {
	var addr, user, password, ca string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "probe iotdb",
		Short: "Wait until IoTDB accepts a write and returns it (what bench server start waits for)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "iotdb" {
				return usageError(fmt.Errorf("bench server probe knows iotdb only (Elasticsearch's script probes with curl)"))
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			n, err := iotdb.Probe(ctx, addr, user, password, ca)
			if err != nil {
				return failedError(fmt.Errorf("within %v: %w", timeout, err))
			}
			fmt.Fprintf(stderr, "bench: %s accepted a write and returned it (attempt %d)\n", addr, n)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:6667", "host:port of the DataNode")
	f.StringVar(&user, "user", "root", "user name")
	f.StringVar(&password, "password", "root", "password")
	f.StringVar(&ca, "ca", "", "PEM certificate to trust: connect with TLS")
	f.DurationVar(&timeout, "timeout", 3*time.Minute, "how long to keep trying")
	return cmd
}
