// Package components holds one subpackage per component type (etcd, kube_apiserver, istio, ...)
// and composite block (garden, seed, shoot). Each defines its type once: the schema as data
// (schema.go), whose defaults are the type's only ones, and a pure render function from typed
// values to Kubernetes objects and outputs, registered as one component.Definition named Type;
// none does cluster I/O. components/catalog lists every Type and derives the schema and render
// registries from that list. docs/development/adding-a-component.md walks through adding one.
package components
