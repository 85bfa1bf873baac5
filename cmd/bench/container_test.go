package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestContainerImage builds the container image for real and runs it: the
// final stage of the Dockerfile (FROM scratch, the user-facing file as it
// is) from a static binary built on the host — base images cannot be
// pulled here, so the build stage's work is done by go build — and
// docker run --network host of the image completes a run against the
// Elasticsearch of the test suite, its record written into a mounted
// folder. scripts/docker-engine starts the engine; scripts/test sets
// TSBENCH_DOCKER=1 then.
func TestContainerImage(t *testing.T) {
	es := os.Getenv("TSBENCH_ES")
	if os.Getenv("TSBENCH_DOCKER") == "" || es == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs the container image's test: TSBENCH_DOCKER=1 (scripts/docker-engine start) and TSBENCH_ES are needed")
		}
		t.Skip("needs a container engine and Elasticsearch: bash scripts/docker-engine start && scripts/elasticsearch start, then TSBENCH_DOCKER=1 TSBENCH_ES=127.0.0.1:9200")
	}
	image := containerImage(t)

	work := t.TempDir()
	if err := os.Chmod(work, 0o777); err != nil { // the image runs as 65532
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join("..", "..", "examples", "elasticsearch.properties"))
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(es, ":")
	if err := os.WriteFile(filepath.Join(work, "es.properties"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command("docker", "run", "--rm", "--network", "host", "-v", work+":/work", image,
		"-c", "/work/es.properties", "--set", "HOST="+host, "--set", "PORT="+port, "--set", "LOOP=24", "--set", "DB_NAME=tsbench_container",
		"--set", "RESULTS_DIR=/work/results", "--label", "container")
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("docker run: %v\n%s", err, out)
	}
	recs := records(t, filepath.Join(work, "results"))
	if len(recs) != 1 || recs[0].Status != "complete" || recs[0].Label != "container" || recs[0].Target.Build == "" {
		t.Fatalf("records %+v\n%s", recs, out)
	}
	if !strings.Contains(string(out), "Result Matrix") {
		t.Fatalf("no Result Matrix in the container's output:\n%s", out)
	}
}

// containerImage builds the image of the Dockerfile's final stage (FROM
// scratch, the user-facing file as it is) from a static binary built on the
// host, base images not being pullable here: the build stage's work is done
// by go build. It returns the image's name, removed when the test ends.
func containerImage(t *testing.T) string {
	t.Helper()
	ctx := t.TempDir()
	// The final stage, COPY --from=build SRC DST made COPY out/SRC DST.
	f, err := os.Open(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stage []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "FROM ") {
			stage = nil
		}
		stage = append(stage, line)
	}
	if len(stage) == 0 || stage[0] != "FROM scratch" {
		t.Fatalf("the Dockerfile's final stage is %q, not FROM scratch: the test builds it from nothing but the binary", stage)
	}
	var df []string
	for _, line := range stage {
		if fields := strings.Fields(line); len(fields) >= 4 && fields[0] == "COPY" && slicesHas(fields, "--from=build") {
			src := fields[len(fields)-2]
			local := filepath.Join(ctx, "out", src)
			switch {
			case src == "/out/bench":
				gb := exec.Command("go", "build", "-trimpath", "-o", local, ".")
				gb.Env = append(os.Environ(), "CGO_ENABLED=0") // FROM scratch: no C library
				if out, err := gb.CombinedOutput(); err != nil {
					t.Fatalf("build the static binary: %v\n%s", err, out)
				}
			case strings.HasPrefix(src, "/etc/"):
				copyFile(t, src, local)
			default:
				if err := os.MkdirAll(local, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var kept []string
			for _, w := range fields {
				if w != "--from=build" {
					kept = append(kept, w)
				}
			}
			kept[len(kept)-2] = "out" + src
			line = strings.Join(kept, " ")
		}
		df = append(df, line)
	}
	if err := os.WriteFile(filepath.Join(ctx, "Dockerfile"), []byte(strings.Join(df, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	image := fmt.Sprintf("tsbench-test:%d-%s", os.Getpid(), strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")))
	build := exec.Command("docker", "build", "-q", "-t", image, ctx)
	build.Env = append(os.Environ(), "DOCKER_BUILDKIT=0") // the classic builder needs no helper image
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "rmi", "-f", image).Run() })
	return image
}

func slicesHas(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatalf("the image needs %s from the host: %v", from, err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
