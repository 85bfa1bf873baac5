package provision

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractIsTheRepositoryScripts: the binary carries the repository's
// scripts byte for byte, executable.
func TestExtractIsTheRepositoryScripts(t *testing.T) {
	dir, err := Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"iotdb", "elasticsearch", "opensearch"} {
		got, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "scripts", n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from scripts/%s", n, n)
		}
		if info, _ := os.Stat(filepath.Join(dir, n)); info.Mode()&0o100 == 0 {
			t.Errorf("%s is not executable", n)
		}
	}
	again, err := Extract(filepath.Dir(filepath.Dir(dir)))
	if err != nil || again != dir {
		t.Fatalf("extracted twice: %s, %v", again, err)
	}
}

func fakeIoTDB(t *testing.T, dir, setting string) {
	t.Helper()
	for name, body := range map[string]string{"lib/iotdb-server-2.0.10.jar": "jar", "conf/iotdb-system.properties": setting, "sbin/start.sh": "#!/bin/sh\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDetectAndChecksum: a distribution is known by its files; the sum is
// the same wherever it is unpacked and changes with any file.
func TestDetectAndChecksum(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	fakeIoTDB(t, a, "x=1\n")
	fakeIoTDB(t, b, "x=1\n")
	fakeIoTDB(t, c, "x=2\n")
	if k, err := Detect(a); err != nil || k != IoTDB {
		t.Fatalf("detect: %v %v", k, err)
	}
	es := t.TempDir()
	for _, d := range []string{"bin", "config"} {
		_ = os.MkdirAll(filepath.Join(es, d), 0o755)
	}
	_ = os.WriteFile(filepath.Join(es, "bin/opensearch"), nil, 0o755)
	if k, err := Detect(es); err != nil || k != OpenSearch {
		t.Fatalf("detect OpenSearch: %v %v", k, err)
	}
	if _, err := Detect(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is not an unpacked IoTDB, Elasticsearch or OpenSearch distribution") {
		t.Fatalf("an empty folder: %v", err)
	}
	sa, _ := Checksum(a)
	sb, _ := Checksum(b)
	sc, _ := Checksum(c)
	if sa != sb || sa == sc || len(sa) != 64 {
		t.Fatalf("sums %s %s %s", sa, sb, sc)
	}
}

// TestUnpack: zip and tar.gz archives unpack once by their checksum to the
// distribution's folder; an entry that leaves the folder is refused.
func TestUnpack(t *testing.T) {
	cache := t.TempDir()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{"apache-iotdb-2.0.10-all-bin/lib/iotdb-server-2.0.10.jar": "jar", "apache-iotdb-2.0.10-all-bin/conf/iotdb-system.properties": "x=1\n"} {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(body))
	}
	_ = zw.Close()
	zp := filepath.Join(t.TempDir(), "iotdb.zip")
	_ = os.WriteFile(zp, zb.Bytes(), 0o644)
	dir, err := Unpack(zp, cache)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "apache-iotdb-2.0.10-all-bin" {
		t.Fatalf("unpacked to %s", dir)
	}
	if again, err := Unpack(zp, cache); err != nil || again != dir {
		t.Fatalf("unpacked twice: %s, %v", again, err)
	}
	if k, err := Detect(dir); err != nil || k != IoTDB {
		t.Fatalf("detect the unpacked zip: %v %v", k, err)
	}
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	body := "evil"
	_ = tw.WriteHeader(&tar.Header{Name: "../../escape", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	_, _ = tw.Write([]byte(body))
	_ = tw.Close()
	_ = gz.Close()
	tp := filepath.Join(t.TempDir(), "evil.tar.gz")
	_ = os.WriteFile(tp, tb.Bytes(), 0o644)
	if _, err := Unpack(tp, cache); err == nil || !strings.Contains(err.Error(), "points outside the archive's folder") {
		t.Fatalf("a path out of the archive: %v", err)
	}
}

// TestCommandLines: the lifecycle commands the routine writes are one word
// per argument in a shell, and a description file round-trips.
func TestCommandLines(t *testing.T) {
	s := Server{Kind: IoTDB, Dist: "/builds/my build", Home: "/state/it's", Bench: "/usr/bin/bench", Properties: "a=1\nb=2"}
	p := filepath.Join(t.TempDir(), "it's here", "current.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil || back != s {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	line := SpecCommandLine("/opt/my tools/bench", "stop", p)
	got, err := exec.Command("sh", "-c", "set -- "+line+`; for a in "$@"; do printf '%s|' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "/opt/my tools/bench|server|stop|--spec|" + p + "|"; string(got) != want {
		t.Fatalf("%s\nsplits as %q, want %q", line, got, want)
	}
	_ = os.WriteFile(p, []byte(`{"Kind":"mysql"}`), 0o644)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "not a server tsbench provisions") {
		t.Fatalf("a bad description: %v", err)
	}
}

// TestCheckAndUseDist: bench server's settings are refused where the kind
// has no use for them, and a --dist must be of the kind named, a folder or
// an archive, never beside a version.
func TestCheckAndUseDist(t *testing.T) {
	for _, c := range []struct {
		s   Server
		err string
	}{
		{s: Server{Kind: IoTDB}},
		{s: Server{Kind: Elasticsearch, Port: 9201}},
		{s: Server{Kind: IoTDB, Properties: "a=1"}},
		{s: Server{Kind: IoTDB, Port: 6767}},
		{s: Server{Kind: IoTDB, Port: 60000}, err: "--port=60000: valid for IoTDB: 1024-55000"},
		{s: Server{Kind: OpenSearch, Port: 70000}, err: "--port=70000"},
		{s: Server{Kind: OpenSearch, Properties: "a=1"}, err: "--properties is for IoTDB"},
		{s: Server{Kind: Elasticsearch, Version: "8.19.21", Secure: true, User: "tsbench"}},
		{s: Server{Kind: Elasticsearch, Dist: "/builds/es7", Version: "", Secure: true, User: "elastic"}},
		{s: Server{Kind: Elasticsearch, Version: "7.17.29", Secure: true, User: "tsbench"}, err: "security (USE_SSL=true) on elasticsearch:7.17.29: the released zips before 8.x are the OSS build"},
		{s: Server{Kind: OpenSearch, Secure: true, User: "tsbench"}, err: "security (USE_SSL=true) on a opensearch the routine starts"},
		{s: Server{Kind: Elasticsearch, Secure: true}, err: "security (USE_SSL=true) on an Elasticsearch the routine starts needs the user"},
	} {
		if err := c.s.Check(); (err == nil) != (c.err == "") || err != nil && !strings.HasPrefix(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.err)
		}
	}
	dist := t.TempDir()
	fakeIoTDB(t, dist, "x=1\n")
	s := Server{Kind: IoTDB}
	if err := s.UseDist(dist, t.TempDir()); err != nil || s.Dist != dist {
		t.Errorf("an IoTDB folder: %v, dist %q", err, s.Dist)
	}
	s = Server{Kind: Elasticsearch}
	if err := s.UseDist(dist, t.TempDir()); err == nil || !strings.HasSuffix(err.Error(), "is a iotdb distribution, not elasticsearch") {
		t.Errorf("an IoTDB folder for Elasticsearch: %v", err)
	}
	s = Server{Kind: IoTDB, Version: "2.0.10"}
	if err := s.UseDist(dist, t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "give a VERSION or --dist=") {
		t.Errorf("a version and a dist: %v", err)
	}
	s = Server{Kind: IoTDB}
	if err := s.UseDist(t.TempDir(), t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "--dist: ") {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestFromArgsRefusals(t *testing.T) {
	for _, c := range []struct {
		action string
		args   []string
		a      Args
		want   string
	}{
		{"begin", []string{"iotdb"}, Args{}, `"begin" is not an action`},
		{"start", nil, Args{}, "name the server"},
		{"start", []string{"iotdb"}, Args{Spec: "s.json"}, "give only the action"},
		{"start", []string{"influxdb"}, Args{}, "influxdb"},
	} {
		_, err := FromArgs(c.action, c.args, c.a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v %+v: %v, want %q", c.action, c.args, c.a, err, c.want)
		}
	}
	s, err := FromArgs("where", []string{"iotdb", "1.3.7"}, Args{Home: "rel"})
	if err != nil || s.Version != "1.3.7" || !filepath.IsAbs(s.Home) {
		t.Errorf("where iotdb 1.3.7: %+v, %v", s, err)
	}
}

func TestClientSets(t *testing.T) {
	for _, c := range []struct {
		s    Server
		want string
	}{
		{Server{Kind: IoTDB}, "PORT=6667 IOTDB_METRICS_PORT=9092 IOTDB_CONFIGNODE_METRICS_PORT=9091"},
		{Server{Kind: IoTDB, Port: 6767}, "PORT=6767 IOTDB_METRICS_PORT=9192 IOTDB_CONFIGNODE_METRICS_PORT=9191"},
		{Server{Kind: Elasticsearch, Port: 9201}, "PORT=9201"},
		{Server{Kind: OpenSearch}, "PORT=9200"},
		{Server{Kind: Elasticsearch, Port: 9250, Home: "/state/a", Secure: true, User: "tsbench"}, "PORT=9250 ES_CA_FILE=/state/a/certs/ca.pem"},
	} {
		if got := strings.Join(c.s.ClientSets(), " "); got != c.want {
			t.Errorf("%+v: %s, want %s", c.s, got, c.want)
		}
	}
}

// TestSecureServer: a secured Elasticsearch's script is told the user and
// its password, a spec file never holds the password, and bench server
// --spec takes it from PasswordEnv.
func TestSecureServer(t *testing.T) {
	s := Server{Kind: Elasticsearch, Version: "8.19.21", Home: "/state/b", Port: 9251, Secure: true, User: "tsbench", Password: "s3cret-pw"}
	env := strings.Join(s.env(), " ")
	for _, want := range []string{"ES_SECURITY=1", "ES_USER=tsbench", "ES_USER_PASSWORD=s3cret-pw"} {
		if !strings.Contains(env, want) {
			t.Errorf("env %s: no %s", env, want)
		}
	}
	su := s
	su.User = "elastic"
	if env := strings.Join(su.env(), " "); !strings.Contains(env, "ES_ELASTIC_PASSWORD=s3cret-pw") || strings.Contains(env, "ES_USER") {
		t.Errorf("the superuser: env %s", env)
	}
	if env := strings.Join(Server{Kind: Elasticsearch}.env(), " "); strings.Contains(env, "ES_SECURITY") {
		t.Errorf("not secured: env %s", env)
	}
	p := filepath.Join(t.TempDir(), "current.json")
	if err := s.Save(p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || strings.Contains(string(b), "s3cret-pw") || !strings.Contains(string(b), `"Secure": true`) {
		t.Fatalf("the spec file holds %s (%v)", b, err)
	}
	t.Setenv(PasswordEnv, "s3cret-pw")
	back, err := FromArgs("start", nil, Args{Spec: p})
	if err != nil || back != s {
		t.Fatalf("bench server start --spec: %+v, %v, want %+v", back, err, s)
	}
}
