package iotdb

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// goldenCase is one series and what IoTDB's TsFile encoders made of it.
type goldenCase struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Encoding string   `json:"encoding"`
	Values   []string `json:"values"`
	Hex      string   `json:"hex"`
}

// encodeGolden encodes a golden case's values with the Go encoders.
func encodeGolden(t testing.TB, c goldenCase) []byte {
	var out []byte
	switch c.Type {
	case "INT64":
		v := make([]int64, len(c.Values))
		for i, s := range c.Values {
			v[i], _ = strconv.ParseInt(s, 10, 64)
		}
		out = appendDelta(nil, v)
	case "INT32":
		v := make([]int32, len(c.Values))
		for i, s := range c.Values {
			x, _ := strconv.ParseInt(s, 10, 32)
			v[i] = int32(x)
		}
		out = appendDelta(nil, v)
	case "FLOAT":
		v := make([]uint32, len(c.Values))
		for i, s := range c.Values {
			x, _ := strconv.ParseUint(s, 10, 32)
			v[i] = uint32(x)
		}
		out = appendGorilla32(nil, v)
	case "DOUBLE":
		v := make([]uint64, len(c.Values))
		for i, s := range c.Values {
			v[i], _ = strconv.ParseUint(s, 10, 64)
		}
		out = appendGorilla64(nil, v)
	case "BOOLEAN":
		v := make([]bool, len(c.Values))
		for i, s := range c.Values {
			v[i] = s == "1"
		}
		out, _ = appendRLEBools(nil, v, nil)
	default:
		t.Fatalf("%s: type %s", c.Name, c.Type)
	}
	return out
}

// TestEncodingsMatchTsFile compares every encoder with the bytes IoTDB's
// own TsFile library wrote for the same series (tools/iotdb-encodings):
// block edges of TS_2DIFF, wrapping deltas, NaN and infinities in GORILLA,
// RLE's run and group limits.
func TestEncodingsMatchTsFile(t *testing.T) {
	raw, err := os.ReadFile("testdata/encodings.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("%d golden cases; the file is damaged", len(cases))
	}
	for _, c := range cases {
		got := hex.EncodeToString(encodeGolden(t, c))
		if got != c.Hex {
			n := 0
			for n < len(got) && n < len(c.Hex) && got[n] == c.Hex[n] {
				n++
			}
			t.Errorf("%s (%s %s): first difference at byte %d\n got %s\nwant %s", c.Name, c.Type, c.Encoding, n/2, clip(got, n), clip(c.Hex, n))
		}
	}
}

func clip(s string, at int) string {
	from := max(0, at-16)
	return "…" + s[from:min(len(s), at+48)]
}

func TestOlderVersions(t *testing.T) {
	for _, c := range []struct {
		v     string
		older bool
	}{
		{"IoTDB 1.3.7", true}, {"IoTDB 2.0.5", true}, {"IoTDB 2.0.6", false}, {"IoTDB 2.0.10", false},
		{"IoTDB 2.0.6-SNAPSHOT", false}, {"IoTDB 2.1.0", false}, {"IoTDB 0.13.4", true}, {"IoTDB 3.0.0", false},
		{"IoTDB UNKNOWN", false},
	} {
		if got := older(c.v, encodedSince); got != c.older {
			t.Errorf("older(%q) = %v, want %v", c.v, got, c.older)
		}
	}
}
