package adaptertest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Exclusive proves through the bench binary that a target is one run's at
// a time: a second run on the target of a running one is refused at its
// start (exit 2, naming the first); the first's marker goes when it ends
// (SIGTERM); the marker of a run killed with SIGKILL is taken over, with
// a note, by the next run on this machine.
type Exclusive struct {
	Bin    string   // the bench binary
	Dir    string   // working directory (the repository root)
	Config string   // config file, relative to Dir
	Sets   []string // KEY=VALUE for every run (the server, DB_NAME, RESULTS_DIR, a small workload)
}

// Binary builds the bench binary into dir, for an adapter's tests that run
// it against the server as a user does (from the adapter's folder).
func Binary(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bench")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/bench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Run runs the cases.
func (e Exclusive) Run(t *testing.T) {
	// The holder writes until it is stopped, at most a minute. The runs
	// keep the data (the lock is the question, not the points), so none
	// waits INIT_WAIT_TIME after a cleanup.
	keep := []string{"IS_DELETE_DATA=false", "INIT_WAIT_TIME=0", "VERIFY=false"}
	long := append([]string{"LOOP=100000000", "TEST_MAX_TIME=60000", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"}, keep...)
	short := append([]string{"LOOP=20"}, keep...)

	holder := e.start(t, long)
	out, code := e.run(short)
	if code != 2 || !strings.Contains(out, fmt.Sprintf(": held by bench (pid %d on ", holder.Process.Pid)) {
		t.Errorf("a second run on a held target: exit %d, want 2 naming pid %d:\n%s", code, holder.Process.Pid, out)
	}
	if strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("the refusal is not one line:\n%s", out)
	}
	stopped := time.Now()
	_ = holder.Process.Signal(syscall.SIGTERM)
	_ = holder.Wait()
	t.Logf("the holder ended %.1f s after SIGTERM", time.Since(stopped).Seconds())
	if out, code := e.run(short); code != 0 || strings.Contains(out, "took over") {
		t.Errorf("a run after the holder ended: exit %d, want 0 with no marker to take over:\n%s", code, out)
	}

	killed := e.start(t, long)
	_ = killed.Process.Kill()
	_ = killed.Wait()
	if out, code := e.run(short); code != 0 || !strings.Contains(out, "note: took over") || !strings.Contains(out, fmt.Sprintf("pid %d", killed.Process.Pid)) {
		t.Errorf("a run after its holder was killed: exit %d, want 0 with a note that it took over from pid %d:\n%s", code, killed.Process.Pid, out)
	}
}

func (e Exclusive) args(extra []string) []string {
	a := []string{"-c", e.Config}
	for _, s := range append(append([]string(nil), e.Sets...), extra...) {
		a = append(a, "--set", s)
	}
	return a
}

// start runs bench and returns once it has taken the target: it prints
// what it measures right after.
func (e Exclusive) start(t *testing.T, extra []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(e.Bin, e.args(extra)...)
	cmd.Dir = e.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	took := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), ": measuring ") {
				ok = true
				took <- true
			}
		}
		if !ok {
			took <- false
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case ok := <-took:
		if !ok {
			_ = cmd.Wait()
			t.Fatalf("bench ended before it measured anything:\n%s", stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("bench did not start measuring within 60 s:\n%s", stderr.String())
	}
	return cmd
}

// run runs bench to its end: combined output and exit status.
func (e Exclusive) run(extra []string) (string, int) {
	return RunBench(e.Bin, e.Dir, nil, e.args(extra)...)
}
