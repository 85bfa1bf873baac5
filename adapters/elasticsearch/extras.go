package elasticsearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

// extraIndex names the i-th extra index; its aliases add -alias-<j>.
func (a *Adapter) extraIndex(i int) string {
	return fmt.Sprintf("%s-extra-%d", strings.ToLower(a.cfg.DBName), i)
}

// createPipeline puts ES_PIPELINE from ES_PIPELINE_FILE.
func (a *Adapter) createPipeline(ctx context.Context) error {
	if a.opts.Pipeline == "" || a.opts.PipelineFile == "" {
		return nil
	}
	body, err := os.ReadFile(a.opts.PipelineFile)
	if err != nil {
		return fmt.Errorf("ES_PIPELINE_FILE: %w", err)
	}
	if err := a.do(ctx, http.MethodPut, "/_ingest/pipeline/"+a.opts.Pipeline, body, nil); err != nil {
		return fmt.Errorf("create ingest pipeline %s: %w", a.opts.Pipeline, err)
	}
	return nil
}

// ensureShardLimit makes cluster.max_shards_per_node at least need. It
// reads the setting first (the cluster privilege monitor) and changes it
// (the privilege manage) only when it is lower: a user allowed the indices
// but not the cluster's settings runs where an administrator has raised
// the limit.
func (a *Adapter) ensureShardLimit(ctx context.Context, need int) error {
	var got map[string]map[string]any
	const name = "cluster.max_shards_per_node"
	if err := a.do(ctx, http.MethodGet, "/_cluster/settings?include_defaults=true&flat_settings=true", nil, &got); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	// The persistent value wins over the default, the transient one over both.
	limit := 1000
	for _, level := range []string{"defaults", "persistent", "transient"} {
		if v, ok := got[level][name].(string); ok {
			if n, err := strconv.Atoi(v); err == nil {
				limit = n
			}
		}
	}
	if limit >= need {
		return nil
	}
	body := fmt.Sprintf(`{"persistent":{"%s":%d}}`, name, need)
	err := a.do(ctx, http.MethodPut, "/_cluster/settings", []byte(body), nil)
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusForbidden {
		return fmt.Errorf("%s is %d and needs to be %d: the user may not change it (the cluster privilege manage); ask an administrator to set it: %w", name, limit, need, err)
	}
	if err != nil {
		return fmt.Errorf("raise %s from %d to %d: %w", name, limit, need, err)
	}
	return nil
}

// createExtraIndices makes ES_EXTRA_INDICES empty indices with
// ES_ALIASES_PER_INDEX aliases each, four requests at a time, after
// raising cluster.max_shards_per_node where the default (1,000) is too low.
func (a *Adapter) createExtraIndices(ctx context.Context) error {
	n := a.opts.ExtraIndices
	if n == 0 {
		return nil
	}
	need := n + len(a.indices)*a.opts.Shards*(1+a.opts.Replicas) + 100
	if need > 1000 {
		if err := a.ensureShardLimit(ctx, need); err != nil {
			return fmt.Errorf("%d extra indices: %w", n, err)
		}
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := a.createExtraIndex(ctx, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

func (a *Adapter) createExtraIndex(ctx context.Context, i int) error {
	name := a.extraIndex(i)
	var b strings.Builder
	b.WriteString(`{"settings":{"index":{"number_of_shards":1,"number_of_replicas":0}}`)
	if k := a.opts.AliasesPerIndex; k > 0 {
		b.WriteString(`,"aliases":{`)
		for j := 0; j < k; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%s-alias-%d":{}`, name, j)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	err := a.do(ctx, http.MethodPut, "/"+name, []byte(b.String()), nil)
	var he *httpError
	if errors.As(err, &he) && strings.Contains(he.reason, "already_exists") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create extra index %s: %w", name, err)
	}
	return nil
}

// deleteExtras removes the pipeline tsbench created and the extra indices,
// a hundred names a request: the URL must stay below the server's limit
// on the request line (4 KB by default).
func (a *Adapter) deleteExtras(ctx context.Context) error {
	if a.opts.Pipeline != "" && a.opts.PipelineFile != "" {
		if err := a.do(ctx, http.MethodDelete, "/_ingest/pipeline/"+a.opts.Pipeline, nil, nil); err != nil && !notFound(err) {
			return fmt.Errorf("delete ingest pipeline %s: %w", a.opts.Pipeline, err)
		}
	}
	for lo := 0; lo < a.opts.ExtraIndices; lo += 100 {
		var names []string
		for i := lo; i < min(lo+100, a.opts.ExtraIndices); i++ {
			names = append(names, a.extraIndex(i))
		}
		if err := a.do(ctx, http.MethodDelete, "/"+strings.Join(names, ",")+"?ignore_unavailable=true", nil, nil); err != nil {
			return fmt.Errorf("delete extra indices: %w", err)
		}
	}
	return nil
}
