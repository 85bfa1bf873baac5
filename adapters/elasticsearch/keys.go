package elasticsearch

import (
	"github.com/tsbench/tsbench/config"
)

// Options are the Elasticsearch adapter's own keys.
type Options struct {
	Shards          int    // ES_SHARDS
	Replicas        int    // ES_REPLICAS
	RefreshInterval string // ES_REFRESH_INTERVAL
	UseSSL          bool   // USE_SSL
	CAFile          string // ES_CA_FILE
	APIKey          string // ES_API_KEY (never printed)
	Pipeline        string // ES_PIPELINE
	PipelineFile    string // ES_PIPELINE_FILE
	ExtraIndices    int    // ES_EXTRA_INDICES
	AliasesPerIndex int    // ES_ALIASES_PER_INDEX
	IndexMode       string // ES_INDEX_MODE
}

// Keys is the Elasticsearch key set. Its keys change how the server stores
// and processes the data (shards, index mode, an ingest pipeline, extra
// indices), not the data or the queries, so none is part of the workload
// fingerprint: comparing 1 shard with 5, or a processor with an empty
// pipeline, is what compare is for.
func Keys() *config.KeySet {
	type O = Options
	ks := config.NewKeySet[O]("Elasticsearch", "Elasticsearch and OpenSearch", []config.Key{
		config.Enum("ES_INDEX_MODE", "standard", []string{"standard", "time_series"}, "Index mode: standard, or time_series (a time series index, TSDS: Elasticsearch 8.7 or newer; `device` is its dimension, `@timestamp` a copy of `ts`; TIMESTAMP_PRECISION=ms).", func(o *O) *string { return &o.IndexMode }),
		config.Int("ES_SHARDS", "1", 1, 1024, "1..1024", "Primary shards of each index (one index per group).", func(o *O) *int { return &o.Shards }),
		config.Int("ES_REPLICAS", "0", 0, 16, "0..16", "Replicas of each index (0 on a single node, else the index stays yellow).", func(o *O) *int { return &o.Replicas }),
		config.String("ES_REFRESH_INTERVAL", "1s", "index.refresh_interval of each index, e.g. 1s, 30s or -1 (off).", func(o *O) *string { return &o.RefreshInterval }),
		config.Bool("USE_SSL", "false", "Connect over HTTPS (with ES_CA_FILE for a private CA).", func(o *O) *bool { return &o.UseSSL }),
		config.String("ES_CA_FILE", "", "PEM file of the CA certificates to trust over HTTPS; empty trusts the system's CAs.", func(o *O) *string { return &o.CAFile }),
		config.String("ES_API_KEY", "", "API key (the base64 id:key form) sent as `Authorization: ApiKey …` instead of USERNAME/PASSWORD. Never printed or saved.", func(o *O) *string { return &o.APIKey }).AsSecret(),
		config.String("ES_PIPELINE", "", "Ingest pipeline every bulk goes through (`?pipeline=`), to compare a processor with an empty pipeline. With ES_PIPELINE_FILE tsbench creates it before the run and deletes it in cleanup; without, it must exist.", func(o *O) *string { return &o.Pipeline }),
		config.String("ES_PIPELINE_FILE", "", "JSON body of ES_PIPELINE (`{\"description\": …, \"processors\": […]}`), created with PUT _ingest/pipeline/<ES_PIPELINE>.", func(o *O) *string { return &o.PipelineFile }),
		config.Int("ES_EXTRA_INDICES", "0", 0, 100000, "0..100000", "Empty indices (one shard, no replica) created beside the benchmark's, as clusters with many indices have; deleted in cleanup. Where they need a higher cluster.max_shards_per_node than the cluster allows (1,000 by default), tsbench raises it, which needs the cluster privilege manage; a limit an administrator has raised far enough is left as it is.", func(o *O) *int { return &o.ExtraIndices }),
		config.Int("ES_ALIASES_PER_INDEX", "0", 0, 100, "0..100", "Aliases of each extra index.", func(o *O) *int { return &o.AliasesPerIndex }),
	}, nil)
	// The servers listen on 9200 and, as shipped, ask no login: IoTDB's
	// root/root would be sent as basic auth and refused by a secured node.
	ks.Defaults = map[string]string{"PORT": "9200", "USERNAME": "", "PASSWORD": ""}
	return ks
}

// options returns the keys of a configuration (their defaults for one
// loaded without them).
func options(c *config.Config) *Options { return config.OptionsOrDefaults[Options](c, Keys()) }
