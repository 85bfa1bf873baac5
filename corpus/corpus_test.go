package corpus

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTrack writes a track folder: files by name, relative to it.
func writeTrack(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

const httpTrack = `{
  "version": 2,
  "indices": [{"name": "logs-a", "body": "index.json"}, {"name": "logs-b"}],
  "corpora": [{"name": "http", "base-url": "https://example.org/corpora",
    "documents": [
      {"source-file": "three.json.bz2", "document-count": 3, "uncompressed-bytes": 100, "target-index": "logs-a"},
      {"source-file": "more.json.gz", "target-index": "logs-b"}]},
    {"name": "unused", "documents": [{"source-file": "none.json", "target-index": "logs-a"}]}],
  "operations": [{"name": "index-append", "operation-type": "bulk", "bulk-size": 500, "pipeline": "geo", "corpora": "http"}],
  "challenges": [
    {"name": "other", "schedule": [{"operation": {"operation-type": "search", "name": "term"}}]},
    {"name": "append", "default": true, "schedule": [
      {"operation": {"operation-type": "delete-index"}},
      {"operation": {"operation-type": "put-pipeline", "id": "geo", "body": {"processors": []}}},
      {"operation": "index-append", "clients": 8, "warmup-time-period": 120},
      {"parallel": {"tasks": [{"operation": {"name": "default", "operation-type": "search"}}]}},
      {"operation": {"operation-type": "force-merge"}}]}]
}`

// TestLoadTrack: a track's indices, bodies, corpora, the default
// challenge's bulk task (named in "operations") and put-pipeline, and the
// operations a run does not do, named.
func TestLoadTrack(t *testing.T) {
	var more bytes.Buffer
	z := gzip.NewWriter(&more)
	for i := range 10 {
		fmt.Fprintf(z, "{\"n\":%d}\n", i)
	}
	z.Close()
	dir := writeTrack(t, map[string]string{"track.json": httpTrack, "index.json": `{"mappings":{"properties":{"message":{"type":"text"}}}}`, "http/more.json.gz": more.String()})
	copyFile(t, "testdata/three.json.bz2", filepath.Join(dir, "three.json.bz2"))
	tr, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tr.IndexNames(), ","); got != "logs-a,logs-b" || !strings.Contains(string(tr.Indices[0].Body), `"text"`) || tr.Indices[1].Body != nil {
		t.Errorf("indices %s, bodies %q %q", got, tr.Indices[0].Body, tr.Indices[1].Body)
	}
	want := Bulk{Task: "index-append", BulkSize: 500, Clients: 8, Pipeline: "geo", Percentage: 100, Corpora: []string{"http"}}
	if fmt.Sprint(tr.Bulk) != fmt.Sprint(want) {
		t.Errorf("bulk %+v, want %+v", tr.Bulk, want)
	}
	if len(tr.Pipeline) != 1 || tr.Pipeline[0].ID != "geo" || string(tr.Pipeline[0].Body) != `{"processors": []}` {
		t.Errorf("pipelines %+v", tr.Pipeline)
	}
	if got := strings.Join(tr.Skipped, "; "); got != "default (search); force-merge (force-merge)" {
		t.Errorf("skipped %q", got)
	}
	if len(tr.Files) != 2 || tr.Files[1].Source != filepath.Join(dir, "http", "more.json.gz") || tr.Files[1].Index != "logs-b" {
		t.Fatalf("files %+v", tr.Files)
	}
	var said []string
	if err := tr.Prepare(context.Background(), func(s string) { said = append(said, s) }); err != nil {
		t.Fatal(err)
	}
	if tr.Documents() != 13 || tr.Files[0].End != 100 || len(said) != 3 {
		t.Errorf("documents %d, the first file's end %d, said %q", tr.Documents(), tr.Files[0].End, said)
	}
	id, err := tr.Identity()
	if err != nil || len(id) != 16 {
		t.Fatalf("identity %q %v", id, err)
	}
	// Prepared again, the plain files are used as they are; another
	// challenge is chosen by its name.
	said = nil
	tr2, _ := Load(filepath.Join(dir, "track.json"), "")
	if err := tr2.Prepare(context.Background(), func(s string) { said = append(said, s) }); err != nil || len(said) != 1 || !strings.HasPrefix(said[0], "counting") {
		t.Errorf("prepared again: %v, said %q", err, said)
	}
	if id2, _ := tr2.Identity(); id2 != id {
		t.Errorf("identity %s, then %s", id, id2)
	}
	if _, err := Load(dir, "other"); err == nil || !strings.Contains(err.Error(), "no bulk task") {
		t.Errorf("challenge other: %v", err)
	}
	// A plain file the track names by its compressed name is used.
	os.Remove(filepath.Join(dir, "three.json.bz2"))
	if tr3, err := Load(dir, "append"); err != nil || tr3.Prepare(context.Background(), func(string) {}) != nil {
		t.Errorf("the plain file alone: %v", err)
	}
}

// TestRefusals: what a track may hold that tsbench does not run is refused
// with the reason and the file.
func TestRefusals(t *testing.T) {
	docs := `{"source-file": "d.json", "target-index": "i"}`
	body := func(indices, docs, schedule string) string {
		return `{"indices": ` + indices + `, "corpora": [{"name": "c", "documents": [` + docs + `]}], "schedule": ` + schedule + `}`
	}
	bulk := `[{"operation": {"operation-type": "bulk", "bulk-size": 10}}]`
	for _, tc := range []struct{ track, want string }{
		{body(`[{"name": "i"}]`, docs, `[{"operation": {"operation-type": "bulk", "bulk-size": {{ bulk_size }}}}]`), "Jinja templating (line 1"},
		{`{% import "rally.helpers" as rally %}` + "\n{}", "Jinja templating (line 1"},
		{body(`[{"name": "i"}]`, `{"source-file": "d.json", "target-index": "i", "includes-action-and-meta-data": true}`, bulk), "includes-action-and-meta-data"},
		{body(`[{"name": "i"}]`, docs, `[{"operation": {"operation-type": "search"}}]`), "no bulk task"},
		{body(`[{"name": "i"}]`, docs, `[{"operation": "nope"}]`), `operation "nope"`},
		{body(`[{"name": "i"}]`, docs, `[{"operation": {"operation-type": "bulk", "bulk-size": 0}}]`), "bulk-size 0"},
		{body(`[{"name": "i"}]`, docs, `[{"operation": {"operation-type": "bulk", "ingest-percentage": 120}}]`), "ingest-percentage 120"},
		{body(`[{"name": "j"}]`, docs, bulk), `index "i", which the track does not declare`},
		{body(`[]`, docs, bulk), "no index"},
		{body(`[{"name": "i"}]`, `{"source-file": "missing.json", "target-index": "i"}`, bulk), "missing.json is in neither"},
		{`{"indices": [{"name": "i"}], "data-streams": [{"name": "logs"}], "schedule": []}`, "data-streams"},
		{`{"indices": [{"name": "i"}], "challenges": [{"name": "a"}, {"name": "b"}]}`, "none is the default: choose one of a, b"},
		{`not json`, "not a track's JSON"},
	} {
		dir := writeTrack(t, map[string]string{"track.json": tc.track, "d.json": "{}\n"})
		_, err := Load(dir, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n: %v, want %q", tc.track, err, tc.want)
		}
	}
	dir := writeTrack(t, map[string]string{"track.json": body(`[{"name": "i"}]`, `{"source-file": "d.json.zst", "target-index": "i"}`, bulk), "d.json.zst": "x"})
	tr, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Prepare(context.Background(), func(string) {}); err == nil || !strings.Contains(err.Error(), "not .zst: decompress it first") {
		t.Errorf(".zst: %v", err)
	}
	dir = writeTrack(t, map[string]string{"track.json": body(`[{"name": "i"}]`, `{"source-file": "d.json", "target-index": "i", "document-count": 5}`, bulk), "d.json": "{}\n{}\n"})
	tr, _ = Load(dir, "")
	tr.Bulk.Percentage = 50
	if err := tr.Prepare(context.Background(), func(string) {}); err == nil || !strings.Contains(err.Error(), "holds 2 documents; the track says 5") {
		t.Errorf("a short file: %v", err)
	}
}

// TestPartsSendEveryDocumentOnce: n clients' parts of files of lines of
// every length (long ones beyond the reader's buffer, blank ones, no
// newline at the end, a share of the documents) together hold every
// document once, in the file's order within each part.
func TestPartsSendEveryDocumentOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		dir := t.TempDir()
		tr := &Track{Bulk: Bulk{Percentage: 100}}
		if trial%4 == 3 {
			tr.Bulk.Percentage = 30
		}
		var want []string
		for f := range 1 + trial%3 {
			var b strings.Builder
			var docs []string
			for i := range rng.IntN(60) {
				if rng.IntN(10) == 0 {
					b.WriteString("\n")
				}
				size := 1 + rng.IntN(40)
				if rng.IntN(20) == 0 {
					size = 300 << 10 // longer than the reader's buffer
				}
				doc := fmt.Sprintf(`{"f":%d,"i":%d,"pad":"%s"}`, f, i, strings.Repeat("x", size))
				docs = append(docs, doc)
				b.WriteString(doc)
				if i%7 != 6 || rng.IntN(2) == 0 {
					b.WriteString("\n")
				} else {
					b.WriteString("\r\n")
				}
			}
			text := b.String()
			if len(docs) > 0 && rng.IntN(3) == 0 {
				text = strings.TrimRight(text, "\r\n")
			}
			p := filepath.Join(dir, fmt.Sprintf("f%d.json", f))
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			tr.Files = append(tr.Files, &File{Source: p, Index: fmt.Sprintf("i%d", f)})
			keep := len(docs)
			if tr.Bulk.Percentage < 100 {
				keep = int((int64(len(docs))*30 + 99) / 100)
			}
			want = append(want, docs[:keep]...)
		}
		if err := tr.Prepare(context.Background(), func(string) {}); err != nil {
			t.Fatal(err)
		}
		if tr.Documents() != int64(len(want)) {
			t.Fatalf("trial %d: %d documents counted, %d written", trial, tr.Documents(), len(want))
		}
		for _, n := range []int{1, 2, 3, 7, 64} {
			var got []string
			for k := range n {
				p := tr.Part(k, n)
				var d Docs
				size := 1 + rng.IntN(5)
				for p.Next(&d, size) {
					if len(d.Docs) > size {
						t.Fatalf("a bulk of %d documents, asked for %d", len(d.Docs), size)
					}
					for _, doc := range d.Docs {
						if !strings.Contains(string(doc), `"f":`+strings.TrimPrefix(d.Index, "i")+",") {
							t.Fatalf("document %.30s under index %s", doc, d.Index)
						}
						got = append(got, string(doc))
					}
				}
				if p.Err() != nil {
					t.Fatal(p.Err())
				}
				p.Close()
			}
			sortDocs := func(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
			if !slices.Equal(sortDocs(got), sortDocs(want)) {
				t.Fatalf("trial %d, %d parts: %d documents read, %d written", trial, n, len(got), len(want))
			}
			if n == 1 && !slices.Equal(got, want) {
				t.Fatalf("trial %d: one part reads the files out of order", trial)
			}
		}
	}
}

func BenchmarkPart(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "d.json")
	var buf bytes.Buffer
	for i := range 100000 {
		fmt.Fprintf(&buf, `{"@timestamp": 893964617, "clientip":"40.135.0.0", "request": "GET /images/hm_bg.jpg HTTP/1.0", "status": 200, "size": %d}`+"\n", i)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	tr, err := FromDocuments(p, "logs", "")
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.Prepare(context.Background(), func(string) {}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		part := tr.Part(0, 1)
		var d Docs
		for part.Next(&d, 5000) {
		}
		part.Close()
	}
}

// FuzzLoad: whatever track.json holds, Load returns a track or an error,
// never a panic, and a track it returns has a bulk task and files.
func FuzzLoad(f *testing.F) {
	f.Add(httpTrack)
	f.Add(`{"indices": [{"name": "i"}], "corpora": [{"name": "c", "documents": [{"source-file": "d.json"}]}], "schedule": [{"operation": {"operation-type": "bulk"}}]}`)
	f.Add(`{"indices": [{"name": "i"}], "schedule": [{"parallel": {"tasks": [{"operation": "x"}]}}], "operations": [{"name": "x", "operation-type": "bulk", "bulk-size": "7"}]}`)
	f.Add(`{"challenge": {"schedule": [{"operation": {"operation-type": "put-pipeline"}}]}}`)
	f.Fuzz(func(t *testing.T, track string) {
		dir := t.TempDir()
		for name, body := range map[string]string{"track.json": track, "d.json": "{}\n", "index.json": "{}"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := Load(dir, "")
		if err == nil && (tr.Bulk.Task == "" || len(tr.Files) == 0 || len(tr.Indices) == 0) {
			t.Errorf("a track without a bulk task, files or indices: %+v", tr)
		}
	})
}
