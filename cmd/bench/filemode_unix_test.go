//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFilesFollowTheUmask: what bench writes — a run's record, a report
// written with -o, a PNG chart — has the mode a user's own file would
// (0644 under umask 022), not a temporary file's 0600.
func TestFilesFollowTheUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	delayRuns(t, dir, "a", "1")
	page, pngs := filepath.Join(dir, "out", "report.html"), filepath.Join(dir, "png")
	if r := bench(t, "compare", "a", "a", "--results", dir, "--format", "html", "-o", page, "--png", pngs); r.code != 0 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	charts, _ := filepath.Glob(filepath.Join(pngs, "*.png"))
	if len(recs) == 0 || len(charts) == 0 {
		t.Fatalf("records %v, charts %v", recs, charts)
	}
	for _, f := range []string{recs[0], page, charts[0]} {
		info, err := os.Stat(f)
		if err != nil || info.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want -rw-r--r--", f, info.Mode().Perm(), err)
		}
	}
}
