package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tsbench/tsbench/config"
)

// TestKubernetesManifestsAgree checks what a schema cannot: the Indexed
// Job runs as many pods as the ConfigMap's config has instances, every pod
// at once, and that config is one bench accepts (a dry run of it plans a
// distributed run). tools/kube-validate checks the manifests' schema.
func TestKubernetesManifestsAgree(t *testing.T) {
	dir := filepath.Join("..", "..", "deploy", "kubernetes")
	read := func(name string, v any) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var job struct {
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Parallelism    int    `yaml:"parallelism"`
			BackoffLimit   *int   `yaml:"backoffLimit"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Args []string `yaml:"args"`
						Env  []struct {
							Name string `yaml:"name"`
						} `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	read("job.yaml", &job)
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	read("configmap.yaml", &cm)
	text := cm.Data["config.properties"]
	l, err := config.Load(config.Source{Data: []byte(text), NoEnv: true, Catalog: registry()})
	if err != nil {
		t.Fatalf("the ConfigMap's config.properties: %v", err)
	}
	c := l.Config
	s := job.Spec
	if s.CompletionMode != "Indexed" || s.Completions != c.BenchmarkInstances || s.Parallelism != s.Completions || !c.Distributed() {
		t.Errorf("job.yaml runs %d completions, %d at once (%s); the config has BENCHMARK_CLUSTER=%v, BENCHMARK_INSTANCES=%d",
			s.Completions, s.Parallelism, s.CompletionMode, c.BenchmarkCluster, c.BenchmarkInstances)
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Error("a retried instance starts after --start-at and fails: backoffLimit must be 0")
	}
	ctr := s.Template.Spec.Containers[0]
	env := ""
	for _, e := range ctr.Env {
		env += e.Name + " "
	}
	if !strings.Contains(env, "TSBENCH_START_AT") || ctr.Args[0] != "run" {
		t.Errorf("the instance container: args %q, env %s", ctr.Args, env)
	}
	// The pod's command line, as bench sees it, on the ConfigMap's file;
	// instance 2 of 3 from the pod index.
	cfg := filepath.Join(t.TempDir(), "config.properties")
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{}, ctr.Args...)
	for i, a := range args {
		if a == "/config/config.properties" {
			args[i] = cfg
		}
		args[i] = strings.ReplaceAll(args[i], "${RUN_LABEL}", "k8s-test")
	}
	r := benchEnv(t, []string{"JOB_COMPLETION_INDEX=2"}, append(args, "--dry-run")...)
	if r.code != 0 || !strings.Contains(r.stderr, "BENCHMARK_INDEX=2 from JOB_COMPLETION_INDEX") || !strings.Contains(r.stdout, "bench clean") {
		t.Errorf("bench %s --dry-run: exit %d\n%s\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
}
