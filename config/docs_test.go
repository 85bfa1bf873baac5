package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/config.md")

func TestConfigDocUpToDate(t *testing.T) {
	var buf bytes.Buffer
	WriteDocs(&buf)
	path := filepath.Join("..", "docs", "config.md")
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
		t.Fatal("docs/config.md is out of date with the key table: run go test ./config -update")
	}
}
