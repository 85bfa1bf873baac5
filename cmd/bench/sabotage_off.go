//go:build !sabotage

package main

import "github.com/tsbench/tsbench/adapters"

// sabotaged is the registry as it is: only a test binary built with the
// tag "sabotage" breaks answers (sabotage_on.go).
func sabotaged(r adapters.Registry) (adapters.Registry, error) { return r, nil }
