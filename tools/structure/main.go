// Command structure prints the size of every package of a checkout and its
// longest functions, the figures a structural change (issue 23's package
// split) is judged by before and after:
//
//	go run ./tools/structure [-top 15] [DIR]
//
// Sizes count the non-blank lines of a package's non-test Go files; a
// function's length is its lines from "func" to its closing brace.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type pkg struct {
	dir          string
	files, lines int
}

type fn struct {
	name  string
	lines int
}

func main() {
	top := flag.Int("top", 15, "how many of the longest functions to list")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	pkgs := map[string]*pkg{}
	var fns []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), "results")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		p := pkgs[rel]
		if p == nil {
			p = &pkg{dir: rel}
			pkgs[rel] = p
		}
		n, err := nonBlank(path)
		if err != nil {
			return err
		}
		p.files++
		p.lines += n
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = "(" + typeName(fd.Recv.List[0].Type) + ")." + name
			}
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			fns = append(fns, fn{rel + "." + name, lines})
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "structure:", err)
		os.Exit(1)
	}
	var list []*pkg
	total := 0
	for _, p := range pkgs {
		list = append(list, p)
		total += p.lines
	}
	sort.Slice(list, func(i, j int) bool { return list[i].lines > list[j].lines })
	fmt.Printf("| package | files | lines |\n|---|---|---|\n")
	for _, p := range list {
		fmt.Printf("| %s | %d | %d |\n", p.dir, p.files, p.lines)
	}
	fmt.Printf("| (all %d packages) | | %d |\n\n", len(list), total)
	sort.Slice(fns, func(i, j int) bool { return fns[i].lines > fns[j].lines })
	fmt.Printf("| longest functions | lines |\n|---|---|\n")
	for i := 0; i < *top && i < len(fns); i++ {
		fmt.Printf("| %s | %d |\n", fns[i].name, fns[i].lines)
	}
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return typeName(t.X)
	}
	return "?"
}

func nonBlank(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n, sc.Err()
}
