// Package secrets generates the secret material components need: CAs, server and client
// certificates, RSA key pairs (such as service-account signing keys), tokens, passwords, API
// server encryption configurations, OpenVPN static keys (the VPN's tls-auth key) and Kubernetes
// bootstrap tokens (gardenlet's TLS bootstrap).
//
// # Where secrets live
//
// A generated Secret is an ordinary object of the component that needs it, in the target cluster
// next to its consumers. Apply, prune, drift detection and state treat it like every other object
// the component renders: it is applied with server-side apply, listed in the component's
// inventory, pruned when the component stops rendering it and deleted with the component. State
// references it like any other object (group, kind, namespace, name, uid) and never holds its
// data, so a state file or state Secret leaks no key material. The cluster is the source of
// truth, as it is for Gardener's secrets manager, which reads the Secrets of the cluster it acts
// upon (Gardener's "Secrets Management" docs/development/secrets_management.md).
//
// # When generation happens
//
// Generation is an engine step that runs before planning a component: the engine reads the live
// Secret (or finds none), calls Generate with the request, the live object, the current time,
// whether `--rotate` names the request's class, and crypto/rand, and hands the resulting Secret
// and Material to the component's render function as inputs. Requests are processed in
// dependency order, CAs first, so that a certificate's request carries its CA's current Material.
//
// Render functions stay pure: given the same inputs they return the same objects, with no clock,
// no randomness and no cluster reads. That keeps them testable with golden files and keeps a plan
// reproducible, and it puts every impure decision (what time it is, what exists, what to reuse)
// in one place that the plan can explain: Result.Action and Result.Reason say why a Secret
// changes, without ever showing its values.
//
// # No churn
//
// Generate reuses the live material byte for byte while it is good, so that a second plan shows
// no change. It decides from facts a plan can state: whether the material is the landscape's own
// (Provenance: written by the engine's server-side apply and carrying the landscape's lineage;
// anything else is foreign, never reused, and the plan warns about it), the class label and the
// hash of the request's configuration (annotations on the Secret), the parsed material itself (validity,
// signature by the requested CA, matching keys) and the time. Expiring material is renewed at
// 80 % of its validity or ten days before its end, whichever comes first, as Gardener's secrets
// manager does. Rotation happens only on request; rotating a CA
// renews every certificate it signed on the same run, because their check against the new CA
// fails. The decision never depends on randomness; the material does.
//
// Unlike Gardener's secrets manager, which names immutable Secrets after a hash of their
// configuration and rotation time, a generated Secret keeps one stable name and
// is updated in place: consumers name it once, and prune and state need no knowledge of
// generations. Gardener's two-phase CA rotation with an old-and-new CA bundle (Gardener's
// docs/usage/shoot-operations/shoot_credentials_rotation.md) is not reproduced: a rotated CA
// replaces the old one at once.
package secrets
