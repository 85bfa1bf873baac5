package adaptertest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// KeyWalk proves that every key it is given changes what a run does: each
// key's configuration is probed against the same configuration without it,
// and the two effects must differ. A probe runs whatever shows the effect
// (the bench binary against a capture of what reaches the server, a dry
// run, a run's record) and returns it as text; two probes of one
// configuration must return the same text, which the walk checks first.
type KeyWalk struct {
	// Keys are the keys to walk, each with the sets that give it a value
	// other than its default. A set of the key itself is its change; other
	// sets are the context the change needs, present on both sides; a set
	// marked + changes with the key, one marked ^ belongs to the context
	// even though it names the key (the value the change starts from).
	Keys map[string][]string
	// Probe runs one configuration (the context and the change as
	// KEY=VALUE sets); refused says the configuration did not load, which
	// proves no effect.
	Probe func(t *testing.T, sets []string) (effect, refused string)
	// Must are keys the walk must cover: each needs an entry in Keys or in
	// Elsewhere (the test that proves it instead), so that a key added to
	// a database's table without either fails.
	Must      []string
	Elsewhere map[string]string
}

// Run walks the keys in name order.
func (w KeyWalk) Run(t *testing.T) {
	t.Helper()
	for _, k := range w.Must {
		if _, ok := w.Keys[k]; !ok && w.Elsewhere[k] == "" {
			t.Errorf("%s: a key without an entry in this walk", k)
		}
	}
	a, _ := w.Probe(t, nil)
	if b, _ := w.Probe(t, nil); a != b {
		t.Fatalf("the base configuration, probed twice, differs: what varies from run to run must be taken out of the probe:\n%s", LineDiff(a, b))
	}
	names := make([]string, 0, len(w.Keys))
	for k := range w.Keys {
		names = append(names, k)
	}
	sort.Strings(names)
	base := map[string]string{}
	for _, name := range names {
		sets := w.Keys[name]
		ctx, own := splitSets(sets, name)
		if len(own) == 0 {
			t.Errorf("%s: %v gives the key no value", name, sets)
			continue
		}
		key := strings.Join(ctx, "\x00")
		b, ok := base[key]
		if !ok {
			var refused string
			b, refused = w.Probe(t, ctx)
			if refused != "" {
				t.Errorf("%s: the configuration without it, %v, does not load: %s", name, ctx, refused)
				continue
			}
			base[key] = b
		}
		got, refused := w.Probe(t, append(append([]string(nil), ctx...), own...))
		switch {
		case refused != "":
			t.Errorf("%s: %v does not load, which proves no effect: %s", name, sets, refused)
		case got == b:
			t.Errorf("%s: %v changes nothing the probe sees", name, sets)
		default:
			t.Logf("%-30s %v: %s", name, sets, firstLines(LineDiff(b, got), 2))
		}
	}
}

// splitSets separates a key's context from its change (see KeyWalk.Keys).
func splitSets(sets []string, name string) (ctx, own []string) {
	for _, s := range sets {
		if rest, ok := strings.CutPrefix(s, "^"); ok {
			ctx = append(ctx, rest)
		} else if rest, ok := strings.CutPrefix(s, "+"); ok || strings.HasPrefix(s, name+"=") {
			own = append(own, rest)
		} else {
			ctx = append(ctx, s)
		}
	}
	return ctx, own
}

// LineDiff lists the lines of a and b that the other lacks (- and +),
// sorted.
func LineDiff(a, b string) string {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	var out []string
	for l, n := range count {
		if n > 0 {
			out = append(out, "- "+l)
		} else if n < 0 {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " | ")
}

// Capture is a TCP relay on 127.0.0.1 in front of a server that keeps what
// clients send, per connection: a key walk reads what a run sent from it.
// With TLS it is the server's TLS end (a certificate of its own CA, in
// CAFile), and keeps what it decrypted.
type Capture struct {
	Addr   string // where clients connect: 127.0.0.1:port
	CAFile string // with TLS: the PEM file of the CA that signed its certificate

	ln       net.Listener
	backend  string
	mu       sync.Mutex
	sent     [][]byte // per connection, in the order they were accepted
	open     int
	maxOpen  int
	accepted int
}

// NewCapture starts a relay to backend; tlsFront makes it a TLS server.
// It stops when the test ends.
func NewCapture(t testing.TB, backend string, tlsFront bool) *Capture {
	t.Helper()
	var ln net.Listener
	var err error
	c := &Capture{backend: backend}
	if tlsFront {
		var conf *tls.Config
		conf, c.CAFile = testTLS(t)
		ln, err = tls.Listen("tcp", "127.0.0.1:0", conf)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	c.ln, c.Addr = ln, ln.Addr().String()
	t.Cleanup(func() { ln.Close() })
	go c.serve()
	return c
}

// Port is the relay's port.
func (c *Capture) Port() string {
	_, p, _ := net.SplitHostPort(c.Addr)
	return p
}

func (c *Capture) serve() {
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.relay(conn)
	}
}

func (c *Capture) relay(conn net.Conn) {
	defer conn.Close()
	c.mu.Lock()
	i := len(c.sent)
	c.sent = append(c.sent, nil)
	c.open++
	c.accepted++
	c.maxOpen = max(c.maxOpen, c.open)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.open--
		c.mu.Unlock()
	}()
	up, err := net.DialTimeout("tcp", c.backend, 10*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	go func() {
		io.Copy(conn, up)
		conn.Close()
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			c.mu.Lock()
			c.sent[i] = append(c.sent[i], buf[:n]...)
			c.mu.Unlock()
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if tc, ok := up.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
	}
}

// Take returns what each connection sent since the last Take, and the
// most connections that were open at once and how many were accepted, and
// starts over. Connections still open keep relaying into the next Take.
func (c *Capture) Take() (sent [][]byte, maxOpen, accepted int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sent, maxOpen, accepted = c.sent, c.maxOpen, c.accepted
	c.sent = make([][]byte, len(sent)) // open connections keep their index
	c.maxOpen, c.accepted = c.open, 0
	return sent, maxOpen, accepted
}

// testTLS makes a CA and a certificate it signs for 127.0.0.1, and writes
// the CA as PEM for the client to trust.
func testTLS(t testing.TB) (*tls.Config, string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tsbench test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	caCert, _ := x509.ParseCertificate(caDER)
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}, file
}

// Merge is base with sets applied in order as KEY=VALUE, later values
// winning, each key once, in the order keys first appear.
func Merge(base, sets []string) []string {
	merged := map[string]string{}
	var order []string
	for _, s := range append(append([]string(nil), base...), sets...) {
		k, v, _ := strings.Cut(s, "=")
		if _, ok := merged[k]; !ok {
			order = append(order, k)
		}
		merged[k] = v
	}
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = k + "=" + merged[k]
	}
	return out
}

// ServerProbe is a KeyWalk probe for a server: it runs the bench binary
// from the repository with the config file, the base sets and the
// probe's sets (later values win), and returns the exit status and read's
// account of what the relays passed to the server during the run.
func ServerProbe(bin, config string, base []string, read func(conns [][]byte) string, relays ...*Capture) func(*testing.T, []string) (string, string) {
	return func(t *testing.T, sets []string) (string, string) {
		for _, r := range relays {
			r.Take()
		}
		args := []string{"-c", config}
		for _, s := range Merge(base, sets) {
			args = append(args, "--set", s)
		}
		out, code := RunBench(bin, filepath.Join("..", ".."), nil, args...)
		if code == 2 {
			return "", out
		}
		var conns [][]byte
		for _, r := range relays {
			c, _, _ := r.Take()
			conns = append(conns, c...)
		}
		return fmt.Sprintf("exit %d\n%s", code, read(conns)), ""
	}
}

// ConfigFile writes a config file that names only the database, for
// ServerProbe.
func ConfigFile(t testing.TB, dbSwitch string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.properties")
	if err := os.WriteFile(path, []byte("DB_SWITCH="+dbSwitch+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
