package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
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
}
