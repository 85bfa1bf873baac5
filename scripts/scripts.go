// Package scripts carries the provisioning scripts into the bench binary,
// so that an installed binary (go install, the container image) can start
// the servers the repository's tests and docs start with them: the same
// files, not a copy (bench server and bench routine write them out and run
// them with bash).
package scripts

import "embed"

// Provisioning holds scripts/iotdb, scripts/elasticsearch and
// scripts/opensearch, at the top of the file system.
//
//go:embed iotdb elasticsearch opensearch
var Provisioning embed.FS
