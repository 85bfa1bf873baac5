// Command iotdbprobe waits until an IoTDB server accepts a real write and
// returns it: an open port is not enough, a DataNode answers before its
// regions can take data. Used by scripts/iotdb start.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/apache/iotdb-client-go/v2/client"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6667", "host:port of the DataNode")
	user := flag.String("user", "root", "user name")
	password := flag.String("password", "root", "password")
	timeout := flag.Duration("timeout", 3*time.Minute, "how long to keep trying")
	ca := flag.String("ca", "", "PEM certificate to trust: connect with TLS")
	flag.Parse()
	deadline := time.Now().Add(*timeout)
	var last error
	for attempt := 1; time.Now().Before(deadline); attempt++ {
		if last = probe(*addr, *user, *password, *ca); last == nil {
			fmt.Fprintf(os.Stderr, "iotdbprobe: %s accepted a write and returned it (attempt %d)\n", *addr, attempt)
			return
		}
		time.Sleep(time.Second)
	}
	fmt.Fprintf(os.Stderr, "iotdbprobe: %s did not accept a write within %v: %v\n", *addr, *timeout, last)
	os.Exit(1)
}

func probe(addr, user, password, ca string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	cfg := &client.Config{Host: host, Port: port, UserName: user, Password: password}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s holds no PEM certificate", ca)
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
