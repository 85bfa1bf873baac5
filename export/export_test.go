package export

import (
	"strings"
	"testing"

	"github.com/tsbench/tsbench/compare"
)

// Every metric has its own field and OpenMetrics family, each a plain name.
func TestNames(t *testing.T) {
	for metric, want := range map[string]string{
		"throughput":                   "throughput",
		"mean latency":                 "mean_latency",
		"99th percentile latency":      "latency_p99",
		"99.9th percentile latency":    "latency_p99_9",
		"50th percentile service time": "service_time_p50",
		"error rate":                   "error_rate",
	} {
		if got := Field(metric); got != want {
			t.Errorf("Field(%q) = %q, want %q", metric, got, want)
		}
	}
	fields, families := map[string]bool{}, map[string]bool{}
	for _, m := range compare.Metrics {
		f, fam := Field(m.Name), FamilyName(m)
		if fields[f] || families[fam] || Name(f) != f || Name(fam) != fam || f[0] < 'a' || f[0] > 'z' {
			t.Errorf("%q: field %q, family %q: taken or not a plain name", m.Name, f, fam)
		}
		fields[f], families[fam] = true, true
	}
	for in, want := range map[string]string{"IoTDB-200-SESSION_BY_TABLET": "IoTDB_200_SESSION_BY_TABLET", "query round 1": "query_round_1", "Q1 [v=2]": "Q1_v_2"} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseDest(t *testing.T) {
	for to, want := range map[string]string{
		"csv":                                 "csv",
		"OpenMetrics":                         "openmetrics",
		"iotdb://127.0.0.1:6667":              "iotdb",
		"iotdb://u:p@127.0.0.1:6667/root.a.b": "iotdb",
		"http://127.0.0.1:9200/results":       "elasticsearch",
		"https://u:p@es.example:9200":         "elasticsearch",
		"iotdb://127.0.0.1:6667/a.b":          `the path "a.b" is not a series path under root`,
		"iotdb://127.0.0.1:6667/root.1a":      `has a node "1a" that is not a plain name`,
		"iotdb://127.0.0.1:6667/root.a-b":     `has a node "a-b"`,
		"kafka://127.0.0.1:9092":              `no store speaks "kafka"`,
		"results.csv":                         "is not a format or a store's URL",
		"u:secret@host":                       "is not a format or a store's URL",
	} {
		d, err := ParseDest(to)
		switch {
		case err == nil && d.Kind != want:
			t.Errorf("%s: %s, want %s", to, d.Kind, want)
		case err != nil && !strings.Contains(err.Error(), want):
			t.Errorf("%s: %v, want %q", to, err, want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%s: the error shows the password: %v", to, err)
		}
	}
	d, _ := ParseDest("iotdb://root:secret@127.0.0.1:6667")
	if strings.Contains(d.String(), "secret") {
		t.Errorf("%s shows the password", d)
	}
	if got := redact("http://u:secret@host:9200/x y"); strings.Contains(got, "secret") {
		t.Errorf("redact: %s", got)
	}
}
