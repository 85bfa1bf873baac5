// Command delayrelay is a controlled regression for power curves: a TCP
// relay on loopback that holds each response of a server back by a known
// share of the time the server took for it (internal/relay), so that a
// side that reaches its server through it is slower by that share.
//
//	go run ./tools/delayrelay --listen 127.0.0.1:6669 --target 127.0.0.1:6667 --share 0.10
//
// It runs until interrupted, then says how many responses it held and for
// how long on average. tools/power-curve starts one per side.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/tsbench/tsbench/internal/relay"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:6669", "where clients connect (loopback only)")
	target := flag.String("target", "127.0.0.1:6667", "the server")
	share := flag.Float64("share", 0.10, "hold each response for this share of the server's time for it (0.10: 10% slower)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*listen)
	if err != nil || host != "127.0.0.1" {
		fmt.Fprintf(os.Stderr, "delayrelay: --listen %s: give 127.0.0.1:PORT (the relay listens on loopback only)\n", *listen)
		os.Exit(2)
	}
	if !(*share >= 0) {
		fmt.Fprintf(os.Stderr, "delayrelay: --share %g: 0 or more\n", *share)
		os.Exit(2)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "delayrelay: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &relay.Relay{Target: *target, Share: *share}
	fmt.Fprintf(os.Stderr, "delayrelay: %s -> %s, each response held for %g of the server's time\n", *listen, *target, *share)
	if err := r.Serve(ctx, l); err != nil {
		fmt.Fprintf(os.Stderr, "delayrelay: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "delayrelay: %s\n", relay.Summary(r))
}
