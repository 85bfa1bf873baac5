package export

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// Dest is where bench export writes: a format to a file or stdout, or a
// metrics store by its URL.
type Dest struct {
	Kind string // "csv", "openmetrics", "iotdb" or "elasticsearch"
	URL  *url.URL
}

// DestHelp says what --to takes.
const DestHelp = "csv, openmetrics, iotdb://[USER:PASSWORD@]HOST:PORT[/root.PATH] or http[s]://[USER:PASSWORD@]HOST:PORT[/INDEX] (Elasticsearch or OpenSearch)"

// ParseDest reads --to (or RESULTS_STORE); its errors name the value, its
// password hidden, and the caller names the flag or key.
func ParseDest(to string) (Dest, error) {
	switch strings.ToLower(to) {
	case "csv", "openmetrics":
		return Dest{Kind: strings.ToLower(to)}, nil
	}
	u, err := url.Parse(to)
	if err != nil || u.Host == "" {
		return Dest{}, fmt.Errorf("%q is not a format or a store's URL (valid: %s)", redact(to), DestHelp)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return Dest{}, fmt.Errorf("%s: the port %s is not a port (valid: 1 to 65535)", u.Redacted(), p)
		}
	}
	switch u.Scheme {
	case "iotdb":
		if _, err := iotdbPath(u); err != nil {
			return Dest{}, fmt.Errorf("%s: %w", u.Redacted(), err)
		}
		return Dest{Kind: "iotdb", URL: u}, nil
	case "http", "https":
		return Dest{Kind: "elasticsearch", URL: u}, nil
	}
	return Dest{}, fmt.Errorf("%s: no store speaks %q (valid: %s)", u.Redacted(), u.Scheme, DestHelp)
}

// redact hides what could be a password in a --to that is not a URL:
// everything before an '@' but a scheme.
func redact(to string) string {
	i := strings.LastIndex(to, "@")
	if i < 0 {
		return to
	}
	if j := strings.Index(to, "://"); j >= 0 && j < i {
		return to[:j+3] + "…" + to[i:]
	}
	return "…" + to[i:]
}

// Store says whether d is a metrics store (else a format written out).
func (d Dest) Store() bool { return d.URL != nil }

// String is d without a password.
func (d Dest) String() string {
	if d.URL != nil {
		return d.URL.Redacted()
	}
	return d.Kind
}

// Write exports the runs: a format to w, or into the store, returning what
// was written in words.
func (d Dest) Write(ctx context.Context, w io.Writer, runs []Run) (string, error) {
	switch d.Kind {
	case "csv":
		return fmt.Sprintf("%d values", len(Rows(runs))), WriteCSV(w, runs)
	case "openmetrics":
		return fmt.Sprintf("%d samples", len(Rows(runs))), WriteOpenMetrics(w, runs)
	case "iotdb":
		n, err := ToIoTDB(ctx, d.URL, runs)
		return fmt.Sprintf("%d values", n), err
	case "elasticsearch":
		n, err := ToElasticsearch(ctx, d.URL, runs)
		return fmt.Sprintf("%d documents", n), err
	}
	return "", fmt.Errorf("no export to %s", d.Kind)
}
