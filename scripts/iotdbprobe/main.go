// Command iotdbprobe waits until an IoTDB server accepts a real write and
// returns it: an open port is not enough, a DataNode answers before its
// regions can take data. Used by scripts/iotdb start in the repository (the
// bench binary runs the same probe as bench server probe iotdb).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tsbench/tsbench/adapters/iotdb"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6667", "host:port of the DataNode")
	user := flag.String("user", "root", "user name")
	password := flag.String("password", "root", "password")
	timeout := flag.Duration("timeout", 3*time.Minute, "how long to keep trying")
	ca := flag.String("ca", "", "PEM certificate to trust: connect with TLS")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	n, err := iotdb.Probe(ctx, *addr, *user, *password, *ca)
	if err != nil {
		fmt.Fprintf(os.Stderr, "iotdbprobe: within %v: %v\n", *timeout, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "iotdbprobe: %s accepted a write and returned it (attempt %d)\n", *addr, n)
}
