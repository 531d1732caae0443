// Package daemon runs the engine continuously: it plans the landscape whenever its directory
// changes or the resync period passes, applies what the policy allows, and publishes what it
// did on a status ConfigMap, as Events and as Prometheus metrics. It is a controller-runtime
// Runnable that needs leader election, so of several replicas only one acts; it takes the same
// state lock as `gardener apply`, so a manual apply and the daemon never write at once.
package daemon
