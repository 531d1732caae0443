// Package readiness decides whether an applied Kubernetes or Gardener object is ready, and waits
// until a set of objects is.
//
// The apply executor (design.md section 5, issue 5 item 3) only starts a component once every
// component it depends on is applied *and* healthy, so "healthy" needs a precise, typed meaning per
// kind: a Deployment has rolled out, a CRD is Established, an Etcd reports ready, a ManagedResource
// is Applied/Healthy/not Progressing, an extension resource's last operation Succeeded. Check holds
// those rules as pure functions of one object; which rule judges which kind is the kinds table's
// (engine/kinds, Rules.Readiness). Wait watches the objects until Check says ready, a status says
// it never will be without a change (Terminal), or the context ends.
//
// Rules for Gardener kinds follow what Gardener's documentation and its health checks
// (pkg/utils/kubernetes/health in gardener/gardener) say of each kind; each rule cites its source,
// e.g. Gardener's "Extension" docs/extensions/resources/extension.md.
package readiness
