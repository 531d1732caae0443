// Package graph is the component DAG of a landscape: one vertex per expanded block instance
// (garden, seed, shoot and component instances such as `shoot.local["dev"]`) and one edge per
// reason an instance must be applied after another. Plan renders and diffs in its order, apply
// executes along its edges, destroy walks it backwards and --target cuts it down to what a target
// needs.
//
// Edges come from three places:
//
//   - references between blocks in the landscape (`seed = seed.local`), including references
//     that pass through locals and clusters (`cluster = cluster.virtual` where the cluster's
//     kubeconfig is garden.local's output) and through blocks that expanded to no instances;
//   - depends_on, which the loader records as references too;
//   - implicit edges that only rendering reveals, passed in by the caller (see ImplicitEdges:
//     custom resources after their CustomResourceDefinition, namespaced objects after their
//     Namespace, a Gardener Seed or Shoot after the ControllerRegistrations of the extension
//     types it uses).
//
// Every instance of a block inherits the block's edges: when shoot.x refers to seed.a, each
// instance of shoot.x depends on each instance of seed.a. An edge to a composite (garden, seed,
// shoot) waits for all its parts, except when one of them needs the referring instance itself:
// then the instance waits for the other parts (see narrowComposites), which is how an extension
// installed on a seed comes before the Seed that needs its registration.
//
// The loader already rejects reference cycles, so a cycle here always involves an implicit
// edge; it is reported as a diagnostic that names every member and every edge closing it.
//
// Composite blocks (garden, seed, shoot) declare no edges of their own through their schemas:
// engine/schema has no such notion, and reference attributes like `seed = seed.local` already
// become references. Edges inside a composite's expansion belong to rendering.
package graph
