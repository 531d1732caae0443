package shoot

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shootextensions"
	"github.com/declarative-gardener/gardener/components/shootsystem"
	"github.com/declarative-gardener/gardener/engine/render"
)

// extValues are the shoot as the extension resources see it.
func (b *builder) extValues() (shootextensions.Values, error) {
	v := b.v
	ev := shootextensions.Values{
		Project: v.Project, Name: b.name, TechnicalID: b.ns, KubernetesVersion: v.Kubernetes.Version, Purpose: v.Purpose,
		Provider: shootextensions.Provider{
			Type: v.Provider.Type, Region: v.Region,
			InfrastructureConfig: v.Provider.InfrastructureConfig, ControlPlaneConfig: v.Provider.ControlPlaneConfig,
		},
		Networking:       shootextensions.Networking{Pods: b.pods, Services: b.services, Nodes: b.nodes},
		CloudProfileName: v.CloudProfile, SeedName: b.seed.Name,
		CloudProfile: v.CloudProfileObject, Seed: b.seed.Object,
		Shoot: b.shootObject(),
	}
	if p := v.CloudProfileObject; p != nil {
		u := unstructured.Unstructured{Object: p}
		if u.GetKind() != v.CloudProfileKind || u.GetName() != v.CloudProfile {
			return ev, fmt.Errorf("cloud_profile_object is %s %q, not the %s %q the shoot names in cloud_profile", u.GetKind(), u.GetName(), v.CloudProfileKind, v.CloudProfile)
		}
	}
	ev.Cluster.Name = b.seed.Cluster
	legacy, err := b.legacyExtensionNames()
	if err != nil {
		return ev, err
	}
	ev.LegacyNames = legacy
	if n := v.Networking; n != nil {
		ev.Networking.Type, ev.Networking.ProviderConfig, ev.Networking.IPFamilies = n.Type, n.ProviderConfig, n.IPFamilies
	}
	for _, w := range v.Workers {
		if w.MachineImage == nil || w.MachineImage.Version == "" {
			return ev, fmt.Errorf("workers %q: machine_image with name and version is required: the engine does not read the cloud profile's default image", w.Name)
		}
		pool := shootextensions.WorkerPool{
			Name: w.Name, MachineType: w.MachineType, ImageName: w.MachineImage.Name, ImageVersion: w.MachineImage.Version,
			Architecture: w.Architecture, Minimum: w.Minimum, Maximum: w.Maximum, MaxSurge: w.MaxSurge, MaxUnavailable: w.MaxUnavailable,
			Zones: w.Zones, KubernetesVersion: w.KubernetesVersion, Labels: w.Labels, Annotations: w.Annotations,
			SystemComponents: w.SystemComponentsAllowed, ProviderConfig: w.ProviderConfig,
		}
		if w.Volume != nil {
			pool.VolumeSize, pool.VolumeType = w.Volume.Size, w.Volume.Type
		}
		for _, t := range w.Taints {
			pool.Taints = append(pool.Taints, shootextensions.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		if b.hibernated {
			// All machines are deleted before machine-controller-manager scales down
			// (Gardener's "Worker" docs/extensions/resources/worker.md): the pools shrink to nothing, and
			// the Worker is ready once its controller reconciled them.
			pool.Minimum, pool.Maximum = 0, 0
		}
		ev.Workers = append(ev.Workers, pool)
	}
	for _, e := range b.extensions() {
		ext := shootextensions.Extension{Type: e.Type, ProviderConfig: e.ProviderConfig, Disabled: e.Disabled}
		if l, ok := v.ExtensionLifecycles[e.Type]; ok {
			ext.Lifecycle = shootextensions.Lifecycle{Reconcile: l.Reconcile, Delete: l.Delete, Migrate: l.Migrate}
		}
		// "If an extension configured in the spec of a workerless Shoot is not supported yet,
		// the admission request will be rejected" (Gardener's "Extension"
		// docs/extensions/resources/extension.md).
		if l, known := v.ExtensionLifecycles[e.Type]; known && len(v.Workers) == 0 && !e.Disabled && !l.WorkerlessSupported {
			return ev, fmt.Errorf("extensions %q: its registration does not support workerless shoots (workerless_supported)", e.Type)
		}
		if len(v.Workers) == 0 && !e.Disabled && ext.ReconcileStep() == shootextensions.AfterWorker {
			return ev, fmt.Errorf("extensions %q: it is reconciled AfterWorker, and a workerless shoot has no workers", e.Type)
		}
		ev.Extensions = append(ev.Extensions, ext)
	}
	if b.seed.BackupProvider != "" {
		// The entry uses the seed's copy of the backup credentials (components/seed).
		ev.Backup = &shootextensions.Backup{ProviderType: b.seed.BackupProvider, Region: b.seed.BackupRegion, BucketName: seed.BackupBucketName(b.seed.Name),
			SecretName: seed.BackupSecretName(b.seed.Name), SecretNamespace: seed.GardenNamespace}
	}
	return ev, nil
}

// extensions are the shoot's extensions blocks followed by the globally enabled types it does not
// list, in type order: "the Extension resources of the given type is created for every shoot
// cluster", for a workerless shoot only if the type supports it (Gardener's
// docs/extensions/resources/extension.md). A block with disabled = true opts out of a globally
// enabled type (Gardener's "ControllerRegistration" docs/extensions/registration.md).
func (b *builder) extensions() []Extension {
	out := slices.Clone(b.v.Extensions)
	listed := map[string]bool{}
	for _, e := range out {
		listed[e.Type] = true
	}
	for _, typ := range slices.Sorted(maps.Keys(b.v.ExtensionLifecycles)) {
		l := b.v.ExtensionLifecycles[typ]
		if l.GloballyEnabled && !listed[typ] && (len(b.v.Workers) > 0 || l.WorkerlessSupported) {
			out = append(out, Extension{Type: typ})
		}
	}
	return out
}

// legacyExtensionNames finds, once per rendering, which of the shoot's Infrastructure and
// ControlPlane exist under the names earlier versions gave them (shootextensions.LegacyNames):
// those keep them, so that a landscape applied by an earlier version is not made to delete its
// infrastructure. Workerless shoots have neither.
func (b *builder) legacyExtensionNames() (shootextensions.LegacyNames, error) {
	if b.legacyNames != nil || len(b.v.Workers) == 0 {
		return ptr.Deref(b.legacyNames, shootextensions.LegacyNames{}), nil
	}
	exists := func(resource, name string) (bool, error) {
		obj, err := b.in.Observed(render.LiveRef{
			Cluster: b.seed.Cluster, Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: resource, Namespace: b.ns, Name: name,
		})
		return obj != nil, err
	}
	var names shootextensions.LegacyNames
	var err error
	if names.Infrastructure, err = exists("infrastructures", shootextensions.LegacyInfrastructureName); err != nil {
		return names, err
	}
	if names.ControlPlane, err = exists("controlplanes", shootextensions.LegacyControlPlaneName); err != nil {
		return names, err
	}
	b.legacyNames = &names
	return names, nil
}

// legacyNameNote is what the plan says for a part whose resource keeps the name an earlier version
// gave it.
func legacyNameNote(kind, name string) string {
	return fmt.Sprintf("the %s keeps its name %s from an earlier version (Gardener names it after the shoot): renaming it would make its provider delete it and create it again", kind, name)
}

// shootextensionsCluster is the extensions Cluster with the Shoot as declared.
func shootextensionsCluster(b *builder) (render.Object, error) {
	ev, err := b.extValues()
	if err != nil {
		return render.Object{}, err
	}
	return shootextensions.Cluster(ev)
}

// extensionResources places the extension resources in the steps of the reconcile flow
// (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go). A workerless shoot has none of Infrastructure, ControlPlane, Network,
// OperatingSystemConfig and Worker (Gardener's "Workerless Shoots"
// docs/usage/shoot/shoot_workerless.md); the builders return none for it.
func (b *builder) extensionResources() error {
	ev, err := b.extValues()
	if err != nil {
		return err
	}
	build := func(f func(shootextensions.Values) ([]render.Object, error)) ([]render.Object, error) { return f(ev) }
	step := func(s string, deletedAfter bool) func(shootextensions.Values) ([]render.Object, error) {
		return func(v shootextensions.Values) ([]render.Object, error) {
			return shootextensions.Extensions(deletedAs(v, deletedAfter), s)
		}
	}
	type resource struct {
		part   string
		f      func(shootextensions.Values) ([]render.Object, error)
		scaled bool
		deps   []string
	}
	workers := len(b.v.Workers) > 0
	resources := []resource{
		{part: "infrastructure", f: shootextensions.Infrastructure, deps: []string{"cluster", "cloudprovider"}},
		{part: "extensions_before_kube_apiserver", f: step(shootextensions.BeforeKubeAPIServer, false), scaled: true, deps: []string{"cluster"}},
		{part: "extensions_before_kube_apiserver" + deletedAfterSuffix, f: step(shootextensions.BeforeKubeAPIServer, true), scaled: true, deps: []string{"cluster"}},
		{part: "extensions_after_kube_apiserver", f: step(shootextensions.AfterKubeAPIServer, false), scaled: true, deps: []string{"cluster", "kube_apiserver"}},
		{part: "extensions_after_kube_apiserver" + deletedAfterSuffix, f: step(shootextensions.AfterKubeAPIServer, true), scaled: true, deps: []string{"cluster", "kube_apiserver"}},
		// The provider's control-plane components after the Infrastructure, whose status
		// they read (Gardener's "ControlPlane" docs/extensions/resources/controlplane.md).
		{part: "control_plane", f: shootextensions.ControlPlanes, scaled: true, deps: []string{"cluster", "cloudprovider", "infrastructure", "kube_apiserver"}},
		{part: "network", f: shootextensions.Network, deps: []string{"cluster", "kube_apiserver"}},
		{part: "operating_system_configs", f: shootextensions.OperatingSystemConfigs, deps: []string{"cluster", "kube_apiserver"}},
		{part: "container_runtimes", f: shootextensions.ContainerRuntimes, deps: []string{"cluster"}},
	}
	if ev.Backup != nil {
		// The etcd backups' entry in the seed's bucket, before etcd-main (Gardener's "BackupEntry"
		// docs/extensions/resources/backupentry.md), named <technical ID>--<uid> as gardenlet names
		// it (pkg/gardenlet/operation/botanist/backupentry.go at Gardener v1.120.0): the
		// extension controller finds the control-plane namespace for the etcd-backup Secret by
		// cutting the uid off the name, and removes the entry's folder of the bucket with it.
		err := b.addIdentified("backup_entry", "manifests", false, []string{"cluster"}, func(id shootIdentity) ([]render.Object, error) {
			entry := ev
			entry.UID = id.uid
			return shootextensions.BackupEntry(entry)
		})
		if err != nil {
			return err
		}
	}
	for _, r := range resources {
		objs, err := build(r.f)
		if err != nil {
			return err
		}
		if len(objs) == 0 {
			continue
		}
		if r.scaled {
			b.addScaled(r.part, "manifests", objs, r.deps...)
		} else {
			b.add(r.part, "manifests", objs, r.deps...)
		}
	}
	for _, part := range []string{"extensions_before_kube_apiserver", "extensions_before_kube_apiserver" + deletedAfterSuffix} {
		if b.has(part) {
			b.dependOn("kube_apiserver", part)
		}
	}
	if b.has("infrastructure") {
		b.dependOn("kube_apiserver", "infrastructure")
	}
	if p := b.part("infrastructure"); p != nil && ev.LegacyNames.Infrastructure {
		p.Note = joinNotes(p.Note, legacyNameNote("Infrastructure", shootextensions.LegacyInfrastructureName))
	}
	if p := b.part("control_plane"); p != nil && ev.LegacyNames.ControlPlane {
		p.Note = joinNotes(p.Note, legacyNameNote("ControlPlane", shootextensions.LegacyControlPlaneName))
	}
	if !workers {
		b.extensionDeletionOrder()
		return nil
	}
	if err := b.machineControllers(); err != nil {
		return err
	}
	// The Worker after its OperatingSystemConfigs (Gardener's docs/extensions/resources/worker.md),
	// the Infrastructure (Gardener's docs/extensions/resources/worker.md) and
	// machine-controller-manager, which creates its machines (Gardener's
	// docs/extensions/resources/worker.md).
	worker, err := shootextensions.Worker(ev)
	if err != nil {
		return err
	}
	deps := []string{"cluster", "infrastructure", "operating_system_configs", "machine_controller_manager"}
	if b.has("control_plane") {
		deps = append(deps, "control_plane")
	}
	b.addScaled("worker", "manifests", worker, deps...)
	for _, deletedAfter := range []bool{false, true} {
		after, err := shootextensions.Extensions(deletedAs(ev, deletedAfter), shootextensions.AfterWorker)
		if err != nil {
			return err
		}
		part := "extensions_after_worker"
		if deletedAfter {
			part += deletedAfterSuffix
		}
		if len(after) > 0 {
			b.addScaled(part, "manifests", after, "cluster", "worker")
		}
	}
	b.extensionDeletionOrder()
	return nil
}

// deletedAfterSuffix names the parts of Extensions whose registration deletes them after the
// kube-apiserver instead of before it (Gardener's docs/extensions/registration.md).
const deletedAfterSuffix = "_deleted_after_kube_apiserver"

// deletedAs keeps the Extensions deleted after the kube-apiserver (deletedAfter) or the others.
func deletedAs(v shootextensions.Values, deletedAfter bool) shootextensions.Values {
	var keep []shootextensions.Extension
	for _, e := range v.Extensions {
		if (e.DeleteStep() == shootextensions.AfterKubeAPIServer) == deletedAfter {
			keep = append(keep, e)
		}
	}
	v.Extensions = keep
	return v
}

// extensionDeletionOrder makes deleting the shoot follow each Extension's delete lifecycle
// rather than the reverse of its reconcile placement (Gardener's docs/extensions/registration.md):
// one reconciled before the kube-apiserver but deleted before it (the default) is deleted before
// the kube-apiserver, and one reconciled after the kube-apiserver or the workers but deleted after
// the kube-apiserver waits for the kube-apiserver to go.
func (b *builder) extensionDeletionOrder() {
	kas := b.part("kube_apiserver")
	if kas == nil {
		return
	}
	kasDeletion := func() []string {
		if kas.DeletionDependsOn == nil {
			kas.DeletionDependsOn = append([]string{}, kas.DependsOn...)
		}
		return kas.DeletionDependsOn
	}
	if p := b.part("extensions_before_kube_apiserver"); p != nil {
		p.DeletionDependsOn = []string{"cluster", "kube_apiserver"}
		kas.DeletionDependsOn = slices.DeleteFunc(kasDeletion(), func(d string) bool { return d == p.Name })
	}
	for _, name := range []string{"extensions_after_kube_apiserver", "extensions_after_worker"} {
		if p := b.part(name + deletedAfterSuffix); p != nil {
			p.DeletionDependsOn = []string{"cluster"}
			kas.DeletionDependsOn = append(kasDeletion(), p.Name)
		}
	}
}

// part is the part of that name, nil when there is none.
func (b *builder) part(name string) *render.Component {
	for i := range b.parts {
		if b.parts[i].Name == name {
			return &b.parts[i]
		}
	}
	return nil
}

// systemComponents: the shoot system components as ManagedResources without a class, which the
// shoot's resource manager applies into the shoot (Gardener's "Conventions"
// docs/extensions/conventions.md), once it and the API server run.
func (b *builder) systemComponents() error {
	v := b.v
	if len(v.Workers) == 0 {
		// Without nodes no system component runs in the shoot (Gardener's
		// docs/usage/shoot/shoot_workerless.md).
		return nil
	}
	sv := shootsystem.Values{
		KubernetesVersion: v.Kubernetes.Version, ServiceCIDR: b.services, PodCIDR: b.pods, NodeCIDR: b.nodes,
		VPN: shootsystem.VPNConfig{
			Endpoint: "api." + b.domain(), HighAvailability: b.highAvailability(),
			Client: shootsystem.Generated{Namespace: b.ns, Name: secretVPNShootClient}, CA: shootsystem.Generated{Namespace: b.ns, Name: secretVPNCA},
			TLSAuth: shootsystem.Generated{Namespace: b.ns, Name: secretVPNTLSAuth},
		},
		MetricsServer: shootsystem.MetricsServerConfig{TLS: shootsystem.Generated{Namespace: b.ns, Name: secretMetricsServer}},
		// kube-proxy's kubeconfig and CoreDNS reach the API server by its internal domain
		// (ComputeOutOfClusterAPIServerAddress(true) at gardener/gardener v1.120.0).
		APIServerHost: b.internalAPIServerHost(),
		ClusterCA:     shootsystem.Generated{Namespace: b.ns, Name: secretCA},
		VPAEnabled:    v.Kubernetes.VerticalPodAutoscalerEnabled != nil && *v.Kubernetes.VerticalPodAutoscalerEnabled,
	}
	for _, w := range v.Workers {
		sv.WorkerPools = append(sv.WorkerPools, shootsystem.WorkerPool{
			Name: w.Name, KubernetesVersion: w.KubernetesVersion, Zones: w.Zones,
			NoSystemComponents: w.SystemComponentsAllowed != nil && !*w.SystemComponentsAllowed,
		})
	}
	proxy := kubeProxyDefaults()
	if k := v.Kubernetes.KubeProxy; k != nil {
		proxy = *k
	}
	sv.KubeProxy.Disabled, sv.KubeProxy.Mode, sv.KubeProxy.FeatureGates = !proxy.Enabled, proxy.Mode, proxy.FeatureGates
	if s := v.SystemComponents; s != nil {
		sv.NodeLocalDNS.Enabled = s.NodeLocalDNSEnabled && len(v.Workers) > 0
	}
	objs, err := shootsystem.ManagedResources(sv, b.seed.Cluster, b.ns)
	if err != nil {
		return fmt.Errorf("system components: %w", err)
	}
	b.add("system_components", "managed_resource", objs, "gardener_resource_manager", "kube_apiserver", "ca", "vpn_shoot_client", "vpn_seed_server_tlsauth", "metrics_server_tls")
	return b.apiServerProxy(sv)
}

// has reports whether a part of that name exists.
func (b *builder) has(part string) bool { return b.part(part) != nil }

// dependOn adds dependencies to an existing part.
func (b *builder) dependOn(part string, deps ...string) {
	if p := b.part(part); p != nil {
		p.DependsOn = append(p.DependsOn, deps...)
	}
}
