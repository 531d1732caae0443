package shoot

import (
	"fmt"
	"sort"

	"github.com/Masterminds/semver/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/declarative-gardener/gardener/components/kubescheduler"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/engine/render"
)

// grmBootstrap is whether the shoot's gardener-resource-manager starts with its bootstrap
// kubeconfig, and why (resourcemanager.MustBootstrap). A shoot rendered without live reads
// (Parts, a first plan) has no access Secret yet, so it does not.
type grmBootstrap struct {
	needed bool
	reason string
}

// decideResourceManagerBootstrap reads the GRM's live access Secret and its shoot ManagedResource
// and decides, as gardenlet does before it deploys the GRM
// (DeployGardenerResourceManager in pkg/component/shared/resourcemanager.go at gardener/gardener
// v1.120.0), whether the GRM has to bootstrap its token. gardenlet bootstraps, waits for the token
// and deploys the GRM again within one reconciliation; the engine renders the GRM with the
// bootstrap kubeconfig once a plan saw its access Secret without a token, until a plan sees the
// token, and the next plan (the daemon's, whose watch sees the token written) renders it with the
// token and deletes the bootstrap, superseded.
func (b *builder) decideResourceManagerBootstrap(in render.Input) error {
	access, err := in.Observed(render.LiveRef{Cluster: b.seed.Cluster, Version: "v1", Resource: "secrets", Namespace: b.ns, Name: resourcemanager.AccessSecretName})
	if err != nil {
		return fmt.Errorf("read the gardener-resource-manager access secret: %w", err)
	}
	if access != nil {
		// Only the token requestor's annotations are needed; the token stays out of the rendering.
		delete(access.Object, "data")
		delete(access.Object, "stringData")
	}
	managed, err := in.Observed(render.LiveRef{Cluster: b.seed.Cluster, Group: "resources.gardener.cloud", Version: "v1alpha1", Resource: "managedresources", Namespace: b.ns, Name: resourcemanager.ShootManagedResourceName})
	if err != nil {
		return fmt.Errorf("read the ManagedResource %s: %w", resourcemanager.ShootManagedResourceName, err)
	}
	replicas := int32(resourcemanager.Replicas)
	if b.hibernated {
		replicas = 0
	}
	needed, reason, err := resourcemanager.MustBootstrap(replicas, access, managed, in.Observation())
	if err != nil {
		return fmt.Errorf("gardener-resource-manager: %w", err)
	}
	b.grm = grmBootstrap{needed: needed, reason: reason}
	return nil
}

// resourceManagerTarget is what makes the shoot's GRM the shoot's (DefaultResourceManager in
// pkg/gardenlet/operation/botanist/resource_manager.go at v1.120.0).
func (b *builder) resourceManagerTarget() *resourcemanager.ShootTarget {
	v := b.v
	t := &resourcemanager.ShootTarget{
		CASecretName: secretCA, GenericKubeconfigSecretName: secretGenericToken,
		// The seed's cluster identity; the engine identifies a seed by its name, as it does in the
		// extensions' mix-ins.
		ClusterIdentity:            b.seed.Name,
		KubernetesServiceHost:      b.internalAPIServerHost(),
		Workerless:                 len(v.Workers) == 0,
		SystemComponentTolerations: systemComponentTolerations(v.Workers),
		Bootstrap:                  b.grm.needed,
	}
	if s := v.Kubernetes.KubeScheduler; s != nil {
		t.BinPacking = s.Profile == kubescheduler.ProfileBinPacking
	}
	var apiGates, schedulerGates map[string]bool
	if k := v.Kubernetes.KubeAPIServer; k != nil {
		apiGates = k.FeatureGates
	}
	if s := v.Kubernetes.KubeScheduler; s != nil {
		schedulerGates = s.FeatureGates
	}
	t.AuthorizeWithSelectors = authorizeWithSelectors(v.Kubernetes.Version, apiGates)
	// The webhook stands in for MatchLabelKeysInPodTopologySpread where the shoot turned the gate
	// off in both kube-apiserver and kube-scheduler
	// (IsMatchLabelKeysInPodTopologySpreadFeatureGateDisabled in pkg/utils/gardener/shoot.go).
	api, apiSet := apiGates["MatchLabelKeysInPodTopologySpread"]
	sched, schedSet := schedulerGates["MatchLabelKeysInPodTopologySpread"]
	t.PodTopologySpreadConstraints = apiSet && schedSet && !api && !sched
	return t
}

// authorizeWithSelectors: from Kubernetes 1.32 the node agent authorizer may use selectors,
// unless kube-apiserver's AuthorizeWithSelectors gate is off (IsAuthorizeWithSelectorsEnabled in
// pkg/utils/gardener/shoot.go at v1.120.0).
func authorizeWithSelectors(version string, gates map[string]bool) bool {
	v, err := semver.NewVersion(version)
	if err != nil || v.LessThan(semver.MustParse("1.32.0")) {
		return false
	}
	if on, set := gates["AuthorizeWithSelectors"]; set {
		return on
	}
	return true
}

// internalAPIServerHost is the shoot API server's address in the internal domain,
// api.<name>.<project>.<internal domain> (ComputeOutOfClusterAPIServerAddress(true) in
// pkg/gardenlet/operation/shoot/shoot.go at v1.120.0); in a landscape without an internal domain,
// api.<shoot domain>.
func (b *builder) internalAPIServerHost() string {
	if d := b.v.InternalDomain; d != nil && d.Domain != "" {
		return "api." + b.name + "." + b.v.Project + "." + d.Domain
	}
	return "api." + b.domain()
}

// systemComponentTolerations tolerate the taints of the worker pools that allow system components
// (ExtractSystemComponentsTolerations in pkg/utils/gardener/shoot.go at v1.120.0), each once, in
// a stable order.
func systemComponentTolerations(workers []Worker) []corev1.Toleration {
	seen := map[corev1.Toleration]bool{}
	var out []corev1.Toleration
	for _, w := range workers {
		if w.SystemComponentsAllowed != nil && !*w.SystemComponentsAllowed {
			continue
		}
		for _, taint := range w.Taints {
			t := corev1.Toleration{Key: taint.Key, Effect: corev1.TaintEffect(taint.Effect), Operator: corev1.TolerationOpEqual, Value: taint.Value}
			if taint.Value == "" {
				t.Operator, t.Value = corev1.TolerationOpExists, ""
			}
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Effect < out[j].Effect
	})
	return out
}
