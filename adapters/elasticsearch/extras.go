package elasticsearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
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
		body := fmt.Sprintf(`{"persistent":{"cluster.max_shards_per_node":%d}}`, need)
		if err := a.do(ctx, http.MethodPut, "/_cluster/settings", []byte(body), nil); err != nil {
			return fmt.Errorf("raise cluster.max_shards_per_node for %d extra indices: %w", n, err)
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
