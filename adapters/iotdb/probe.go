package iotdb

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"
)

// Probe waits until the IoTDB server at addr accepts a real write and
// returns it, trying every second until ctx ends: an open port is not
// enough, a DataNode answers before its regions can take data. caFile, if
// set, is a PEM certificate to trust (the server speaks TLS). Provisioning
// (scripts/iotdb start, bench server) calls it.
func Probe(ctx context.Context, addr, user, password, caFile string) (attempts int, err error) {
	for attempts = 1; ; attempts++ {
		if err = probeOnce(addr, user, password, caFile); err == nil {
			return attempts, nil
		}
		select {
		case <-ctx.Done():
			return attempts, fmt.Errorf("%s did not accept a write: %w", addr, err)
		case <-time.After(time.Second):
		}
	}
}

func probeOnce(addr, user, password, caFile string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	cfg := &client.Config{Host: host, Port: port, UserName: user, Password: password}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s holds no PEM certificate", caFile)
		}
		cfg.TLSConfig = &client.TLSConfig{Config: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	}
	s := client.NewSession(cfg)
	if err := s.Open(false, 5000); err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	defer s.Close()
	const db = "root.tsbench_probe"
	_ = s.ExecuteNonQueryStatement("CREATE DATABASE " + db)
	if err := s.ExecuteNonQueryStatement("INSERT INTO " + db + ".d(timestamp, s) VALUES (1, 42)"); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	timeout := int64(10000)
	ds, err := s.ExecuteQueryStatement("SELECT s FROM "+db+".d WHERE time = 1", &timeout)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	ok, err := ds.Next()
	ds.Close()
	if err != nil || !ok {
		return errors.Join(errors.New("read: the written point is not there"), err)
	}
	return s.ExecuteNonQueryStatement("DROP DATABASE " + db)
}
