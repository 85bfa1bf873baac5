package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tsbench/tsbench/internal/gittest"
)

// TestWeeklyWorkflow runs the CI example's own shell steps against a
// stand-in for the IoTDB repository (a master branch and a pull/2689/head
// ref, as the documented input names it) and a stand-in for Maven whose
// build leaves an IoTDB-shaped distribution where IoTDB's does: the paths
// the workflow computes exist, each side resolves to the commit it names
// and builds, the PR side is never a release, the cron trigger (no PR ref)
// compares master with the release, and a PR ref that does not exist
// fails the job. bench routine runs for real up to its --dry-run.
func TestWeeklyWorkflow(t *testing.T) {
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "ci", "weekly-regression.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Dispatch struct {
				Inputs map[string]struct {
					Required bool `yaml:"required"`
				} `yaml:"inputs"`
			} `yaml:"workflow_dispatch"`
			Schedule []map[string]string `yaml:"schedule"`
		} `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if !wf.On.Dispatch.Inputs["pr_ref"].Required || len(wf.On.Schedule) != 1 || wf.Env["PR_REF"] != "${{ inputs.pr_ref }}" {
		t.Fatalf("triggers: %+v, env %v", wf.On, wf.Env)
	}
	var fetch, run string
	for _, s := range wf.Jobs["compare"].Steps {
		switch {
		case strings.HasPrefix(s.Name, "Fetch"):
			fetch = s.Run
		case s.Name == "The routine":
			run = s.Run
		}
	}
	if fetch == "" || run == "" {
		t.Fatal("the workflow lost its fetch or routine step")
	}

	// The stand-in IoTDB repository.
	origin := gittest.Init(t, "master")
	git := func(dir string, args ...string) string { t.Helper(); return gittest.Git(t, dir, args...) }
	_ = os.WriteFile(filepath.Join(origin, "version"), []byte("master\n"), 0o644)
	git(origin, "add", ".")
	git(origin, "commit", "-qm", "master")
	master := git(origin, "rev-parse", "HEAD")
	git(origin, "checkout", "-qb", "topic")
	_ = os.WriteFile(filepath.Join(origin, "version"), []byte("pr\n"), 0o644)
	git(origin, "commit", "-qam", "the PR")
	pr := git(origin, "rev-parse", "HEAD")
	git(origin, "update-ref", "refs/pull/2689/head", pr)
	git(origin, "checkout", "-q", "master")

	// go build makes a bench that runs this test's binary up to --dry-run;
	// mvn leaves a distribution where IoTDB's build leaves it.
	stubs := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("go", "#!/bin/sh\nprintf '#!/bin/sh\\necho \"$*\" >> \"$BENCH_ARGS\"\\nexec %s \"$@\" --dry-run\\n' \""+binary+"\" > bench\nchmod +x bench\n")
	write("mvn", "#!/bin/sh\nd=distribution/target/apache-iotdb-2.0.11-SNAPSHOT-all-bin/apache-iotdb-2.0.11-SNAPSHOT-all-bin\nmkdir -p $d/lib $d/conf\ncp version $d/lib/iotdb-server-2.0.11-SNAPSHOT.jar\n")

	step := func(home, prRef, script string) (string, error) {
		work := t.TempDir()
		// The checkout of tsbench the job runs in: its weekly.properties.
		cfg, _ := os.ReadFile(filepath.Join("..", "..", "examples", "weekly-iotdb.properties"))
		_ = os.WriteFile(filepath.Join(work, "weekly.properties"), cfg, 0o644)
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "IOTDB_GIT="+origin, "PR_REF="+prRef, "IOTDB_RELEASE="+wf.Env["IOTDB_RELEASE"],
			"PATH="+stubs+":"+os.Getenv("PATH"), "BENCH_ARGS="+filepath.Join(home, "args"), "TSBENCH_CACHE="+filepath.Join(home, "cache"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// A manual run: the PR against master.
	home := t.TempDir()
	if out, err := step(home, "pull/2689/head", fetch); err != nil {
		t.Fatalf("fetch: %v\n%s", err, out)
	}
	repo := filepath.Join(home, "iotdb")
	if got := git(repo, "rev-parse", "refs/tsbench/pr^{commit}"); got != pr {
		t.Fatalf("refs/tsbench/pr is %s, the PR is %s", got, pr)
	}
	if got := git(repo, "rev-parse", "refs/tsbench/master^{commit}"); got != master {
		t.Fatalf("refs/tsbench/master is %s, master is %s", got, master)
	}
	out, err := step(home, "pull/2689/head", run)
	if err != nil {
		t.Fatalf("the routine step: %v\n%s", err, out)
	}
	args, _ := os.ReadFile(filepath.Join(home, "args"))
	for _, want := range []string{"--baseline master=git:" + repo + "@refs/tsbench/master", "--contender pr=git:" + repo + "@refs/tsbench/pr", "--fail-above 10"} {
		if !strings.Contains(string(args), want) {
			t.Errorf("the routine's arguments %q lack %q", args, want)
		}
	}
	if strings.Contains(string(args), "pr=iotdb:") {
		t.Errorf("the PR side is a release: %s", args)
	}
	for name, commit := range map[string]string{"master": master, "pr": pr} {
		if !strings.Contains(out, "routine: "+name+": iotdb (commit "+commit[:12]) {
			t.Errorf("side %s did not build commit %s:\n%s", name, commit[:12], out)
		}
	}
	if !strings.Contains(out, "run 1: side ") || !strings.Contains(out, "(block 2, position 1)") || !strings.Contains(out, "--order-seed ") {
		t.Errorf("no balanced order:\n%s", out)
	}

	// The weekly trigger: no PR ref; master against the release.
	cron := t.TempDir()
	if out, err := step(cron, "", fetch); err != nil {
		t.Fatalf("fetch without a PR: %v\n%s", err, out)
	}
	if err := exec.Command("git", "-C", filepath.Join(cron, "iotdb"), "rev-parse", "--verify", "--quiet", "refs/tsbench/pr").Run(); err == nil {
		t.Errorf("the cron run fetched a PR")
	}
	// The release is not downloaded here: only its arguments are checked.
	write("go", "#!/bin/sh\nprintf '#!/bin/sh\\necho \"$*\" >> \"$BENCH_ARGS\"\\n' > bench\nchmod +x bench\n")
	if out, err := step(cron, "", run); err != nil {
		t.Fatalf("the routine step without a PR: %v\n%s", err, out)
	}
	args, _ = os.ReadFile(filepath.Join(cron, "args"))
	if !strings.Contains(string(args), "--baseline release=iotdb:"+wf.Env["IOTDB_RELEASE"]) || !strings.Contains(string(args), "--contender master=git:"+filepath.Join(cron, "iotdb")+"@refs/tsbench/master") {
		t.Errorf("the cron run's sides: %s", args)
	}

	// A PR ref that does not exist fails the job before the routine.
	if out, err := step(t.TempDir(), "pull/9999/head", fetch); err == nil {
		t.Errorf("a missing PR ref was fetched:\n%s", out)
	}
}
