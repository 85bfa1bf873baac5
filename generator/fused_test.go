package generator

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestNoFusedMultiplyAdd compiles this package for machines whose Go
// compiler fuses x*y + z into one instruction (arm64, and amd64 built with
// GOAMD64=v3) and fails if any was fused. A fused value skips one rounding,
// so such a machine would generate other bits than amd64 does, and two
// builds would not see the identical workload. An explicit float64(x*y)
// keeps the product's rounding.
func TestNoFusedMultiplyAdd(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to compile for other machines: %v", err)
	}
	fused := regexp.MustCompile(`\((\S+\.go:\d+)\)\s+(V?FN?M(ADD|SUB)\w*)\s`)
	for _, env := range [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}} {
		cmd := exec.Command(goTool, "build", "-gcflags=-S", "-o", os.DevNull, ".")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v go build: %v\n%s", env, err, out)
		}
		if !strings.Contains(string(out), "TEXT") {
			t.Fatalf("%v: go build -gcflags=-S printed no assembly: %.300s", env, out)
		}
		for _, m := range fused.FindAllStringSubmatch(string(out), -1) {
			t.Errorf("%v: %s fuses a multiply and an add (%s)", env, m[1], m[2])
		}
	}
}
