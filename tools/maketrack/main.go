// Command maketrack writes a small Rally track of http_logs' shape, for
// the proofs of TRACK_PATH: web server log lines as documents (a time in
// epoch seconds, a client IP, the request line, the status, the size),
// compressed with bzip2 as Rally ships its corpora, an index body, and
// three challenges that differ only in their ingest pipeline (seed report
// 2: a processor against an empty pipeline): no processor (the default);
// set_security_user, which stamps each document with the user who sent it
// (a server with security on: the one processor the test distributions of
// Elasticsearch from Maven carry); grok, which takes the request line apart
// (the ingest-common module, which full distributions carry and the test
// distributions do not). The same -docs and -seed give the same bytes.
//
//	go run ./tools/maketrack -out DIR [-docs N] [-seed S] [-bulk-size B] [-clients C] [-shards N] [-corpus NAME]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

func main() {
	out := flag.String("out", "", "the track's folder (created; must not hold a track)")
	docs := flag.Int64("docs", 300000, "documents")
	seed := flag.Uint64("seed", 1, "the seed of the documents")
	bulk := flag.Int("bulk-size", 5000, "the bulk task's bulk-size")
	clients := flag.Int("clients", 2, "the bulk task's clients")
	shards := flag.Int("shards", 1, "the index's primary shards (http_logs has 5; seed report 1 ran 6)")
	corpus := flag.String("corpus", "http_logs_small", "the corpus's name (Rally looks for its files in data/NAME/)")
	flag.Parse()
	if *out == "" || *docs < 1 || *shards < 1 {
		fmt.Fprintln(os.Stderr, "maketrack: give -out DIR, -docs ≥ 1 and -shards ≥ 1")
		os.Exit(2)
	}
	if err := write(*out, *corpus, *docs, *seed, *bulk, *clients, *shards); err != nil {
		fmt.Fprintln(os.Stderr, "maketrack:", err)
		os.Exit(1)
	}
}

var (
	methods = []string{"GET", "GET", "GET", "GET", "POST", "HEAD"}
	paths   = []string{"/images/hm_bg.jpg", "/english/index.html", "/french/splash_inet.html", "/images/nav_bg_top.gif", "/english/history/history_of/images/cup/cup.gif",
		"/english/teams/teambio160.htm", "/images/space.gif", "/english/competition/matchprog.htm", "/images/dot.gif", "/english/news/3004bres.htm"}
	statuses = []int{200, 200, 200, 200, 200, 200, 304, 304, 404, 500}
)

func write(dir, corpusName string, n int64, seed uint64, bulk, clients, shards int) error {
	if _, err := os.Stat(filepath.Join(dir, "track.json")); err == nil {
		return fmt.Errorf("%s holds a track already", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	plain := filepath.Join(dir, "documents.json")
	f, err := os.Create(plain)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	t := int64(893964617) // 1998-04-30, where http_logs starts
	var line []byte
	for i := int64(0); i < n; i++ {
		t += int64(rng.IntN(3))
		ip := fmt.Sprintf("%d.%d.%d.%d", 10+rng.IntN(200), rng.IntN(256), rng.IntN(256), rng.IntN(256))
		path := paths[rng.IntN(len(paths))]
		if rng.IntN(4) == 0 {
			path += "?id=" + strconv.Itoa(rng.IntN(100000))
		}
		status := statuses[rng.IntN(len(statuses))]
		size := 0
		if status == 200 {
			size = 100 + rng.IntN(40000)
		}
		line = line[:0]
		line = append(line, `{"@timestamp":`...)
		line = strconv.AppendInt(line, t, 10)
		line = append(line, `,"clientip":"`...)
		line = append(line, ip...)
		line = append(line, `","request":"`...)
		line = append(line, methods[rng.IntN(len(methods))]+" "+path+" HTTP/1.0"...)
		line = append(line, `","status":`...)
		line = strconv.AppendInt(line, int64(status), 10)
		line = append(line, `,"size":`...)
		line = strconv.AppendInt(line, int64(size), 10)
		line = append(line, "}\n"...)
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(plain)
	if err != nil {
		return err
	}
	// bzip2 replaces the plain file by documents.json.bz2, as Rally ships it.
	if out, err := exec.Command("bzip2", "-9", "-f", plain).CombinedOutput(); err != nil {
		return fmt.Errorf("bzip2: %v\n%s", err, out)
	}
	comp, err := os.Stat(plain + ".bz2")
	if err != nil {
		return err
	}
	index := map[string]any{
		"settings": map[string]any{"index": map[string]any{"number_of_shards": shards, "number_of_replicas": 0}},
		"mappings": map[string]any{"dynamic": "strict", "properties": map[string]any{
			"@timestamp":   map[string]any{"type": "date", "format": "epoch_second"},
			"clientip":     map[string]any{"type": "ip"},
			"request":      map[string]any{"type": "text", "fields": map[string]any{"raw": map[string]any{"type": "keyword", "ignore_above": 256}}},
			"status":       map[string]any{"type": "integer"},
			"size":         map[string]any{"type": "integer"},
			"verb":         map[string]any{"type": "keyword"},
			"path":         map[string]any{"type": "keyword"},
			"http_version": map[string]any{"type": "keyword"},
			"user":         map[string]any{"properties": map[string]any{"username": map[string]any{"type": "keyword"}, "roles": map[string]any{"type": "keyword"}}},
		}},
	}
	grok := map[string]any{"description": "the request line taken apart",
		"processors": []any{map[string]any{"grok": map[string]any{"field": "request", "patterns": []string{"%{WORD:verb} %{NOTSPACE:path} HTTP/%{NUMBER:http_version}"}}}}}
	user := map[string]any{"description": "the user who sent the bulk",
		"processors": []any{map[string]any{"set_security_user": map[string]any{"field": "user", "properties": []string{"username", "roles"}}}}}
	empty := map[string]any{"description": "no processor", "processors": []any{}}
	challenge := func(name string, pipeline any, def bool) map[string]any {
		return map[string]any{"name": name, "default": def, "schedule": []any{
			map[string]any{"operation": map[string]any{"operation-type": "delete-index"}},
			map[string]any{"operation": map[string]any{"operation-type": "create-index"}},
			map[string]any{"operation": map[string]any{"name": "put-pipeline", "operation-type": "put-pipeline", "id": "tsbench-logs", "body": pipeline}},
			map[string]any{"operation": map[string]any{"operation-type": "cluster-health", "request-params": map[string]any{"wait_for_status": "green"}, "retry-until-success": true}},
			map[string]any{"operation": "index-append", "clients": clients},
			map[string]any{"operation": map[string]any{"operation-type": "refresh"}},
		}}
	}
	track := map[string]any{
		"version":     2,
		"description": fmt.Sprintf("%d web server log lines of http_logs' shape (seed %d), made by tools/maketrack", n, seed),
		"indices":     []any{map[string]any{"name": "logs-small", "body": "index.json"}},
		"corpora": []any{map[string]any{"name": corpusName, "documents": []any{map[string]any{
			"source-file": "documents.json.bz2", "document-count": n, "compressed-bytes": comp.Size(), "uncompressed-bytes": st.Size(), "target-index": "logs-small"}}}},
		"operations": []any{map[string]any{"name": "index-append", "operation-type": "bulk", "bulk-size": bulk, "ingest-percentage": 100, "pipeline": "tsbench-logs"}},
		"challenges": []any{challenge("append-empty-pipeline", empty, true), challenge("append-user-pipeline", user, false), challenge("append-grok-pipeline", grok, false)},
	}
	for name, v := range map[string]any{"index.json": index, "track.json": track} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%s: %d documents, %d bytes, %d compressed (bzip2)\n", dir, n, st.Size(), comp.Size())
	return nil
}
