// Package components holds one subpackage per component type (etcd, kube_apiserver, istio, ...).
// Each exports a pure render function from typed inputs to Kubernetes objects and outputs, plus
// its health rules; none does cluster I/O. The catalog arrives with the component issues.
package components
