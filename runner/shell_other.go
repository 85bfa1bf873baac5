//go:build !unix

package runner

import "os/exec"

// ownGroup: without process groups, the context's end kills the shell.
func ownGroup(*exec.Cmd) {}
