//go:build unix

package adapters

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// alive reports whether a process of this machine runs (or may: one of
// another user answers EPERM). A zombie, killed and not yet reaped by its
// parent, has ended.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// Linux: the state follows the command's closing parenthesis.
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	return true
}
