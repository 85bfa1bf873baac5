package elasticsearch

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/adaptertest"
	"github.com/tsbench/tsbench/runner"
)

// secured is the address and CA file of the Elasticsearch that scripts/test
// starts with ES_SECURITY=1: HTTPS, the file-realm user tsbench (password
// tsbench-pass, all privileges on tsbench* indices) and the superuser elastic.
func secured(t *testing.T) (host, port, ca string) {
	t.Helper()
	host, port = server(t, "TSBENCH_ES_SECURE", "ES_SECURITY=1 ES_PORT=9202 scripts/elasticsearch start")
	ca = os.Getenv("TSBENCH_ES_SECURE_CA")
	if ca == "" {
		t.Fatal("TSBENCH_ES_SECURE_CA is not set: the CA file of the secured node (<state>/certs/ca.pem)")
	}
	return host, port, ca
}

// TestSecuredOverHTTPS runs the conformance suite as the file-realm user
// over HTTPS with the CA file; a wrong password must fail at Open.
func TestSecuredOverHTTPS(t *testing.T) {
	host, port, ca := secured(t)
	adaptertest.Run(t, adaptertest.Target{
		Driver: Driver(),
		Sets: []string{"HOST=" + host, "PORT=" + port, "USE_SSL=true", "ES_CA_FILE=" + ca, "USERNAME=tsbench", "PASSWORD=tsbench-pass",
			"DB_NAME=tsbench_secure", "WRITE_OPERATION_TIMEOUT_MS=30000", "READ_OPERATION_TIMEOUT_MS=30000"},
		BadCredentials: []string{"PASSWORD=not-the-password"},
		Unreachable:    []string{"HOST=127.0.0.1", "PORT=1"},
		Skip:           map[string]string{"EveryNewTypeCount": noNewTypes},
	})
}

// TestForbiddenIndexItemsFail: an index outside the user's role, created by
// the superuser, answers each bulk item with 403 inside an HTTP 200 bulk:
// every point must count as failed, with the server's reason.
func TestForbiddenIndexItemsFail(t *testing.T) {
	host, port, ca := secured(t)
	base := []string{"HOST=" + host, "PORT=" + port, "USE_SSL=true", "ES_CA_FILE=" + ca, "DB_NAME=forbidden", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1",
		"SENSOR_NUMBER=3", "LOOP=4", "BATCH_SIZE_PER_WRITE=10", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0", "INIT_WAIT_TIME=0", "RESULTS_DIR=" + t.TempDir()}
	ctx := context.Background()
	admin := adaptertest.Load(t, Driver(), append(base, "USERNAME=elastic", "PASSWORD=tsbench-elastic")...)
	p, err := runner.NewPlan(admin)
	if err != nil {
		t.Fatal(err)
	}
	openClean(t, p, true) // as the superuser: the index outside the user's role
	user := adaptertest.Load(t, Driver(), append(base, "USERNAME=tsbench", "PASSWORD=tsbench-pass", "IS_DELETE_DATA=false", "CREATE_SCHEMA=false")...)
	up, err := runner.NewPlan(user)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(ctx, up, ptr(Driver()), runner.Options{})
	if err != nil || res.Stopped != nil {
		t.Fatalf("run: %v %v", err, res.Stopped)
	}
	ing := res.Phases[0].Operations[0]
	if ing.OKPoints != 0 || ing.FailPoints != 2*4*10*3 {
		t.Fatalf("ok %d, failed %d points; want all %d failed", ing.OKPoints, ing.FailPoints, 2*4*10*3)
	}
	var msgs []string
	for m := range ing.Errors {
		msgs = append(msgs, m)
	}
	if !strings.Contains(strings.Join(msgs, "|"), "security_exception") {
		t.Fatalf("errors %v: want the server's 403 reason", msgs)
	}
}

// TestShardLimitLeftAsAllowed: the user of the documented role (cluster
// monitor, no manage) was refused extra indices even after an
// administrator had raised cluster.max_shards_per_node, because tsbench
// sent the PUT anyway. It now reads the setting and changes it only when
// it is too low; then a 403 names the privilege.
func TestShardLimitLeftAsAllowed(t *testing.T) {
	host, port, ca := secured(t)
	base := []string{"HOST=" + host, "PORT=" + port, "USE_SSL=true", "ES_CA_FILE=" + ca, "DB_NAME=tsbench_limit", "DEVICE_NUMBER=2", "DATA_CLIENT_NUMBER=1",
		"SENSOR_NUMBER=2", "LOOP=2", "OPERATION_PROPORTION=1:0:0:0:0:0:0:0:0:0:0:0:0"}
	plan := func(sets ...string) *runner.Plan {
		p, err := runner.NewPlan(adaptertest.Load(t, Driver(), append(base, sets...)...))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	admin := openPlain(t, plan("USERNAME=elastic", "PASSWORD=tsbench-elastic"))
	user := openPlain(t, plan("USERNAME=tsbench", "PASSWORD=tsbench-pass"))
	ctx := context.Background()
	set := func(v string) {
		if err := admin.do(ctx, http.MethodPut, "/_cluster/settings", []byte(`{"persistent":{"cluster.max_shards_per_node":`+v+`}}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { set("null") })
	set("3000")
	if err := user.ensureShardLimit(ctx, 2500); err != nil {
		t.Fatalf("a limit the administrator raised far enough: %v", err)
	}
	set("null")
	err := user.ensureShardLimit(ctx, 2500)
	if err == nil || !strings.Contains(err.Error(), "cluster.max_shards_per_node is 1000 and needs to be 2500: the user may not change it (the cluster privilege manage)") {
		t.Fatalf("a limit too low for a user without manage: %v", err)
	}
	if err := admin.ensureShardLimit(ctx, 2500); err != nil {
		t.Fatalf("the superuser raises it: %v", err)
	}
}
