package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/config"
)

var update = flag.Bool("update", false, "rewrite docs/config.md")

// TestConfigDocs keeps docs/config.md equal to the key tables of this
// build's registry: the shared keys and every database's own.
func TestConfigDocs(t *testing.T) {
	var buf bytes.Buffer
	config.WriteDocs(&buf, registry())
	path := filepath.Join("..", "..", "docs", "config.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Fatal("docs/config.md is out of date with the key tables: run go test ./cmd/bench -run TestConfigDocs -update")
	}
	// docs/compat.md lists the ignored keys too, between two markers.
	const begin, end = "<!-- ignored keys: go test ./cmd/bench -run TestConfigDocs -update writes this table -->\n", "<!-- end of ignored keys -->"
	path = filepath.Join("..", "..", "docs", "compat.md")
	compat, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(compat), begin)
	_, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("docs/compat.md lacks the markers of the ignored-key table (%q … %q)", begin, end)
	}
	var table bytes.Buffer
	config.WriteIgnoredKeys(&table, registry())
	want := before + begin + table.String() + end + after
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if string(compat) != want {
		t.Fatal("docs/compat.md's ignored-key table is out of date: run go test ./cmd/bench -run TestConfigDocs -update")
	}
}
