package routine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
)

// Form is how a side's server is given.
type Form string

// The forms of a server spec.
const (
	Release  Form = "release"  // iotdb:2.0.10: a released version the scripts fetch
	Dist     Form = "dist"     // an unpacked distribution: a folder
	Archive  Form = "archive"  // a .zip or .tar.gz of one
	Git      Form = "git"      // git:PATH@REF: a checkout, a ref and the build command
	External Form = "external" // the config's START_COMMAND and STOP_COMMAND
	Embedded Form = "embedded" // no server: SQLite, Null
)

// The ways a routine's run makes its cold query round cold (--cold).
const (
	// ColdRestart stops the server, drops the OS caches and starts it
	// again: everything is cold, the process included (its JIT, its pools).
	ColdRestart = "restart"
	// ColdClear flushes, drops the OS caches and clears the server's own
	// caches, with no restart: the data is cold, the process is warm.
	ColdClear = "clear"
	// OneProcessWords warns of --cold clear without --duet.
	OneProcessWords = "warning: with --cold clear and without --duet each side's runs measured one server process, whose speed drifts at its own pace as it warms: an IoTDB A/A made this way leaned 0.82 (docs/weekly-regression.md, \"Designs against each other\"); --duet pairs the runs so that the drift cancels"
	// OneServerWords says what the intervals of a routine whose servers
	// were never restarted leave out: the draw of the server processes.
	OneServerWords = "Each side's runs met one server process, started once: the intervals cover how the runs differed, not how two processes of one build can differ (in the IoTDB A/As of docs/weekly-regression.md, by up to 3.5%); --restart-every N samples more processes a side, each then one sample of the intervals"
	// DuetWords says in the log, the dry run and the summary what --duet
	// does.
	DuetWords = "Duet (--duet): each block's runs made at the same time, one a side, every measured phase and the cold round's lifecycle begun by both sides together; the servers kept running, restarted by no run"
	// ClearColdWords says in the log and the summary what --cold clear
	// measured.
	// NoRoundsWords says once that runs without query rounds have no
	// lifecycle of their own.
	NoRoundsWords  = "the runs make no query rounds (QUERY_ROUNDS=0, or a track's ingest): the lifecycle steps before the rounds (flush, restart, cache drops and clears) do not apply; each run's server is still wiped and started before it and stopped after it, unless --keep-running"
	ClearColdWords = "Cold rounds without a restart (--cold clear): each run's server flushed, the OS caches dropped and the server's own caches cleared before its first query round; its process stayed up, so the round's data is cold but its code and connections are warm"
)

// SpecHelp is the list of forms, for the help and the refusals.
const SpecHelp = `iotdb:VERSION, elasticsearch:VERSION, opensearch:VERSION (a release; the version may be left out for the scripts' default), a folder (an unpacked distribution), a .zip/.tar.gz of one, git:PATH@REF (built with --build), external (the config's START_COMMAND and STOP_COMMAND, which see TSBENCH_SIDE), embedded (SQLite, Null: no server)`

// Side is one side of the routine: its label and its server as given.
type Side struct {
	Name string
	Spec string
	Form Form
	Kind provision.Kind // release, dist, archive, git (found after the build)
	// Version is a release's version; Path a folder, an archive or a git
	// checkout; Ref a git ref.
	Version, Path, Ref string
}

// ParseSide reads NAME=SPEC.
func ParseSide(flag, arg string) (Side, error) {
	name, spec, ok := strings.Cut(arg, "=")
	if !ok || name == "" || spec == "" {
		return Side{}, fmt.Errorf("%s=%q: give NAME=SERVER, e.g. master=iotdb:2.0.10 (SERVER: %s)", flag, arg, SpecHelp)
	}
	if err := record.CheckLabel(name, nil); err != nil {
		return Side{}, fmt.Errorf("%s=%s: %w", flag, arg, err)
	}
	s := Side{Name: name, Spec: spec}
	switch {
	case spec == string(External):
		s.Form = External
	case spec == string(Embedded):
		s.Form = Embedded
	case strings.HasPrefix(spec, "git:"):
		path, ref, ok := strings.Cut(strings.TrimPrefix(spec, "git:"), "@")
		if !ok || path == "" || ref == "" {
			return Side{}, fmt.Errorf("%s=%s: a git server is git:PATH@REF, e.g. git:../iotdb@master", flag, arg)
		}
		s.Form, s.Path, s.Ref = Git, path, ref
	default:
		if kind, version, ok := strings.Cut(spec, ":"); ok {
			if k, err := provision.ParseKind(kind); err == nil {
				s.Form, s.Kind, s.Version = Release, k, version
				return s, nil
			}
		}
		if k, err := provision.ParseKind(spec); err == nil {
			s.Form, s.Kind = Release, k
			return s, nil
		}
		info, err := os.Stat(spec)
		switch {
		case err != nil:
			return Side{}, fmt.Errorf("%s=%s: %q is no server spec and no file or folder (SERVER: %s)", flag, arg, spec, SpecHelp)
		case info.IsDir():
			s.Form, s.Path = Dist, spec
		case provision.IsArchive(spec):
			s.Form, s.Path = Archive, spec
		default:
			return Side{}, fmt.Errorf("%s=%s: %s is a file but not a .zip or .tar.gz distribution", flag, arg, spec)
		}
	}
	return s, nil
}

// Resolved is a side ready to run: the server to start (nil for external
// and embedded) and what the record says of it.
type Resolved struct {
	Side
	Server *provision.Server
	Record *record.Server
	// Commands are an external side's START_COMMAND and STOP_COMMAND.
	Commands map[string]string
	// NoRounds says the side's runs make no query rounds (a track's
	// ingest, QUERY_ROUNDS=0): no lifecycle step of theirs applies, so they
	// get no STOP_COMMAND or START_COMMAND; the routine still starts and
	// stops the side's server around each run.
	NoRounds bool
}

// Build says how git sides are built and where their distribution is.
type Build struct {
	// Command is run with sh -c in the side's worktree.
	Command string
	// Glob finds the distribution in the worktree after the build; empty
	// tries DistGlobs.
	Glob string
}

// DistGlobs are where builds leave their distribution, tried in order
// when --dist-glob is not given: IoTDB's Maven build, then the folder a
// build command of your own may fill.
var DistGlobs = []string{"distribution/target/*-all-bin/*-all-bin", "distribution/target/*-bin/*-bin", "dist"}

// ErrBuild is a side whose server could not be made: a build that failed
// or produced no distribution. Never a fallback to a release.
var ErrBuild = errors.New("the server could not be made")

// Resolver turns sides into servers: builds git refs (cached by commit),
// unpacks archives, and sums every distribution's files.
type Resolver struct {
	Cache string // tsbench's cache folder
	Bench string // the bench binary: the servers' lifecycle commands call it
	Build Build
	Log   io.Writer
}

// Resolve makes side ready: the errors wrap ErrBuild when the server could
// not be made (exit 3), else they are the user's input (exit 2).
func (r Resolver) Resolve(ctx context.Context, side Side) (Resolved, error) {
	res := Resolved{Side: side}
	if side.Form == External || side.Form == Embedded {
		return res, nil
	}
	rec := &record.Server{Spec: side.Spec}
	srv := &provision.Server{Kind: side.Kind, Version: side.Version, Bench: r.Bench, Cache: r.Cache}
	var dist string
	switch side.Form {
	case Release:
		fmt.Fprintf(r.Log, "routine: %s: installing %s %s\n", side.Name, side.Kind, side.Version)
		dir, err := srv.Installed(ctx, r.Log)
		if err != nil {
			return res, fmt.Errorf("%s (%s): %w: %w", side.Name, side.Spec, ErrBuild, err)
		}
		dist = dir
	case Dist:
		dist = side.Path
	case Archive:
		dir, err := provision.Unpack(side.Path, r.Cache)
		if err != nil {
			return res, fmt.Errorf("%s (%s): %w", side.Name, side.Spec, err)
		}
		dist = dir
	case Git:
		commit, dir, err := r.build(ctx, side)
		if err != nil {
			return res, err
		}
		rec.Commit, dist = commit, dir
	}
	abs, err := filepath.Abs(dist)
	if err != nil {
		return res, err
	}
	kind, err := provision.Detect(abs)
	if err != nil {
		if side.Form == Git {
			return res, fmt.Errorf("%s (%s): %w: the build's output is not a distribution: %w", side.Name, side.Spec, ErrBuild, err)
		}
		return res, fmt.Errorf("%s (%s): %w", side.Name, side.Spec, err)
	}
	if side.Form != Release {
		srv.Kind, srv.Dist, srv.Version = kind, abs, ""
	}
	rec.Kind = string(kind)
	fmt.Fprintf(r.Log, "routine: %s: summing the files of %s\n", side.Name, abs)
	if rec.Checksum, err = provision.Checksum(abs); err != nil {
		return res, fmt.Errorf("%s (%s): %w", side.Name, side.Spec, err)
	}
	res.Side.Kind, res.Server, res.Record = kind, srv, rec
	return res, nil
}

// build checks out side's ref in a worktree of its own and runs the build
// command there, once per commit: a second routine on the same commit
// reuses the distribution. It returns the commit and the distribution.
func (r Resolver) build(ctx context.Context, side Side) (commit, dist string, err error) {
	fail := func(format string, a ...any) (string, string, error) {
		return "", "", fmt.Errorf("%s (%s): %w: %s", side.Name, side.Spec, ErrBuild, fmt.Sprintf(format, a...))
	}
	if r.Build.Command == "" {
		return "", "", fmt.Errorf("%s=%s: a git server needs --build, the command that makes its distribution (e.g. --build 'mvn -q package -DskipTests -pl distribution -am')", side.Name, side.Spec)
	}
	repo, err := filepath.Abs(side.Path)
	if err != nil {
		return "", "", err
	}
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--verify", "--quiet", side.Ref+"^{commit}").Output()
	if err != nil {
		return fail("%s has no commit %q (git rev-parse: %v)", repo, side.Ref, err)
	}
	commit = strings.TrimSpace(string(out))
	// The build is keyed by the commit and the command: another command
	// makes another distribution.
	key := commit[:12] + "-" + shortHash(r.Build.Command+"\x00"+r.Build.Glob)
	work := filepath.Join(r.Cache, "builds", key)
	tree := filepath.Join(work, "tree")
	done := filepath.Join(work, "dist")
	if b, err := os.ReadFile(done); err == nil {
		fmt.Fprintf(r.Log, "routine: %s: commit %s already built (%s)\n", side.Name, commit[:12], work)
		return commit, strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", "", err
	}
	// A worktree left by a build that was cut short is made again.
	_ = exec.CommandContext(ctx, "git", "-C", repo, "worktree", "remove", "--force", tree).Run()
	_ = os.RemoveAll(tree)
	_ = exec.CommandContext(ctx, "git", "-C", repo, "worktree", "prune").Run()
	if out, err := exec.CommandContext(ctx, "git", "-C", repo, "worktree", "add", "--detach", tree, commit).CombinedOutput(); err != nil {
		return fail("git worktree add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	logPath := filepath.Join(work, "build.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return "", "", err
	}
	defer logf.Close()
	fmt.Fprintf(r.Log, "routine: %s: building commit %s in %s: %s (log: %s)\n", side.Name, commit[:12], tree, r.Build.Command, logPath)
	cmd := exec.CommandContext(ctx, "sh", "-c", r.Build.Command)
	cmd.Dir = tree
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "TSBENCH_SIDE="+side.Name, "TSBENCH_COMMIT="+commit)
	if err := cmd.Run(); err != nil {
		return fail("the build command failed (%v); its log: %s%s", err, logPath, tail(logPath))
	}
	globs := DistGlobs
	if r.Build.Glob != "" {
		globs = []string{r.Build.Glob}
	}
	var found []string
	for _, g := range globs {
		m, _ := filepath.Glob(filepath.Join(tree, g))
		for _, p := range m {
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				found = append(found, p)
			}
		}
		if len(found) > 0 {
			break
		}
	}
	switch {
	case len(found) == 0:
		return fail("the build produced no distribution (looked for %s in %s)", strings.Join(globs, ", "), tree)
	case len(found) > 1:
		return fail("the build produced %d distributions (%s): say which with --dist-glob", len(found), strings.Join(found, ", "))
	}
	if err := os.WriteFile(done, []byte(found[0]+"\n"), 0o644); err != nil {
		return "", "", err
	}
	return commit, found[0], nil
}

// tail is the last lines of a build log, for the one line that says why.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return ": " + strings.TrimSpace(lines[len(lines)-1])
}
