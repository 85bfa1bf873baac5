package adapters

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// ErrNoPEM says a CA file held no PEM certificate.
var ErrNoPEM = errors.New("holds no PEM certificate")

// ClientTLS is the client side of USE_SSL for every driver: TLS 1.2 or
// newer, trusting the CA certificates of a PEM file, or the system's CAs
// when caFile is empty. what names the file in errors ("the trust store").
func ClientTLS(caFile, what string) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return t, nil
	}
	data, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", what, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, ErrNoPEM
	}
	t.RootCAs = pool
	return t, nil
}
