// Package engine is the core of gardener: it loads a landscape (config), renders its component
// instances by calling the component types' render functions (rendering, against the contract in
// render), orders them in a DAG (graph), observes the live clusters at one LIST per kind
// (cluster, observe), diffs each object locally with server-side apply semantics (diff, openapi),
// builds the plan (plan, run end to end by planner), prints it (views) and applies it in
// dependency order with typed readiness (apply, readiness), recording what it owns (state, at the
// module root); the daemon runs the same pipeline continuously (daemon). Per-kind rules live in
// one table (kinds), object identity in object, addresses of instances in address.
//
// The engine never imports components: cmd/gardener passes the catalog's schema and render
// registries in, and tests/layers keeps it that way. docs/architecture.md is the map.
package engine
