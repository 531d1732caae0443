package readiness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Rules for the custom resources a seed or runtime cluster carries: etcd-druid's Etcd,
// gardener-resource-manager's ManagedResource, and the extensions.gardener.cloud kinds that
// extension controllers reconcile.

// etcdReady: etcd-druid reports status.ready=true for the current generation, and AllMembersReady
// (when reported) is True. Gardener's documentation does not name the status field; status.ready
// and observedGeneration follow etcd-druid v1alpha1 as the local stand-in CRD models it
// (tests/localcluster/crds/README.md). The reason adds member counts and druid's last errors.
func etcdReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, behind := requireObserved(obj); behind {
		return s
	}
	conds := conditions(obj)
	isReady, _, _ := unstructured.NestedBool(obj.Object, "status", "ready")
	var reasons []string
	if !isReady {
		r := "etcd not ready"
		if want, ok := intField(obj, "spec", "replicas"); ok {
			r = fmt.Sprintf("etcd not ready: %d of %d members ready", intOr(obj, 0, "status", "readyReplicas"), want)
		}
		if c, ok := findCondition(conds, "Ready"); ok && c.Status != "True" {
			r = withDetail(r, c.describe())
		}
		reasons = append(reasons, r)
	}
	reasons = append(reasons, trueIfPresent(conds, "AllMembersReady")...)
	if len(reasons) == 0 {
		return ready()
	}
	if detail := errorDetail(readLastErrors(obj)); detail != "" {
		reasons = append(reasons, "last errors: "+detail)
	}
	return notReady(joinReasons(reasons))
}

// ignoreAnnotation makes gardener-resource-manager skip a ManagedResource entirely (Gardener's
// "Gardener Resource Manager" docs/concepts/resource-manager.md): it is never
// reconciled again, so its conditions never move and waiting on them would only end in a timeout.
const ignoreAnnotation = "resources.gardener.cloud/ignore"

// managedResourceReady: "healthy if ResourcesApplied=ResourcesHealthy=True and
// ResourcesProgressing=False" (Gardener's "gardenlet" docs/concepts/gardenlet.md,
// pkg/utils/kubernetes/health/managedresource.go) for the current generation. An absent Progressing condition is accepted; a True
// one is not.
func managedResourceReady(obj *unstructured.Unstructured, _ Options) Status {
	if obj.GetAnnotations()[ignoreAnnotation] == "true" {
		return ready()
	}
	if s, behind := requireObserved(obj); behind {
		return s
	}
	conds := conditions(obj)
	return readyUnless(append(requireTrue(conds, "ResourcesApplied", "ResourcesHealthy"), notTrue(conds, "ResourcesProgressing")...))
}

// extensionReady applies to every kind of extensions.gardener.cloud (pkg/utils/kubernetes/health/extensions.go and line 709): no
// gardener.cloud/operation request pending, the current generation observed, and
// status.lastOperation.state Succeeded. Failed, or Error with a user-error code, is terminal.
func extensionReady(obj *unstructured.Unstructured, _ Options) Status {
	if s, pending := pendingOperation(obj); pending {
		return s
	}
	if s, behind := requireObserved(obj); behind {
		return s
	}
	return lastOperationStatus(obj)
}
