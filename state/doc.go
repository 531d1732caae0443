// Package state keeps what gardener applied (lineage, serial, per-component inventory, outputs)
// in a local file or in Secrets of a declared cluster, serialised by a Lease lock shared by the
// CLI and the daemon.
package state
