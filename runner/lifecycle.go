package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
)

// lifecycle runs the steps that make the next query round cold: flush,
// stop, drop the OS caches, start and wait until the database answers (or,
// without restart commands, the adapter's own reconnect and cache clear).
// Every step's duration and outcome goes into the result; a failing step
// stops the run, except dropping caches where that is not permitted.
type lifecycle struct {
	c   *config.Config
	a   adapters.Adapter
	drv *adapters.Driver
	log io.Writer
	res *Result
	env []string // Options.Env
}

// run performs the steps before round `round` (of variant, if any); it
// reports whether the run may go on.
func (l *lifecycle) run(ctx context.Context, round int, variant string) bool {
	c := l.c
	timeout := time.Duration(c.ReadyTimeoutMS) * time.Millisecond
	step := func(name string, f func(ctx context.Context) (output string, skipped string, err error)) bool {
		where := ""
		if variant != "" {
			where = " (" + variant + ")"
		}
		fmt.Fprintf(l.log, "%s%s...\n", name, where)
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		t0 := time.Now()
		out, skipped, err := f(sctx)
		st := Step{Name: name, Phase: "query", Round: round, Variant: variant, Elapsed: time.Since(t0), Err: err, Skipped: skipped, Output: out}
		l.res.Steps = append(l.res.Steps, st)
		if skipped != "" {
			fmt.Fprintf(l.log, "warning: %s skipped: %s\n", name, skipped)
		}
		if err != nil {
			l.res.Stopped = fmt.Errorf("%s%s failed: %w", name, where, err)
			return false
		}
		return true
	}
	// 1. Flush: the user's command, else the adapter's flush.
	if c.FlushCommand != "" {
		if !step("flush", func(ctx context.Context) (string, string, error) { return shell(ctx, c.FlushCommand, l.env) }) {
			return false
		}
	} else if f, ok := l.a.(adapters.Flusher); ok {
		if !step("flush", func(ctx context.Context) (string, string, error) { return "", "", f.Flush(ctx) }) {
			return false
		}
	}
	// 2. Stop.
	if c.StopCommand != "" {
		if !step("stop", func(ctx context.Context) (string, string, error) { return shell(ctx, c.StopCommand, l.env) }) {
			return false
		}
	}
	// 3. Drop the OS page cache.
	if c.DropCachesCommand != "" {
		if !step("drop caches", func(ctx context.Context) (string, string, error) {
			out, _, err := shell(ctx, c.DropCachesCommand, l.env)
			if err != nil && notPermitted(out) {
				return out, "not permitted here (" + firstLine(out) + ")", nil
			}
			return out, "", err
		}) {
			return false
		}
	}
	// 4. Start, then wait until the database answers: the adapter reconnects
	// (SQLite: closing and reopening its file is its restart).
	if c.StartCommand != "" {
		if !step("start", func(ctx context.Context) (string, string, error) { return shell(ctx, c.StartCommand, l.env) }) {
			return false
		}
	}
	if r, ok := l.a.(adapters.Reconnecter); ok {
		name := "reconnect"
		if !c.HasRestart() && l.drv.ReconnectRestarts {
			name = "restart (" + l.drv.Name + " closes and reopens its database)"
		}
		if !step(name, func(ctx context.Context) (string, string, error) { return "", "", waitReady(ctx, r) }) {
			return false
		}
	}
	// 5. Without a real restart, clear the database's own caches.
	if cc, ok := l.a.(adapters.CacheClearer); ok && c.ClearCache && !c.HasRestart() {
		if !step("clear cache", func(ctx context.Context) (string, string, error) { return "", "", cc.ClearCache(ctx) }) {
			return false
		}
	}
	return true
}

// waitReady retries Reconnect until it succeeds or ctx ends.
func waitReady(ctx context.Context, r adapters.Reconnecter) error {
	var last error
	for {
		if last = r.Reconnect(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the database did not answer within READY_TIMEOUT: %w", errors.Join(last, ctx.Err()))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// shell runs a command with sh -c, env added to the process's environment;
// the result's output is trimmed for the record.
func shell(ctx context.Context, command string, env []string) (string, string, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// Interrupted, the command's whole process group is asked to end
	// (killing sh alone left a `sleep` holding the output open for the
	// WaitDelay), and what has not ended half a second later is left.
	ownGroup(cmd)
	cmd.WaitDelay = 500 * time.Millisecond
	out, err := cmd.CombinedOutput()
	text := strings.TrimSpace(string(out))
	if len(text) > 4000 {
		text = text[:2000] + "\n...\n" + text[len(text)-2000:]
	}
	if err != nil {
		return text, "", fmt.Errorf("%q: %w%s", command, err, lastLine(text))
	}
	return text, "", nil
}

func lastLine(s string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	return ": " + lines[len(lines)-1]
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// notPermitted recognises the ways dropping caches is refused: not root,
// or a read-only /proc in a container.
func notPermitted(out string) bool {
	o := strings.ToLower(out)
	return strings.Contains(o, "permission denied") || strings.Contains(o, "read-only file system") || strings.Contains(o, "operation not permitted")
}
