//go:build sabotage

package main

import (
	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/internal/sabotage/wrap"
)

// sabotaged breaks the answers of the family TSBENCH_SABOTAGE names
// (wrap.Registry): the test of CHECK_ANSWERS through the binary.
func sabotaged(r adapters.Registry) (adapters.Registry, error) { return wrap.Registry(r) }
