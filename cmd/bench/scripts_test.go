package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestDocumentedScriptsAreExecutable checks that every script the README or
// docs tell users to run (scripts/, the product's; tools/, the proofs and
// measurements) carries its run bit in git: a fresh clone gets
// exactly what git records, and `scripts/iotdb start` failed there once
// because the bit lived only in a working tree.
func TestDocumentedScriptsAreExecutable(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "-s", "scripts", "tools").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git ls-files: %v (CI runs in a clone, so git must answer)", err)
		}
		t.Skipf("not a git checkout (git ls-files: %v)", err)
	}
	modes := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		meta, path, ok := strings.Cut(line, "\t")
		if f := strings.Fields(meta); ok && len(f) > 0 {
			modes[path] = f[0]
		}
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	// A script is run as a command when the docs name it at the start of a
	// line, after a space, a backtick or a parenthesis: not inside a longer path.
	ref := regexp.MustCompile("(?m)(?:^|[ `(])((?:scripts|tools)/[A-Za-z0-9_.-]+)")
	used := map[string]bool{}
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			if st, err := os.Stat(filepath.Join(root, m[1])); err == nil && !st.IsDir() {
				used[m[1]] = true
			}
		}
	}
	if !used["scripts/test"] || !used["scripts/iotdb"] || !used["tools/gate-proof"] {
		t.Fatalf("the docs should name scripts/test, scripts/iotdb and tools/gate-proof; found %v", used)
	}
	var names []string
	for s := range used {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		if modes[s] != "100755" {
			t.Errorf("%s is run as a command in the docs but git records mode %q: git update-index --chmod=+x %s", s, modes[s], s)
		}
	}
}
