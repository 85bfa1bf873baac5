package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/record"
)

// TestKubernetesIndexedJob runs deploy/kubernetes on a real Kubernetes: the
// single node of scripts/kube-local, the image built from the Dockerfile
// and imported into it, the shipped manifests with their placeholders
// filled as docs/distributed.md says, and a kustomization of what a run on
// that node changes: the pods use the host's network and ask for a tenth
// of a CPU each (kubePatches), and the ConfigMap names the server and a
// smaller workload (setKeys). Against the IoTDB and the Elasticsearch of the
// test suite, three instances run as an Indexed Job; the records they
// write to the shared volume (a hostPath PersistentVolume) are merged by
// the merge Job, whose merge must hold every instance's points.
//
// Not in CI: building Kubernetes takes about 5 minutes the first time,
// and the run about 2 more, where CI has about 7 left under its 50
// (docs/distributed.md).
// tools/kube-proof starts what it needs and runs it.
func TestKubernetesIndexedJob(t *testing.T) {
	kubeconfig := os.Getenv("TSBENCH_KUBE")
	if kubeconfig == "" || os.Getenv("TSBENCH_DOCKER") == "" {
		t.Skip("needs a Kubernetes (bash scripts/kube-local up, then TSBENCH_KUBE=the KUBECONFIG it prints), a container engine (TSBENCH_DOCKER=1) and TSBENCH_IOTDB, TSBENCH_ES; tools/kube-proof does all of it; not in CI (docs/distributed.md)")
	}
	image := containerImage(t)
	archive := filepath.Join(t.TempDir(), "image.tar")
	if out, err := exec.Command("docker", "save", "-o", archive, image).CombinedOutput(); err != nil {
		t.Fatalf("docker save: %v\n%s", err, out)
	}
	if out, err := exec.Command("bash", filepath.Join("..", "..", "scripts", "kube-local"), "import", archive).CombinedOutput(); err != nil {
		t.Fatalf("scripts/kube-local import: %v\n%s", err, out)
	}
	k := kube{t: t, config: kubeconfig}
	for _, c := range []struct {
		name, env string
		sets      map[string]string
	}{
		{"iotdb", "TSBENCH_IOTDB", map[string]string{"DB_NAME": "kube"}},
		{"elasticsearch", "TSBENCH_ES", map[string]string{"DB_SWITCH": "Elasticsearch", "DB_NAME": "tsbench_kube", "USERNAME": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := os.Getenv(c.env)
			if addr == "" {
				t.Fatalf("%s is not set: the test runs the Job against the suite's %s", c.env, c.name)
			}
			host, port, _ := strings.Cut(addr, ":")
			c.sets["HOST"], c.sets["PORT"] = host, port
			k.t = t
			k.run(c.name, image, c.sets)
		})
	}
}

// kube runs kubectl against one cluster.
type kube struct {
	t      *testing.T
	config string
}

// command is kubectl with args: scripts/kube-local's own (its bin folder
// beside its kubeconfigs), else the one on PATH.
func (k kube) command(args ...string) *exec.Cmd {
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", k.config}, args...)...)
	if path, err := exec.LookPath(filepath.Join(filepath.Dir(filepath.Dir(k.config)), "bin", "kubectl")); err == nil {
		cmd.Path = path
	}
	return cmd
}

// kubectl runs kubectl with args and stdin, fails the test unless it
// succeeds, and returns its output.
func (k kube) kubectl(stdin string, args ...string) string {
	k.t.Helper()
	cmd := k.command(args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// run makes one distributed run on the cluster in a namespace of its own:
// the shipped steps (clean, the Indexed Job, merge) in the order
// docs/distributed.md gives, then the records' check.
func (k kube) run(name, image string, sets map[string]string) {
	t := k.t
	ns := fmt.Sprintf("tsbench-%s-%d", name, os.Getpid())
	label := "kube-" + name
	results := t.TempDir()
	if err := os.Chmod(results, 0o777); err != nil { // the image runs as 65532
		t.Fatal(err)
	}
	k.kubectl("", "create", "namespace", ns)
	t.Cleanup(func() {
		k.command("delete", "namespace", ns, "--wait=false").Run()
		k.command("delete", "pv", ns).Run()
	})
	// The volume the claim of results-pvc.yaml binds: a folder of this
	// host, as a cluster's ReadWriteMany storage class would provide.
	k.kubectl(fmt.Sprintf(`apiVersion: v1
kind: PersistentVolume
metadata: {name: %s}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  claimRef: {namespace: %s, name: tsbench-results}
  hostPath: {path: %s, type: Directory}
`, ns, ns, results), "apply", "-f", "-")
	if name == "iotdb" {
		k.kubectl("", "-n", ns, "create", "secret", "generic", "tsbench-db", "--from-literal=password=root")
	}
	fill := map[string]string{"${IMAGE}": image, "${RUN_LABEL}": label}
	apply := func(step string) {
		dir := kustomization(t, ns, fill, sets, "configmap.yaml", "results-pvc.yaml", step)
		k.kubectl("", "apply", "-k", dir)
	}
	wait := func(job string, limit time.Duration) {
		start := time.Now()
		out := k.kubectl("", "-n", ns, "wait", "--for=condition=complete", "job/"+job, "--timeout="+limit.String())
		t.Logf("%s (%.0f s)", strings.TrimSpace(out), time.Since(start).Seconds())
	}
	apply("clean-job.yaml")
	wait("tsbench-clean", 3*time.Minute)
	// Time for every pod to be scheduled, started and to create its schema.
	fill["${START_AT}"] = time.Now().Add(40 * time.Second).UTC().Format(time.RFC3339)
	apply("job.yaml")
	wait("tsbench-run", 5*time.Minute)
	t.Logf("the run's pods:\n%s", k.kubectl("", "-n", ns, "get", "pods", "-l", "job-name=tsbench-run",
		"-o", "custom-columns=POD:.metadata.name,INDEX:.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index,STATUS:.status.phase"))
	apply("merge-job.yaml")
	wait("tsbench-merge", 3*time.Minute)
	logs := k.kubectl("", "-n", ns, "logs", "job/tsbench-merge", "-c", "merge")
	if !strings.Contains(logs, "Result Matrix") {
		t.Errorf("the merge Job's log holds no Result Matrix:\n%s", logs)
	}
	store := record.Store{Dir: results}
	instances, _, err := store.Find(label)
	if err != nil || len(instances) != 3 {
		t.Fatalf("%d records labelled %s on the volume, want 3 (%v)", len(instances), label, err)
	}
	merged, _, err := store.Find(label + "-merged")
	if err != nil || len(merged) != 1 {
		t.Fatalf("the merged record on the volume: %d (%v)", len(merged), err)
	}
	for _, r := range instances {
		if r.Instance == nil || r.Config["DB_SWITCH"] == "" || !strings.HasPrefix(r.Config["HOST"], sets["HOST"]) {
			t.Fatalf("instance record %s: %+v, config %v", r.ID, r.Instance, r.Config)
		}
	}
	adaptertest.CheckMerged(t, instances, merged[0])
	if _, err := os.Stat(filepath.Join(results, label+"-merged.html")); err != nil {
		t.Errorf("the merge Job's report: %v", err)
	}
	t.Logf("%s: 3 instances and their merge on the volume; the merge Job's log:\n%s", name, logs)
}

// kustomization writes the shipped manifests, their placeholders filled as
// envsubst would, into a folder with a kustomization.yaml that puts them in
// namespace ns and makes the changes a run on scripts/kube-local's node
// needs, and returns the folder.
func kustomization(t *testing.T, ns string, fill, sets map[string]string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	placeholder := regexp.MustCompile(`\$\{[A-Z_]+\}`)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", f))
		if err != nil {
			t.Fatal(err)
		}
		s := placeholder.ReplaceAllStringFunc(string(b), func(p string) string {
			v, ok := fill[p]
			if !ok {
				t.Fatalf("%s: placeholder %s has no value yet", f, p)
			}
			return v
		})
		if f == "configmap.yaml" {
			s = setKeys(t, s, sets)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := fmt.Sprintf("namespace: %s\nresources: [%s]\n%s", ns, strings.Join(files, ", "), kubePatches)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// kubePatches are what a run on one small node changes in the shipped
// Jobs: no pod network there, so the pods use the host's (and reach the
// servers on 127.0.0.1); two CPUs an instance do not fit three instances on
// two cores.
const kubePatches = `patches:
  - target: {kind: Job}
    patch: |
      - {op: add, path: /spec/template/spec/hostNetwork, value: true}
      - {op: add, path: /spec/template/spec/dnsPolicy, value: ClusterFirstWithHostNet}
  - target: {kind: Job, name: tsbench-run}
    patch: |
      - {op: replace, path: /spec/template/spec/containers/0/resources/requests/cpu, value: 100m}
`

// setKeys sets keys of the config.properties that configmap.yaml holds
// (an empty value removes the key) and adds a workload small enough for a
// test: every other line stays as shipped.
func setKeys(t *testing.T, manifest string, sets map[string]string) string {
	t.Helper()
	small := map[string]string{"GROUP_NUMBER": "2", "DEVICE_NUMBER": "4", "SENSOR_NUMBER": "5", "DATA_CLIENT_NUMBER": "2",
		"BATCH_SIZE_PER_WRITE": "10", "LOOP": "40", "QUERY_SENSOR_NUM": "2"}
	want := maps.Clone(small)
	maps.Copy(want, sets)
	var out []string
	indent := ""
	for _, line := range strings.Split(manifest, "\n") {
		key, _, ok := strings.Cut(strings.TrimSpace(line), "=")
		if v, set := want[key]; ok && set && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
			delete(want, key)
			if v != "" {
				out = append(out, indent+key+"="+v)
			}
			continue
		}
		out = append(out, line)
	}
	if indent == "" {
		t.Fatal("configmap.yaml holds none of the keys a run changes: its config.properties has moved")
	}
	// Keys the shipped config does not have go at its end.
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if want[k] != "" {
			out = append(out, indent+k+"="+want[k])
		}
	}
	return strings.Join(out, "\n") + "\n"
}
