package elasticsearch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tsbench/tsbench/adapters"
)

// writeTrack writes the workload as a Rally track (bench generate --format
// track): an index a group with the adapter's own body (index-<name>.json),
// a documents file an index (<name>.json, a document a line, exactly the
// documents a run's bulks hold, device after device), and track.json
// naming them with a bulk task of BATCH_SIZE_PER_WRITE documents and
// DATA_CLIENT_NUMBER clients. TRACK_PATH and esrally ingest it; the same
// configuration writes the same bytes. track.json is written last: an
// interrupted write leaves no track, and its files are removed.
func writeTrack(ctx context.Context, dir string, p adapters.TrackParams) (err error) {
	if _, err := os.Stat(filepath.Join(dir, "track.json")); err == nil {
		return fmt.Errorf("%s holds a track already: give an empty or new folder", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var made []string
	defer func() {
		if err != nil {
			for _, f := range made {
				os.Remove(f)
			}
		}
	}()
	c := p.Config
	a := &Adapter{cfg: c, opts: options(c), schema: p.Schema, tsds: options(c).IndexMode == "time_series"}
	body, err := a.indexBody()
	if err != nil {
		return err
	}
	// encodeBulk writes an action line before each document: none here.
	a.actions = make([][]byte, len(p.Schema.Groups))
	type file struct {
		w     *bufio.Writer
		f     *os.File
		docs  int64
		bytes int64
	}
	files := make([]*file, len(p.Schema.Groups))
	var indices, documents []any
	for g, grp := range p.Schema.Groups {
		name := indexName(c, grp.Name)
		bodyFile := "index-" + name + ".json"
		if err := os.WriteFile(filepath.Join(dir, bodyFile), body, 0o644); err != nil {
			return err
		}
		made = append(made, filepath.Join(dir, bodyFile))
		path := filepath.Join(dir, name+".json")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		made = append(made, path)
		files[g] = &file{w: bufio.NewWriterSize(f, 1<<20), f: f}
		defer f.Close()
		indices = append(indices, map[string]any{"name": name, "body": bodyFile})
	}
	b := p.Generator.NewBatch()
	var buf []byte
	var written int64
	for _, d := range p.Schema.Canonical {
		if !p.Schema.Devices[d].Written {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		st := p.Generator.NewStream(d)
		fl := files[p.Schema.Devices[d].Group]
		for st.Next(b) {
			buf = a.encodeBulk(buf[:0], b)
			if _, err := fl.w.Write(buf); err != nil {
				return err
			}
			fl.docs += int64(b.Len())
			fl.bytes += int64(len(buf))
			written += int64(b.Len())
		}
		if p.Done != nil {
			p.Done(written)
		}
	}
	for g, grp := range p.Schema.Groups {
		fl := files[g]
		if err := fl.w.Flush(); err != nil {
			return err
		}
		if err := fl.f.Close(); err != nil {
			return err
		}
		if fl.docs == 0 {
			continue
		}
		name := indexName(c, grp.Name)
		documents = append(documents, map[string]any{"source-file": name + ".json", "document-count": fl.docs, "uncompressed-bytes": fl.bytes, "target-index": name})
	}
	track := map[string]any{
		"version":     2,
		"description": p.Description,
		"indices":     indices,
		"corpora":     []any{map[string]any{"name": "tsbench-" + c.DBName, "documents": documents}},
		"schedule": []any{
			map[string]any{"operation": map[string]any{"operation-type": "delete-index"}},
			map[string]any{"operation": map[string]any{"operation-type": "create-index"}},
			map[string]any{"operation": map[string]any{"name": "index-append", "operation-type": "bulk", "bulk-size": c.BatchSize}, "clients": c.DataClients},
			map[string]any{"operation": map[string]any{"operation-type": "refresh"}},
		},
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(track); err != nil {
		return err
	}
	made = append(made, filepath.Join(dir, "track.json"))
	return os.WriteFile(filepath.Join(dir, "track.json"), out.Bytes(), 0o644)
}
