//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, which its context's
// end signals (SIGTERM) as a whole.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}
