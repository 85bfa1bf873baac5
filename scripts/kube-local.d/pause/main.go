// Command pause holds a pod's namespaces open, as the pause image of
// Kubernetes does: it sleeps until it is told to stop. scripts/kube-local
// builds it into the sandbox image that containerd starts for every pod, no
// image registry being reachable here.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	// As PID 1 of its namespace it also inherits orphans; the children of
	// a pod's containers are reaped by their own PID 1, so there is none
	// to wait for here.
	<-stop
}
