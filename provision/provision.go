// Package provision starts and stops the servers tsbench measures, on this
// machine, with the scripts the bench binary carries (package scripts):
// IoTDB, Elasticsearch and OpenSearch, from a released version, an unpacked
// distribution or an archive of one, each with a state folder of its own.
// It also finds what a distribution is and sums its files, so that a record
// can say which build it measured.
package provision

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/scripts"
)

// Kind is a server tsbench can provision.
type Kind string

// The kinds, named as their scripts are.
const (
	IoTDB         Kind = "iotdb"
	Elasticsearch Kind = "elasticsearch"
	OpenSearch    Kind = "opensearch"
)

// Kinds lists them, for help texts and refusals.
var Kinds = []Kind{IoTDB, Elasticsearch, OpenSearch}

// ParseKind reads a kind as a user writes it.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if strings.EqualFold(s, string(k)) {
			return k, nil
		}
	}
	return "", fmt.Errorf("%q is not a server tsbench provisions (valid: iotdb, elasticsearch, opensearch)", s)
}

// Server is one server on 127.0.0.1, as its script runs it.
type Server struct {
	Kind Kind
	// Version is a released version the script fetches; empty means the
	// script's default, unless Dist is set.
	Version string
	// Dist is an unpacked distribution to run instead: a build of your own.
	Dist string
	// Home is the state folder (configuration, data, logs); empty means the
	// script's default.
	Home string
	// Port is the port clients connect to (0: the default, 9200 for
	// Elasticsearch and OpenSearch, 6667 for IoTDB). An IoTDB node's other
	// ports move with it (IOTDB_PORT in scripts/iotdb), and an
	// Elasticsearch node's transport port is Port+100: two servers of a
	// kind run side by side on ports of their own.
	Port int
	// Properties are extra lines for IoTDB's iotdb-system.properties.
	Properties string
	// Bench is the bench binary that runs the script: IoTDB's start probes
	// the server with it (bench server probe).
	Bench string
	// Cache is tsbench's cache folder (TSBENCH_CACHE, ~/.cache/tsbench).
	Cache string
	// Secure starts an Elasticsearch with security on (the script's
	// ES_SECURITY): HTTPS with a CA made in the state folder (CAFile), and
	// User, whose password is Password: the user a run connects as.
	Secure bool   `json:",omitempty"`
	User   string `json:",omitempty"`
	// Password is User's. It is never saved (Save): who loads a spec file
	// takes it from the environment variable PasswordEnv.
	Password string `json:"-"`
}

// PasswordEnv is the environment variable that gives a secured server's
// user password to bench server --spec: the routine sets it for the
// commands a run restarts its server with, so that no file holds it.
const PasswordEnv = "TSBENCH_SERVER_PASSWORD"

// Superuser is the name of Elasticsearch's built-in superuser, whose
// password the script sets as the bootstrap password.
const Superuser = "elastic"

// UserIndices starts the names of the indices on which the script's role
// for any other user (tsbench_writer) grants every privilege.
const UserIndices = "tsbench"

// Check refuses settings the server's kind has no use for (properties are
// IoTDB's) and ports it cannot take. The messages name bench server's
// flags.
func (s Server) Check() error {
	switch {
	case s.Port < 0 || s.Port > 65535:
		return fmt.Errorf("--port=%d: valid: 1-65535", s.Port)
	case s.Kind == IoTDB && s.Port != 0 && (s.Port < 1024 || s.Port > 55000):
		return fmt.Errorf("--port=%d: valid for IoTDB: 1024-55000 (the node's other ports, 10710-10760 by default, move with it)", s.Port)
	}
	if s.Properties != "" && s.Kind != IoTDB {
		return fmt.Errorf("--properties is for IoTDB (its iotdb-system.properties)")
	}
	if s.Secure {
		return s.checkSecure()
	}
	return nil
}

// checkSecure refuses security where the script cannot turn it on:
// OpenSearch's zip has no security plugin, and Elasticsearch's released
// zips before 8.x are the OSS build (a distribution of the default build
// of any version may have it: the script checks its files).
func (s Server) checkSecure() error {
	major, _, _ := strings.Cut(s.Version, ".")
	switch {
	case s.Kind != Elasticsearch:
		return fmt.Errorf("security (USE_SSL=true) on a %s the routine starts: only Elasticsearch's distributions have it here (OpenSearch's zip has no security plugin); valid: USE_SSL=false, an elasticsearch side, or an external side", s.Kind)
	case s.Dist == "" && (major == "6" || major == "7"):
		return fmt.Errorf("security (USE_SSL=true) on elasticsearch:%s: the released zips before 8.x are the OSS build, which has none; valid: 8.x or 9.x, a distribution of the default build, or USE_SSL=false", s.Version)
	case s.User == "":
		return fmt.Errorf("security (USE_SSL=true) on an Elasticsearch the routine starts needs the user to make on it: valid: USERNAME and PASSWORD (e.g. tsbench and its password)")
	}
	return nil
}

// CAFile is the CA a secured server's certificate is signed by, made in
// its state folder: what a run trusts (ES_CA_FILE).
func (s Server) CAFile() string {
	if !s.Secure || s.Home == "" {
		return ""
	}
	return filepath.Join(s.Home, "certs", "ca.pem")
}

// TrustSets are the keys a run sets to trust a secured server's
// certificate (its CA, ES_CA_FILE); none for a server without security.
func (s Server) TrustSets() []string {
	if ca := s.CAFile(); ca != "" {
		return []string{"ES_CA_FILE=" + ca}
	}
	return nil
}

// UseDist makes dist (a folder, or an archive unpacked once into cache)
// the distribution the server runs, refusing one of another kind and a
// version given beside it.
func (s *Server) UseDist(dist, cache string) error {
	if s.Version != "" {
		return fmt.Errorf("give a VERSION or --dist=%s, not both", dist)
	}
	dir := dist
	if IsArchive(dir) {
		var err error
		if dir, err = Unpack(dist, cache); err != nil {
			return fmt.Errorf("--dist=%s: %w", dist, err)
		}
	}
	found, err := Detect(dir)
	if err != nil {
		return fmt.Errorf("--dist: %w", err)
	}
	if found != s.Kind {
		return fmt.Errorf("--dist=%s is a %s distribution, not %s", dist, found, s.Kind)
	}
	s.Dist, err = filepath.Abs(dir)
	return err
}

// Actions are what a script does.
var Actions = []string{"start", "stop", "status", "wipe", "install", "where"}

// Args are bench server's flags: the server by its name and version
// (with Dist, Home, Port and Properties) or by a spec file (Spec) as bench
// routine writes it.
type Args struct {
	Dist, Home, Properties, Spec string
	Port                         int
	// Bench is the bench binary, which IoTDB's script calls to probe.
	Bench string
}

// FromArgs is the server bench server's action and arguments (the
// server's name and version) describe with the flags; every error is the
// user's input.
func FromArgs(action string, args []string, a Args) (Server, error) {
	if !slices.Contains(Actions, action) {
		return Server{}, fmt.Errorf("%q is not an action of bench server (valid: start, stop, status, wipe, install, where)", action)
	}
	if a.Spec != "" {
		if len(args) != 0 {
			return Server{}, fmt.Errorf("--spec %s describes the server: give only the action (bench server %s --spec FILE)", a.Spec, action)
		}
		s, err := Load(a.Spec)
		if err == nil && s.Secure {
			s.Password = os.Getenv(PasswordEnv)
		}
		return s, err
	}
	if len(args) == 0 {
		return Server{}, fmt.Errorf("bench server %s: name the server (iotdb, elasticsearch or opensearch)", action)
	}
	k, err := ParseKind(args[0])
	if err != nil {
		return Server{}, err
	}
	s := Server{Kind: k, Home: a.Home, Port: a.Port, Properties: a.Properties, Bench: a.Bench}
	if len(args) == 2 {
		s.Version = args[1]
	}
	if err := s.Check(); err != nil {
		return s, err
	}
	if a.Home != "" {
		if s.Home, err = filepath.Abs(a.Home); err != nil {
			return s, err
		}
	}
	if a.Dist != "" {
		if err := s.UseDist(a.Dist, DefaultCache()); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Run runs the server's script with action, its lines to stdout and stderr.
func (s Server) Run(ctx context.Context, action string, stdout, stderr io.Writer) error {
	dir, err := Extract(s.cache())
	if err != nil {
		return err
	}
	args := []string{filepath.Join(dir, string(s.Kind)), action}
	if (action == "start" || action == "install" || action == "where") && s.Version != "" && s.Dist == "" {
		args = append(args, s.Version)
	}
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Env = append(os.Environ(), s.env()...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && action == "status":
			// The script's status exits 1 for a server that is not up, and
			// has said what it found.
			return fmt.Errorf("%s is not running (above: what its script found)", s.Kind)
		case errors.As(err, &ee):
			return fmt.Errorf("%s %s failed: its script exited with status %d (its messages are above)", s.Kind, action, ee.ExitCode())
		}
		return fmt.Errorf("%s %s: %w", s.Kind, action, err)
	}
	return nil
}

// Installed is the folder the script unpacked a released version into
// (installing it first), for the checksum of what a run measured.
func (s Server) Installed(ctx context.Context, stderr io.Writer) (string, error) {
	if s.Dist != "" {
		return s.Dist, nil
	}
	dir, err := Extract(s.cache())
	if err != nil {
		return "", err
	}
	args := []string{filepath.Join(dir, string(s.Kind)), "where"}
	if s.Version != "" {
		args = append(args, s.Version)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Env = append(os.Environ(), s.env()...)
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install %s %s: %w", s.Kind, s.Version, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// Save writes the server's description to path (JSON, atomically), for
// SpecCommandLine: bench routine keeps the side that runs now there, so
// that every side's runs have the same STOP_COMMAND and START_COMMAND (keys
// of the workload) while each starts its own build.
func (s Server) Save(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write the server's description: %w", err)
	}
	return os.Rename(tmp, path)
}

// Load reads what Save wrote.
func Load(path string) (Server, error) {
	var s Server
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("read the server's description: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read the server's description %s: %w", path, err)
	}
	if _, err := ParseKind(string(s.Kind)); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// SpecCommandLine is the shell command that runs action on the server
// described in the file path (Save) through the bench binary.
func SpecCommandLine(bench, action, path string) string {
	return Quote(bench) + " server " + action + " --spec " + Quote(path)
}

// Quote makes s one word for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (s Server) cache() string {
	if s.Cache != "" {
		return s.Cache
	}
	return DefaultCache()
}

// StateFolder is where a server's state folder named name goes when its
// caller would put it under dir: there, except for Elasticsearch and
// OpenSearch run as root, whose node runs as its own user and cannot enter
// root's home (/root/...): theirs go under /var/lib/tsbench, as the
// script's own default does.
func StateFolder(k Kind, dir, name string) string {
	if k != IoTDB && os.Geteuid() == 0 {
		h := sha256.Sum256([]byte(dir))
		return filepath.Join("/var/lib/tsbench", "routine-"+hex.EncodeToString(h[:])[:12], name)
	}
	return filepath.Join(dir, name)
}

// DefaultCache is TSBENCH_CACHE, or ~/.cache/tsbench as the scripts use.
func DefaultCache() string {
	if c := os.Getenv("TSBENCH_CACHE"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "tsbench-cache")
	}
	return filepath.Join(home, ".cache", "tsbench")
}

// DefaultPort is where a kind's clients connect when Port is 0.
func DefaultPort(k Kind) int {
	if k == IoTDB {
		return 6667
	}
	return 9200
}

// PortStride is how far apart two servers of a kind listen when they run
// side by side: an IoTDB node's ports (6667, 9091, 9092, 10710-10760 by
// default) all move with Port and are 10 or more apart from 10710 up, so
// the next node moves them by 100; an Elasticsearch node's are Port and
// its transport port, Port+100, so the next may be Port+1.
func PortStride(k Kind) int {
	if k == IoTDB {
		return 100
	}
	return 1
}

// ClientSets are the keys a run sets to reach the server and read its
// telemetry on the ports it listens on: PORT, and for IoTDB the
// Prometheus reporters' ports, which move with it.
func (s Server) ClientSets() []string {
	port := cmp.Or(s.Port, DefaultPort(s.Kind))
	sets := []string{"PORT=" + strconv.Itoa(port)}
	sets = append(sets, s.TrustSets()...)
	if s.Kind == IoTDB {
		shift := port - DefaultPort(IoTDB)
		sets = append(sets, "IOTDB_METRICS_PORT="+strconv.Itoa(9092+shift), "IOTDB_CONFIGNODE_METRICS_PORT="+strconv.Itoa(9091+shift))
	}
	return sets
}

// env is what the script reads (see the header of each script).
func (s Server) env() []string {
	env := []string{"TSBENCH_CACHE=" + s.cache()}
	if s.Bench != "" {
		env = append(env, "TSBENCH_BENCH="+s.Bench)
	}
	switch s.Kind {
	case IoTDB:
		if s.Version != "" {
			env = append(env, "IOTDB_VERSION="+s.Version)
		}
		env = append(env, "IOTDB_DIST="+s.Dist)
		if s.Home != "" {
			env = append(env, "IOTDB_HOME_DIR="+s.Home)
		}
		if s.Properties != "" {
			env = append(env, "IOTDB_PROPERTIES="+s.Properties)
		}
		if s.Port != 0 {
			env = append(env, "IOTDB_PORT="+strconv.Itoa(s.Port))
		}
	default:
		if s.Version != "" {
			env = append(env, "ES_VERSION="+s.Version)
		}
		env = append(env, "ES_DIST_DIR="+s.Dist)
		if s.Home != "" {
			env = append(env, "ES_HOME_DIR="+s.Home)
		}
		if s.Port != 0 {
			env = append(env, "ES_PORT="+strconv.Itoa(s.Port))
		}
		if s.Secure {
			env = append(env, "ES_SECURITY=1")
			switch {
			case s.User == Superuser && s.Password != "":
				env = append(env, "ES_ELASTIC_PASSWORD="+s.Password)
			case s.User != Superuser:
				env = append(env, "ES_USER="+s.User)
				if s.Password != "" {
					env = append(env, "ES_USER_PASSWORD="+s.Password)
				}
			}
		}
	}
	return env
}

// Extract writes the carried scripts into cache/scripts/<their hash>/ once
// and returns that folder: the same bytes as the repository's scripts/.
func Extract(cache string) (string, error) {
	h := sha256.New()
	names := []string{"iotdb", "elasticsearch", "opensearch"}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := fs.ReadFile(scripts.Provisioning, n)
		if err != nil {
			return "", fmt.Errorf("the binary's script %s: %w", n, err)
		}
		files[n] = b
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	dir := filepath.Join(cache, "scripts", hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write the provisioning scripts: %w", err)
	}
	for _, n := range names {
		tmp := filepath.Join(dir, n+".tmp"+strconv.Itoa(os.Getpid()))
		if err := os.WriteFile(tmp, files[n], 0o755); err != nil {
			return "", fmt.Errorf("write the provisioning scripts: %w", err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, n)); err != nil {
			return "", fmt.Errorf("write the provisioning scripts: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
		return "", fmt.Errorf("write the provisioning scripts: %w", err)
	}
	return dir, nil
}

// Detect says which server an unpacked distribution is, by its files.
func Detect(dir string) (Kind, error) {
	is := func(p string) bool { _, err := os.Stat(filepath.Join(dir, p)); return err == nil }
	jars, _ := filepath.Glob(filepath.Join(dir, "lib", "iotdb-server-*.jar"))
	switch {
	case len(jars) > 0 && is("conf"):
		return IoTDB, nil
	case is("bin/opensearch") && is("config"):
		return OpenSearch, nil
	case is("bin/elasticsearch") && is("config"):
		return Elasticsearch, nil
	}
	return "", fmt.Errorf("%s is not an unpacked IoTDB, Elasticsearch or OpenSearch distribution (IoTDB: lib/iotdb-server-*.jar and conf/; Elasticsearch: bin/elasticsearch and config/; OpenSearch: bin/opensearch and config/)", dir)
}

// Checksum is sha256 over a distribution's files: every relative path, in
// order, with its contents (a link: its target). The same build gives the
// same sum wherever it is unpacked; any changed file changes it.
func Checksum(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "L %s %s\n", filepath.ToSlash(rel), t)
		case d.Type().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			info, err := f.Stat()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "F %s %d\n", filepath.ToSlash(rel), info.Size())
			if _, err := io.Copy(h, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("sum the files of %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
