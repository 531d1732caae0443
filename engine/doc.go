// Package engine is the core of gardener: it loads landscapes, builds the component graph, renders
// components to Kubernetes objects, observes live state, diffs, plans and applies. Its subpackages
// (config, graph, plan, diff, apply, cluster access, views) arrive with the language, plan and
// apply issues. The engine never imports components: cmd/gardener wires the registry in.
package engine
