package elasticsearch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
	"github.com/tsbench/tsbench/internal/adaptertest"
)

// TestRequestsSpreadOverNodes checks the client side of HOST/PORT lists:
// requests go to the listed nodes in turn. (Two HTTP listeners stand in
// for two nodes' front doors; what a node answers is tested against real
// servers elsewhere.)
func TestRequestsSpreadOverNodes(t *testing.T) {
	var hits [2]atomic.Int64
	var hosts, ports []string
	for i := range hits {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"version":{"number":"8.19.21"},"status":"green"}`))
		}))
		defer srv.Close()
		u, _ := url.Parse(srv.URL)
		hosts = append(hosts, u.Hostname())
		ports = append(ports, u.Port())
	}
	c := adaptertest.Load(t, Driver(), "HOST="+strings.Join(hosts, ","), "PORT="+strings.Join(ports, ","), "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1")
	s, err := generator.NewSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Driver().Open(context.Background(), adapters.Params{Config: c, Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := 0; i < 9; i++ {
		if err := a.(adapters.Reconnecter).Reconnect(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if h0, h1 := hits[0].Load(), hits[1].Load(); h0 != 5 || h1 != 5 {
		t.Fatalf("10 requests reached the nodes %d and %d times, want 5 and 5", h0, h1)
	}
}
