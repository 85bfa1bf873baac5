package main

import (
	"strings"
	"testing"
)

// TestSummarize: a passing package shows its ok line only, a failing one
// all of its output, a build failure its compiler's words; the times are
// of top-level tests, and the subtests' apart.
func TestSummarize(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p/ok","Test":"TestA"}`,
		`{"Action":"output","Package":"p/ok","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p/ok","Test":"TestA/sub","Elapsed":9}`,
		`{"Action":"pass","Package":"p/ok","Test":"TestA","Elapsed":2.5}`,
		`{"Action":"output","Package":"p/ok","Output":"ok  \tp/ok\t2.6s\n"}`,
		`{"Action":"pass","Package":"p/ok","Elapsed":2.6}`,
		`{"Action":"output","Package":"p/bad","Test":"TestB","Output":"    b_test.go:3: wrong answer\n"}`,
		`{"Action":"fail","Package":"p/bad","Test":"TestB","Elapsed":7}`,
		`{"Action":"output","Package":"p/bad","Output":"FAIL\tp/bad\t7.1s\n"}`,
		`{"Action":"fail","Package":"p/bad","Elapsed":7.1}`,
		`{"ImportPath":"p/broken [p/broken.test]","Action":"build-output","Output":"broken.go:1: undefined: x\n"}`,
		`{"ImportPath":"p/broken [p/broken.test]","Action":"build-fail"}`,
		`FAIL	p/broken [build failed]`,
	}, "\n")
	var out strings.Builder
	timings, subtests := summarize(strings.NewReader(in), &out)
	got := out.String()
	for _, want := range []string{"ok  \tp/ok\t2.6s\n", "    b_test.go:3: wrong answer\n", "FAIL\tp/bad\t7.1s\n", "broken.go:1: undefined: x\n", "FAIL\tp/broken [build failed]\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN   TestA") {
		t.Errorf("a passing package's test output was printed:\n%s", got)
	}
	if len(timings) != 2 || timings[0].name != "p/ok TestA" || timings[0].elapsed.Seconds() != 2.5 || timings[1].action != "fail" {
		t.Errorf("timings %+v, want TestA 2.5 s and TestB failed", timings)
	}
	if len(subtests) != 1 || subtests[0].name != "p/ok TestA/sub" || subtests[0].elapsed.Seconds() != 9 {
		t.Errorf("subtests %+v, want TestA/sub 9 s", subtests)
	}
}
