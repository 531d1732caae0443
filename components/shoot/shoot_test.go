package shoot

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func seedRef(zones ...string) *SeedRef {
	return &SeedRef{
		Name: "local", Cluster: "seed1", VirtualCluster: "virtual_garden", ProviderType: "local", Region: "local",
		Zones: zones, IngressDomain: "ingress.local.seed.example.com", Pods: "10.1.0.0/16", Services: "10.2.0.0/16",
	}
}

// values is a shoot with one autoscaling worker pool on a single-zone seed.
func values(mutate func(*Values)) Values {
	v := rendertest.Overlay(Type.Defaults(), Values{
		Project: "local", Seed: seedRef("0"), CloudProfile: "local", Region: "local", CredentialsBinding: "local",
		Purpose:    "development",
		Kubernetes: Kubernetes{Version: "1.31.1"},
		Networking: &Networking{Type: "calico", Pods: "10.3.0.0/16", Services: "10.4.0.0/16", Nodes: "10.5.0.0/16"},
		Provider:   Provider{Type: "local"},
	})
	w := Worker{Name: "local", MachineType: "local", Minimum: 1, Maximum: 3}
	w.MachineImage = &struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}{Name: "local", Version: "1.0.0"}
	v.Workers = []Worker{w}
	if mutate != nil {
		mutate(&v)
	}
	return v
}

// withDNS gives the shoot the landscape's internal and default domains.
func withDNS(v *Values) {
	v.InternalDomain = &DNSDomain{Domain: "internal.example.com", ProviderType: "local", SecretRef: "internal-domain-local"}
	v.DefaultDomain = &DNSDomain{Domain: "shoot.example.com", ProviderType: "local", SecretRef: "default-domain-local"}
}

func ha(tolerance string) func(*Values) {
	return func(v *Values) {
		v.ControlPlane = &ControlPlane{HighAvailability: &struct {
			FailureTolerance string `json:"failure_tolerance"`
		}{FailureTolerance: tolerance}}
	}
}

func hibernated(v *Values) { v.Hibernation = &Hibernation{Enabled: true} }

func workerless(v *Values) {
	v.Workers = nil
	v.CredentialsBinding, v.SecretBinding = "", "" // Gardener forbids a binding without workers
	v.Networking = &Networking{Services: "10.4.0.0/16"}
	sshByDefault := true // the schema's default, which a workerless Shoot must not carry
	v.Provider.SSHAccessEnabled = &sshByDefault
}

// parts are the parts of the shoot block dev as apply renders them: those that wait for the
// Shoot are rendered once it exists (asApplied). newParts are the parts before the Shoot exists.
func parts(t *testing.T, v Values) map[string]render.Component {
	t.Helper()
	return byName(t, asApplied(t, newParts(t, v)))
}

func newParts(t *testing.T, v Values) []render.Component {
	t.Helper()
	ps, err := Parts("dev", v)
	require.NoError(t, err)
	return ps
}

func byName(t *testing.T, ps []render.Component) map[string]render.Component {
	t.Helper()
	out := map[string]render.Component{}
	for _, p := range ps {
		require.NotContains(t, out, p.Name, "part names are unique")
		out[p.Name] = p
	}
	return out
}

// order returns the parts in an order that respects every dependency, and fails on a cycle or a
// dependency on a part that does not exist.
func order(t *testing.T, ps map[string]render.Component) []string {
	t.Helper()
	done := map[string]bool{}
	var out []string
	for len(out) < len(ps) {
		var ready []string
		for name, p := range ps {
			if done[name] {
				continue
			}
			ok := true
			for _, d := range p.DependsOn {
				require.Contains(t, ps, d, "%s depends on a part that does not exist", name)
				ok = ok && done[d]
			}
			if ok {
				ready = append(ready, name)
			}
		}
		require.NotEmpty(t, ready, "the parts' dependencies have a cycle")
		slices.Sort(ready)
		for _, r := range ready {
			done[r] = true
		}
		out = append(out, ready...)
	}
	return out
}

func before(t *testing.T, seq []string, first, then string) {
	t.Helper()
	i, j := slices.Index(seq, first), slices.Index(seq, then)
	require.NotEqual(t, -1, i, first)
	require.NotEqual(t, -1, j, then)
	assert.Less(t, i, j, "%s comes before %s", first, then)
}

func find(t *testing.T, p render.Component, kind, name string) *unstructured.Unstructured {
	t.Helper()
	return rendertest.MustFind(t, p.Objects, kind, name)
}

func TestShootGolden(t *testing.T) {
	for name, v := range map[string]Values{
		"default":       values(nil),
		"ha-zone":       values(func(v *Values) { ha(FailureToleranceZone)(v); v.Seed = seedRef("a", "b", "c") }),
		"hibernated":    values(hibernated),
		"workerless":    values(workerless),
		"multi-zone-1":  values(func(v *Values) { v.Seed = seedRef("a", "b", "c") }),
		"dns":           values(withDNS),
		"observability": values(func(v *Values) { v.Seed.Observability = SeedObservability{Enabled: true, LoggingEnabled: true} }),
		"backup":        values(withBackup),
	} {
		t.Run(name, func(t *testing.T) {
			golden.AssertBytes(t, name+".txt", rendertest.Parts(t, asApplied(t, newParts(t, v))))
		})
	}
}

// The control-plane namespace carries gardenlet's labels and annotations
// (pkg/gardenlet/operation/botanist/namespaces.go and its test at Gardener v1.120.0).
func TestNamespace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v         Values
		tolerance string
		zones     string
	}{
		{"no high availability", values(nil), "", "0"},
		{"node", values(ha(FailureToleranceNode)), "node", "0"},
		{"zone", values(func(v *Values) { ha(FailureToleranceZone)(v); v.Seed = seedRef("c", "a", "b", "d") }), "zone", "a,b,c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := find(t, parts(t, tc.v)["namespace"], "Namespace", "shoot--local--dev")
			assert.Equal(t, map[string]string{
				"gardener.cloud/role": "shoot", "shoot.gardener.cloud/provider": "local", "seed.gardener.cloud/provider": "local",
				"networking.shoot.gardener.cloud/provider": "calico", "backup.gardener.cloud/provider": "local",
				"pod-security.kubernetes.io/enforce":                         "privileged",
				"high-availability-config.resources.gardener.cloud/consider": "true",
			}, ns.GetLabels())
			assert.Equal(t, tc.tolerance, ns.GetAnnotations()[AnnotationFailureToleranceTyp])
			assert.Equal(t, tc.zones, ns.GetAnnotations()[AnnotationZones])
			uid, err := render.LiveRefs(ns.GetAnnotations()["shoot.gardener.cloud/uid"])
			require.NoError(t, err)
			require.Len(t, uid, 1, "the Shoot's UID, known once the Shoot exists")
			assert.Equal(t, []string{"status.uid", "metadata.uid"}, uid[0].Paths)
			assert.Equal(t, "shoots", uid[0].Resource)
		})
	}
}

// The namespace's labels name the seed's backup provider and every Extension type the shoot
// needs: globally enabled ones, also on a workerless shoot, and listed ones, less those it
// disables (getShootRequiredExtensionTypes in pkg/gardenlet/operation/botanist/namespaces.go at
// Gardener v1.120.0). Without zones on the seed there is no zones annotation.
func TestNamespaceExtensionAndBackupLabels(t *testing.T) {
	v := values(func(v *Values) {
		v.Seed.BackupProvider, v.Seed.BackupRegion, v.Seed.Zones = "s3", "eu", nil
		v.ExtensionLifecycles = map[string]ExtensionLifecycle{"shoot-dns-service": {GloballyEnabled: true}, "shoot-oidc-service": {GloballyEnabled: true}}
		v.Extensions = []Extension{{Type: "shoot-cert-service"}, {Type: "shoot-oidc-service", Disabled: true}}
	})
	ns := find(t, parts(t, v)["namespace"], "Namespace", "shoot--local--dev")
	labels := ns.GetLabels()
	assert.Equal(t, "s3", labels["backup.gardener.cloud/provider"], "the seed's backup provider wins over its provider type")
	assert.Equal(t, "true", labels["extensions.gardener.cloud/shoot-dns-service"], "globally enabled")
	assert.Equal(t, "true", labels["extensions.gardener.cloud/shoot-cert-service"], "listed")
	assert.NotContains(t, labels, "extensions.gardener.cloud/shoot-oidc-service", "disabled by the shoot")
	assert.NotContains(t, ns.GetAnnotations(), AnnotationZones)
}

// The zone a control plane is pinned to is one of the seed's and the same on every render.
func TestPinnedZoneIsStable(t *testing.T) {
	v := values(func(v *Values) { v.Seed = seedRef("a", "b", "c") })
	zone := find(t, parts(t, v)["namespace"], "Namespace", "shoot--local--dev").GetAnnotations()[AnnotationZones]
	assert.Contains(t, []string{"a", "b", "c"}, zone)
	for range 3 {
		assert.Equal(t, zone, find(t, parts(t, v)["namespace"], "Namespace", "shoot--local--dev").GetAnnotations()[AnnotationZones])
	}
	// ... and the kube-apiserver is exposed through that zone's ingress gateway (Gardener's "Istio"
	// docs/operations/istio.md).
	gw := find(t, parts(t, v)["kube_apiserver"], "Gateway", "kube-apiserver")
	selector, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
	assert.Equal(t, "ingressgateway--zone--"+zone, selector["istio"])
}

// Replicas by failure tolerance (Gardener's docs/development/high-availability-of-components.md,
// "Shoot High Availability" docs/usage/high-availability/shoot_high_availability.md): etcd 3 with
// any HA; controllers 1 without and 2 with HA; vpn-seed-server 2 with HA.
func TestHighAvailabilityReplicas(t *testing.T) {
	for _, tc := range []struct {
		name             string
		v                Values
		etcd, controller int64
	}{
		{"none", values(nil), 1, 1},
		{"node", values(ha(FailureToleranceNode)), 3, 2},
		{"zone", values(func(v *Values) { ha(FailureToleranceZone)(v); v.Seed = seedRef("a", "b", "c") }), 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := parts(t, tc.v)
			for _, role := range []string{"main", "events"} {
				e := find(t, ps["etcd_"+role], "Etcd", "etcd-"+role)
				replicas, _, _ := unstructured.NestedInt64(e.Object, "spec", "replicas")
				assert.Equal(t, tc.etcd, replicas, "etcd-%s", role)
			}
			kcm := find(t, ps["kube_controller_manager"], "Deployment", "kube-controller-manager")
			replicas, _, _ := unstructured.NestedInt64(kcm.Object, "spec", "replicas")
			assert.Equal(t, tc.controller, replicas)
		})
	}
}

// Priority classes of the shoot control plane (Gardener's "Priority Classes"
// docs/development/priority-classes.md).
func TestPriorityClasses(t *testing.T) {
	ps := parts(t, values(nil))
	for part, want := range map[string]string{
		"etcd_main": "gardener-system-500", "etcd_events": "gardener-system-500", "kube_apiserver": "gardener-system-500",
		"gardener_resource_manager": "gardener-system-400", "kube_controller_manager": "gardener-system-300",
		"kube_scheduler": "gardener-system-300", "machine_controller_manager": "gardener-system-300",
		"cluster_autoscaler": "gardener-system-300", "vpn_seed_server": "gardener-system-300",
	} {
		found := false
		for _, o := range ps[part].Objects {
			var pc string
			switch o.Object.GetKind() {
			case "Deployment", "StatefulSet":
				pc, _, _ = unstructured.NestedString(o.Object.Object, "spec", "template", "spec", "priorityClassName")
			case "Etcd":
				pc, _, _ = unstructured.NestedString(o.Object.Object, "spec", "priorityClassName")
			default:
				continue
			}
			found = true
			assert.Equal(t, want, pc, "%s %s", part, o.Object.GetName())
		}
		assert.True(t, found, "%s has a workload", part)
	}
}

// The reconcile order follows the shoot flow (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go).
func TestReconcileOrder(t *testing.T) {
	v := values(func(v *Values) {
		withDNS(v)
		v.Extensions = []Extension{{Type: "shoot-dns-service"}, {Type: "early"}}
		v.ExtensionLifecycles = map[string]ExtensionLifecycle{"early": {Reconcile: "BeforeKubeAPIServer"}}
		v.SystemComponents = &SystemComponents{NodeLocalDNSEnabled: true}
	})
	ps := parts(t, v)
	seq := order(t, ps)
	// The waits of gardenlet's reconcile flow (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go
	// in gardener/gardener v1.120.0), each a task and one it waits for, directly or through
	// tasks the engine has no part for; see docs/fidelity/shoot-flow-order.md.
	for _, pair := range [][2]string{
		{"cloudprovider", "infrastructure"},
		{"dns_internal_secret", "dns_record_internal"},
		{"dns_external_secret", "dns_record_external"},
		{"kube_apiserver_service", "dns_record_internal"},
		{"kube_apiserver_service", "dns_record_external"},
		{"kube_apiserver_service", "kube_apiserver"},
		{"cloudprovider", "extensions_before_kube_apiserver"},
		{"infrastructure", "extensions_before_kube_apiserver"},
		{"extensions_before_kube_apiserver", "kube_apiserver"},
		{"infrastructure", "kube_apiserver"},
		{"kube_apiserver", "vpn_seed_server"},
		{"gardener_resource_manager", "vpn_seed_server"},
		{"gardener_resource_manager", "control_plane"},
		{"gardener_resource_manager", "kube_scheduler"},
		{"gardener_resource_manager", "kube_controller_manager"},
		{"cloudprovider", "kube_controller_manager"},
		{"gardener_resource_manager", "extensions_after_kube_apiserver"},
		{"dns_record_internal", "extensions_after_kube_apiserver"},
		{"infrastructure", "operating_system_configs"},
		{"control_plane", "operating_system_configs"},
		{"extensions_after_kube_apiserver", "operating_system_configs"},
		{"gardener_resource_manager", "network"},
		{"operating_system_configs", "network"},
		{"kube_scheduler", "network"},
		{"cloudprovider", "machine_controller_manager"},
		{"infrastructure", "machine_controller_manager"},
		{"dns_record_internal", "machine_controller_manager"},
		{"operating_system_configs", "machine_controller_manager"},
		{"network", "machine_controller_manager"},
		{"kube_controller_manager", "machine_controller_manager"},
		{"dns_record_internal", "system_components"},
		{"operating_system_configs", "system_components"},
		{"kube_scheduler", "system_components"},
		{"vpn_seed_server", "system_components"}, // vpn-shoot
		{"network", "system_components"},         // node-local-dns
	} {
		before(t, seq, pair[0], pair[1])
		waitsFor(t, ps, pair[1], pair[0])
	}
	// What gardenlet does not wait for: the DNS records need the gateway's address, not the
	// kube-apiserver or its etcds, nor each other; vpn-seed-server does not wait for the
	// ControlPlane.
	for _, pair := range [][2]string{
		{"dns_record_internal", "kube_apiserver"},
		{"dns_record_internal", "etcd_main"},
		{"dns_record_external", "kube_apiserver"},
		{"dns_record_external", "dns_record_internal"},
		{"vpn_seed_server", "control_plane"},
	} {
		doesNotWaitFor(t, ps, pair[0], pair[1])
	}
	for _, pair := range [][2]string{
		{"namespace", "cluster"},
		{"cluster", "infrastructure"},
		{"etcd_main", "kube_apiserver"},   // Gardener's docs/development/secrets_management.md
		{"etcd_events", "kube_apiserver"}, // Gardener's docs/development/secrets_management.md
		{"infrastructure", "control_plane"},
		{"kube_apiserver", "extensions_after_kube_apiserver"}, // Gardener's docs/extensions/registration.md
		{"kube_apiserver", "gardener_resource_manager"},
		{"kube_apiserver", "kube_controller_manager"},
		{"operating_system_configs", "worker"}, // Gardener's docs/extensions/resources/worker.md
		{"infrastructure", "worker"},           // Gardener's docs/extensions/resources/worker.md
		{"machine_controller_manager", "worker"},
		{"worker", "cluster_autoscaler"}, // Gardener's docs/extensions/resources/worker.md
		{"gardener_resource_manager", "system_components"},
		{"shoot", "namespace"}, // gardenlet reconciles an existing Shoot
	} {
		before(t, seq, pair[0], pair[1])
	}
	assert.Equal(t, "shoot", seq[0], "the Shoot comes before its control plane")
	del := deletionOrder(t, ps)
	assert.Equal(t, "shoot", del[len(del)-1], "the delete flow runs first, the Shoot goes last")
	before(t, seq, "shoot", "garden_publication") // what gardenlet publishes for the Shoot, controlled by it
}

// Hibernation scales the control plane to zero in the opposite order (Gardener's
// docs/extensions/registration.md, docs/extensions/resources/worker.md): the autoscaler and the
// Worker first, then machine-controller-manager and the controllers, the kube-apiserver, and the
// etcds last.
func TestHibernation(t *testing.T) {
	ps := parts(t, values(hibernated))
	seq := order(t, ps)
	for _, pair := range [][2]string{
		{"cluster_autoscaler", "worker"},
		{"worker", "machine_controller_manager"},
		{"machine_controller_manager", "kube_apiserver"},
		{"kube_controller_manager", "kube_apiserver"},
		{"gardener_resource_manager", "kube_apiserver"},
		{"kube_apiserver", "etcd_main"},
		{"kube_apiserver", "etcd_events"},
		{"shoot", "cluster_autoscaler"}, // the control plane hibernates because the Shoot says so
	} {
		before(t, seq, pair[0], pair[1])
	}
	for part, kind := range map[string]string{
		"kube_apiserver": "Deployment", "kube_controller_manager": "Deployment", "kube_scheduler": "Deployment",
		"gardener_resource_manager": "Deployment", "machine_controller_manager": "Deployment",
		"cluster_autoscaler": "Deployment", "etcd_main": "Etcd", "etcd_events": "Etcd",
	} {
		for _, o := range ps[part].Objects {
			if o.Object.GetKind() != kind {
				continue
			}
			replicas, found, _ := unstructured.NestedInt64(o.Object.Object, "spec", "replicas")
			assert.True(t, found, "%s %s sets replicas", part, o.Object.GetName())
			assert.Zero(t, replicas, "%s %s", part, o.Object.GetName())
		}
	}
	assert.NotNil(t, rendertest.Find(ps["kube_apiserver"].Objects, "HorizontalPodAutoscaler", "kube-apiserver"),
		"the autoscaler stays: it leaves a target at zero alone, and hibernating deletes nothing")
	shoot := find(t, ps["shoot"], "Shoot", "dev")
	enabled, _, _ := unstructured.NestedBool(shoot.Object, "spec", "hibernation", "enabled")
	assert.True(t, enabled)
	// The etcds keep their volumes (Gardener's "Shoot Hibernation"
	// docs/usage/shoot/shoot_hibernate.md): only the replicas change.
	awake := parts(t, values(nil))
	for _, role := range []string{"main", "events"} {
		a := find(t, awake["etcd_"+role], "Etcd", "etcd-"+role).DeepCopy()
		h := find(t, ps["etcd_"+role], "Etcd", "etcd-"+role).DeepCopy()
		unstructured.RemoveNestedField(a.Object, "spec", "replicas")
		unstructured.RemoveNestedField(h.Object, "spec", "replicas")
		assert.Equal(t, a.Object, h.Object, "etcd-%s changes only its replicas", role)
	}
}

// A workerless shoot's control plane is etcds, kube-apiserver, kube-controller-manager and the
// resource manager (Gardener's "Workerless Shoots" docs/usage/shoot/shoot_workerless.md): no
// Infrastructure, Network, OperatingSystemConfig, Worker, machine-controller-manager, autoscaler,
// scheduler, VPN or system components.
func TestWorkerless(t *testing.T) {
	ps := parts(t, values(workerless))
	for _, p := range []string{"etcd_main", "etcd_events", "kube_apiserver", "kube_controller_manager", "gardener_resource_manager", "cluster", "shoot"} {
		assert.Contains(t, ps, p)
	}
	for _, p := range []string{"infrastructure", "network", "control_plane", "operating_system_configs", "worker", "machine_controller_manager",
		"cluster_autoscaler", "kube_scheduler", "vpn_seed_server", "ca_vpn", "system_components"} {
		assert.NotContains(t, ps, p)
	}
	order(t, ps)
	order(t, parts(t, values(func(v *Values) { workerless(v); hibernated(v) })))
}

// The workerless Shoot carries none of what gardener-apiserver forbids without workers
// (pkg/apis/core/validation/shoot.go at Gardener v1.120.0), even where the landscape's defaults
// set it: no workersSettings, no auto-update of machine images, no pod or node network.
func TestWorkerlessShootSpec(t *testing.T) {
	ps := parts(t, values(func(v *Values) {
		workerless(v)
		v.Networking.IPFamilies = []string{"IPv4"}
		v.Maintenance = &Maintenance{AutoUpdate: &AutoUpdate{KubernetesVersion: true, MachineImageVersion: true}}
	}))
	spec := find(t, ps["shoot"], "Shoot", "dev").Object["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "local"}, spec["provider"])
	assert.Equal(t, map[string]any{"services": "10.4.0.0/16", "ipFamilies": []any{"IPv4"}}, spec["networking"])
	assert.Equal(t, map[string]any{"kubernetesVersion": true}, spec["maintenance"].(map[string]any)["autoUpdate"])
	assert.NotContains(t, spec, "credentialsBindingName")

	withWorkers := find(t, parts(t, values(func(v *Values) {
		enabled := false
		v.Provider.SSHAccessEnabled = &enabled
	}))["shoot"], "Shoot", "dev").Object["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"sshAccess": map[string]any{"enabled": false}}, withWorkers["provider"].(map[string]any)["workersSettings"])
}

// A new Shoot names its cloud profile by reference only: gardener-apiserver refuses one that
// also sets cloudProfileName, which it fills in itself.
func TestCloudProfileReference(t *testing.T) {
	assert.Equal(t, "CloudProfile", Type.Defaults().CloudProfileKind, "the default kind")
	for kind, want := range map[string]string{"CloudProfile": "CloudProfile", "NamespacedCloudProfile": "NamespacedCloudProfile"} {
		spec := find(t, parts(t, values(func(v *Values) { v.CloudProfileKind = kind }))["shoot"], "Shoot", "dev").Object["spec"].(map[string]any)
		assert.Equal(t, map[string]any{"kind": want, "name": "local"}, spec["cloudProfile"], kind)
		assert.NotContains(t, spec, "cloudProfileName", kind)
	}
}

// cluster-autoscaler only when some pool has minimum < maximum (Gardener's "Shoot Autoscaling"
// docs/usage/autoscaling/shoot_autoscaling.md, docs/extensions/resources/worker.md).
func TestClusterAutoscalerOnlyWhenAPoolScales(t *testing.T) {
	fixed := values(func(v *Values) { v.Workers[0].Maximum = 1 })
	assert.NotContains(t, parts(t, fixed), "cluster_autoscaler")
	assert.Contains(t, parts(t, values(nil)), "cluster_autoscaler")
}

// Extensions are placed by their registration's reconcile lifecycle (Gardener's
// docs/extensions/registration.md): BeforeKubeAPIServer before the API server, AfterWorker after
// the Worker.
func TestExtensionLifecycles(t *testing.T) {
	lifecycle := func(reconcile string) ExtensionLifecycle {
		return ExtensionLifecycle{Reconcile: reconcile, Delete: "BeforeKubeAPIServer", Migrate: "BeforeKubeAPIServer"}
	}
	withLifecycles := func(v *Values) {
		v.Extensions = []Extension{{Type: "early"}, {Type: "late"}, {Type: "default"}}
		v.ExtensionLifecycles = map[string]ExtensionLifecycle{"early": lifecycle("BeforeKubeAPIServer"), "late": lifecycle("AfterWorker")}
	}
	ps := parts(t, values(withLifecycles))
	names := func(p render.Component) []string {
		var out []string
		for _, o := range p.Objects {
			out = append(out, o.Object.GetName())
		}
		return out
	}
	assert.Equal(t, []string{"early"}, names(ps["extensions_before_kube_apiserver"]))
	assert.Equal(t, []string{"default"}, names(ps["extensions_after_kube_apiserver"]))
	assert.Equal(t, []string{"late"}, names(ps["extensions_after_worker"]))
	seq := order(t, ps)
	before(t, seq, "extensions_before_kube_apiserver", "kube_apiserver")
	before(t, seq, "kube_apiserver", "extensions_after_kube_apiserver")
	before(t, seq, "worker", "extensions_after_worker")

	_, err := Parts("dev", values(func(v *Values) {
		withLifecycles(v)
		workerless(v)
		for typ, l := range v.ExtensionLifecycles {
			l.WorkerlessSupported = true // supported, but there are no workers to come after
			v.ExtensionLifecycles[typ] = l
		}
	}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `extensions "late": it is reconciled AfterWorker, and a workerless shoot has no workers`)
}

// Extensions are placed by their reconcile lifecycle; the default is AfterKubeAPIServer
// (Gardener's docs/extensions/registration.md).
func TestExtensionsAfterTheAPIServer(t *testing.T) {
	ps := parts(t, values(func(v *Values) {
		v.Extensions = []Extension{{Type: "shoot-dns-service"}, {Type: "off", Disabled: true}}
	}))
	p := ps["extensions_after_kube_apiserver"]
	assert.Contains(t, p.DependsOn, "kube_apiserver")
	require.Len(t, p.Objects, 1)
	assert.Equal(t, "shoot-dns-service", p.Objects[0].Object.GetName())
}

func TestShootObject(t *testing.T) {
	ps := parts(t, values(ha(FailureToleranceNode)))
	p := ps["shoot"]
	require.Len(t, p.Objects, 1)
	o := p.Objects[0]
	assert.Equal(t, "virtual_garden", o.Cluster)
	assert.Equal(t, "garden-local", o.Object.GetNamespace())
	spec := o.Object.Object["spec"].(map[string]any)
	assert.Equal(t, "local", spec["seedName"])
	assert.Equal(t, "local", spec["credentialsBindingName"])
	assert.Equal(t, map[string]any{"highAvailability": map[string]any{"failureTolerance": map[string]any{"type": "node"}}}, spec["controlPlane"])
	// The Cluster carries the Shoot for the extensions (Gardener's "Cluster"
	// docs/extensions/cluster.md) as gardener-apiserver holds it: what the landscape writes, with
	// Gardener's defaults for what it leaves out (apidefaults.go), which the Shoot does not carry.
	cluster := find(t, ps["cluster"], "Cluster", "shoot--local--dev")
	clusterSpec, _, _ := unstructured.NestedMap(cluster.Object, "spec", "shoot", "spec")
	for _, field := range []string{"seedName", "credentialsBindingName", "controlPlane", "dns", "region", "purpose", "cloudProfile"} {
		assert.Equal(t, spec[field], clusterSpec[field], field)
	}
	ttl, _, _ := unstructured.NestedString(clusterSpec, "kubernetes", "kubeAPIServer", "eventTTL")
	assert.Equal(t, "1h0m0s", ttl)
	assert.NotContains(t, spec["kubernetes"], "kubeAPIServer")
	begin, _, _ := unstructured.NestedString(clusterSpec, "maintenance", "timeWindow", "begin")
	assert.Equal(t, "${live:virtual_garden/core.gardener.cloud/v1beta1/shoots/garden-local/dev:spec.maintenance.timeWindow.begin}", begin,
		"the window gardener-apiserver picks, once the Shoot exists")
	assert.NotContains(t, spec, "maintenance")
}

// The Cluster embeds the CloudProfile and the Seed as the landscape declares them and the Shoot
// with the status fields the engine reports that change only with the landscape or an operation
// (SyncClusterResourceToSeed in pkg/extensions/cluster.go at Gardener v1.120.0): nothing of the
// operation's progress, the conditions or the observed generation, which change on every status
// write, so the Cluster is not rewritten for a report's heartbeat.
func TestClusterEmbedsCloudProfileSeedAndShoot(t *testing.T) {
	profile := map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "metadata": map[string]any{"name": "local"},
		"spec": map[string]any{"type": "local", "providerConfig": map[string]any{"machineImages": []any{map[string]any{"name": "local"}}}}}
	seedObject := map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": "local"},
		"spec": map[string]any{"provider": map[string]any{"type": "local", "region": "local", "zones": []any{"0"}}}}
	v := values(func(v *Values) {
		withDNS(v)
		v.CloudProfileObject, v.Seed.Object = profile, seedObject
	})
	cluster := find(t, parts(t, v)["cluster"], "Cluster", "shoot--local--dev")
	embedded, _, _ := unstructured.NestedMap(cluster.Object, "spec", "cloudProfile")
	assert.Equal(t, profile, embedded)
	embedded, _, _ = unstructured.NestedMap(cluster.Object, "spec", "seed")
	assert.Equal(t, seedObject, embedded)

	status, _, _ := unstructured.NestedMap(cluster.Object, "spec", "shoot", "status")
	assert.Equal(t, "shoot--local--dev", status["technicalID"])
	assert.Equal(t, "local", status["seedName"])
	assert.Equal(t, false, status["hibernated"])
	assert.Equal(t, map[string]any{"version": "v1.120.0"}, status["gardener"])
	assert.Len(t, status["advertisedAddresses"], 2, "the records come after the Cluster in the flow; the Cluster still names them")
	uid, err := render.LiveRefs(status["uid"].(string))
	require.NoError(t, err)
	assert.Equal(t, []string{"status.uid", "metadata.uid"}, uid[0].Paths)
	for _, volatile := range []string{"lastOperation", "lastErrors", "conditions", "observedGeneration", "constraints"} {
		assert.NotContains(t, status, volatile)
	}
	metadata, _, _ := unstructured.NestedMap(cluster.Object, "spec", "shoot", "metadata")
	assert.NotContains(t, metadata, "resourceVersion")

	// Hibernation is an operation the Cluster follows.
	asleep := find(t, parts(t, values(hibernated))["cluster"], "Cluster", "shoot--local--dev")
	hib, _, _ := unstructured.NestedBool(asleep.Object, "spec", "shoot", "status", "hibernated")
	assert.True(t, hib)

	// Without the declared objects, the names.
	bare := find(t, parts(t, values(nil))["cluster"], "Cluster", "shoot--local--dev")
	name, _, _ := unstructured.NestedString(bare.Object, "spec", "cloudProfile", "metadata", "name")
	assert.Equal(t, "local", name)

	_, err = Parts("dev", values(func(v *Values) {
		other := map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "metadata": map[string]any{"name": "aws"}}
		v.CloudProfileObject = other
	}))
	assert.ErrorContains(t, err, `cloud_profile_object is CloudProfile "aws", not the CloudProfile "local"`)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Values
		want string
	}{
		{"no seed", values(func(v *Values) { v.Seed = nil }), "seed is not set"},
		{"zone tolerance on a single-zone seed", values(ha(FailureToleranceZone)), "at least three zones"},
		{"no service network", values(func(v *Values) { v.Networking.Services = "" }), "networking.services is not set"},
		{"no machine image", values(func(v *Values) { v.Workers[0].MachineImage = nil }), "machine_image with name and version is required"},
		{"no networking type with workers", values(func(v *Values) { v.Networking.Type = "" }), "networking.type is required"},
		{"exposure class without handler", values(func(v *Values) { v.ExposureClass = "internal" }), "exposure_class and exposure_class_handler go together"},
		{"handler the seed lacks", values(func(v *Values) { v.ExposureClass, v.ExposureClassHandler = "internal", "internal" }), `seed local has no exposure_class_handler "internal"`},
		{"worker settings on a workerless shoot", values(func(v *Values) {
			workerless(v)
			v.Provider.InfrastructureConfig = map[string]any{"kind": "InfrastructureConfig"}
			v.Kubernetes.KubeProxy = &KubeProxy{Enabled: true, Mode: "IPTables"}
			v.SystemComponents = &SystemComponents{CoreDNSAutoscalingMode: "horizontal"}
		}), "Gardener forbids these settings on a shoot without workers: provider.infrastructure_config, kubernetes.kube_proxy, system_components"},
		{"a binding on a workerless shoot", values(func(v *Values) {
			workerless(v)
			v.CredentialsBinding = "local"
		}), "Gardener forbids these settings on a shoot without workers: credentials_binding"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parts("dev", tc.v)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "shoot dev: "), err.Error())
		})
	}
}

func TestProjectNamespace(t *testing.T) {
	assert.Equal(t, "garden-local", ProjectNamespace("local"))
	assert.Equal(t, "garden", ProjectNamespace("garden"))
}

// On a seed with backup the shoot's BackupEntry, <technical ID>--<uid>, comes before etcd-main,
// whose backups go to the seed's bucket (Gardener's "BackupEntry"
// docs/extensions/resources/backupentry.md, pkg/gardenlet/operation/botanist/backupentry.go at
// Gardener v1.120.0); only main is backed up (Gardener's docs/extensions/controlplane-webhooks.md).
func TestBackupEntry(t *testing.T) {
	ps := parts(t, values(withBackup))
	entry := find(t, ps["backup_entry"], "BackupEntry", "shoot--local--dev--"+exampleUID)
	spec, _, _ := unstructured.NestedMap(entry.Object, "spec")
	assert.Equal(t, "seed-local", spec["bucketName"])
	assert.Equal(t, map[string]any{"name": "bucket-seed-local", "namespace": "garden"}, spec["secretRef"])
	assert.Contains(t, ps["etcd_main"].DependsOn, "backup_entry")
	assert.NotContains(t, ps["etcd_events"].DependsOn, "backup_entry")
	main := find(t, ps["etcd_main"], "Etcd", "etcd-main")
	_, hasBackup, _ := unstructured.NestedMap(main.Object, "spec", "backup", "store")
	assert.True(t, hasBackup)
	assert.NotContains(t, parts(t, values(nil)), "backup_entry", "no backup without a seed that has one")
}

// A hibernated shoot that is deleted still goes in the delete flow's order: its parts keep the
// reconcile order's dependencies for deletion (the kube-apiserver after its controllers, the
// etcds after the kube-apiserver), although hibernation reversed the order they scale in.
func TestHibernatedShootIsDeletedInTheDeleteFlowsOrder(t *testing.T) {
	awake, asleep := parts(t, values(nil)), forDeletion(parts(t, values(hibernated)))
	for name, p := range forDeletion(awake) {
		if name == "gardener_resource_manager_bootstrap" {
			continue // a hibernated shoot's resource manager has no pods, so nothing bootstraps
		}
		want := slices.DeleteFunc(slices.Clone(p.DependsOn), func(d string) bool { return d == "gardener_resource_manager_bootstrap" })
		assert.ElementsMatch(t, want, asleep[name].DependsOn, "part %s", name)
	}
	hibernating := parts(t, values(hibernated))
	assert.Contains(t, hibernating["etcd_main"].DependsOn, "kube_apiserver", "hibernation scales etcd down after the API server")
	assert.NotContains(t, hibernating["etcd_main"].DeletionDependsOn, "kube_apiserver", "deletion removes etcd after the API server")
	assert.Nil(t, awake["etcd_main"].DeletionDependsOn, "an awake shoot deletes in its apply order")
}

// Hibernation shrinks the Worker's pools to nothing, so that the machines are gone before
// machine-controller-manager scales down (Gardener's docs/extensions/resources/worker.md).
func TestHibernationEmptiesTheWorkerPools(t *testing.T) {
	w := find(t, parts(t, values(hibernated))["worker"], "Worker", "dev")
	pools, _, _ := unstructured.NestedSlice(w.Object, "spec", "pools")
	require.Len(t, pools, 1)
	assert.Equal(t, int64(0), pools[0].(map[string]any)["minimum"])
	assert.Equal(t, int64(0), pools[0].(map[string]any)["maximum"])
}

// deletionOrder is the order removing the shoot deletes its parts in: every part before those it
// depends on for deletion (DeletionDependsOn where set, else DependsOn).
func deletionOrder(t *testing.T, ps map[string]render.Component) []string {
	t.Helper()
	forDeletion := map[string]render.Component{}
	for name, p := range ps {
		if p.DeletionDependsOn != nil {
			p.DependsOn = p.DeletionDependsOn
		}
		forDeletion[name] = p
	}
	seq := order(t, forDeletion)
	slices.Reverse(seq)
	return seq
}

// Extensions are deleted by their registration's delete lifecycle (Gardener's
// docs/extensions/registration.md): before the kube-apiserver by default, even when they are
// reconciled before it, and after it when the registration says AfterKubeAPIServer.
func TestExtensionDeleteLifecycles(t *testing.T) {
	type lifecycle = ExtensionLifecycle
	for _, hibernate := range []bool{false, true} {
		ps := parts(t, values(func(v *Values) {
			v.Extensions = []Extension{{Type: "early"}, {Type: "keep"}, {Type: "plain"}}
			v.ExtensionLifecycles = map[string]lifecycle{
				"early": {Reconcile: "BeforeKubeAPIServer", Delete: "BeforeKubeAPIServer"},
				"keep":  {Reconcile: "AfterKubeAPIServer", Delete: "AfterKubeAPIServer"},
			}
			if hibernate {
				hibernated(v)
			}
		}))
		require.Contains(t, ps, "extensions_after_kube_apiserver"+deletedAfterSuffix)
		del := deletionOrder(t, ps)
		before(t, del, "extensions_before_kube_apiserver", "kube_apiserver")
		before(t, del, "extensions_after_kube_apiserver", "kube_apiserver")
		before(t, del, "kube_apiserver", "extensions_after_kube_apiserver"+deletedAfterSuffix)
		before(t, del, "kube_apiserver", "etcd_main")
		// Reconciling keeps its order.
		if !hibernate {
			seq := order(t, ps)
			before(t, seq, "extensions_before_kube_apiserver", "kube_apiserver")
			before(t, seq, "kube_apiserver", "extensions_after_kube_apiserver"+deletedAfterSuffix)
		}
	}
}

// The internal record points at the load balancer of the seed's gateway that exposes the API
// server (Gardener's "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md, "DNS Record"
// docs/extensions/resources/dnsrecord.md); the external one is a CNAME of it (Gardener's
// docs/extensions/resources/dnsrecord.md), both with their provider's credentials copied into the
// control plane (Gardener's docs/extensions/resources/dnsrecord.md).
func TestDNSRecords(t *testing.T) {
	own := parts(t, values(withDNS))
	internal := find(t, own["dns_record_internal"], "DNSRecord", "dev-internal")
	spec, _, _ := unstructured.NestedMap(internal.Object, "spec")
	assert.Equal(t, "api.dev.local.internal.example.com", spec["name"])
	assert.Equal(t, map[string]any{"name": "dnsrecord-dev-internal", "namespace": "shoot--local--dev"}, spec["secretRef"])
	refs, err := render.LiveRefs(spec["values"].([]any)[0].(string))
	require.NoError(t, err)
	assert.Equal(t, []render.LiveRef{render.LoadBalancerAddress("seed1", "istio-ingress", "istio-ingressgateway")}, refs)
	refs, err = render.LiveRefs(spec["recordType"].(string))
	require.NoError(t, err)
	assert.Equal(t, render.AsRecordType, refs[0].As, "A, AAAA or CNAME as the address is (Gardener's docs/extensions/resources/dnsrecord.md)")

	external := find(t, own["dns_record_external"], "DNSRecord", "dev-external")
	spec, _, _ = unstructured.NestedMap(external.Object, "spec")
	assert.Equal(t, "api.dev.local.shoot.example.com", spec["name"], "below the default domain: <name>.<project>.<domain>")
	assert.Equal(t, "CNAME", spec["recordType"])
	assert.Equal(t, []any{"api.dev.local.internal.example.com"}, spec["values"])

	assert.Equal(t, render.CopySpec{Cluster: "seed1", Namespace: "shoot--local--dev", Name: "dnsrecord-dev-internal", FromCluster: "virtual_garden", FromNamespace: "garden", FromName: "internal-domain-local"}, *own["dns_internal_secret"].Copy)
	assert.Equal(t, render.CopySpec{Cluster: "seed1", Namespace: "shoot--local--dev", Name: "dnsrecord-dev-external", FromCluster: "virtual_garden", FromNamespace: "garden", FromName: "default-domain-local"}, *own["dns_external_secret"].Copy)
	// gardenlet deploys both records once the gateway's address is known, neither after the
	// kube-apiserver nor after the other (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go).
	doesNotWaitFor(t, own, "dns_record_internal", "kube_apiserver")
	doesNotWaitFor(t, own, "dns_record_external", "dns_record_internal")
	waitsFor(t, own, "dns_record_internal", "dns_internal_secret")
	waitsFor(t, own, "dns_record_external", "dns_external_secret")

	// The shoot's own domain and DNS provider: its Secret comes from the project.
	own = parts(t, values(func(v *Values) {
		withDNS(v)
		v.DNSDomain = "dev.example.org"
		v.DNSProvider = &struct {
			Type      string `json:"type"`
			SecretRef string `json:"secret_ref"`
		}{Type: "aws-route53", SecretRef: "my-dns"}
	}))
	external = find(t, own["dns_record_external"], "DNSRecord", "dev-external")
	assert.Equal(t, "api.dev.example.org", external.Object["spec"].(map[string]any)["name"])
	assert.Equal(t, "aws-route53", external.Object["spec"].(map[string]any)["type"])
	assert.Equal(t, "garden-local", own["dns_external_secret"].Copy.FromNamespace)
	shoot := find(t, own["shoot"], "Shoot", "dev")
	assert.Equal(t, map[string]any{"domain": "dev.example.org", "providers": []any{map[string]any{"type": "aws-route53", "secretName": "my-dns", "primary": true}}}, shoot.Object["spec"].(map[string]any)["dns"])

	// A domain of its own without a provider gets no external record (unmanaged, Gardener's
	// docs/extensions/resources/dnsrecord.md).
	own = parts(t, values(func(v *Values) { withDNS(v); v.DNSDomain = "dev.example.org" }))
	assert.NotContains(t, own, "dns_record_external")
	assert.Contains(t, own, "dns_record_internal")
	// Without the internal domain, no records at all.
	assert.NotContains(t, parts(t, values(nil)), "dns_record_internal")
}

// A globally enabled Extension type is created for every shoot that does not disable it, for a
// workerless shoot only if the type supports workerless shoots (Gardener's "Extension"
// docs/extensions/resources/extension.md).
func TestGloballyEnabledExtensions(t *testing.T) {
	registrations := map[string]ExtensionLifecycle{
		"audit":     {Reconcile: "AfterKubeAPIServer", Delete: "BeforeKubeAPIServer", GloballyEnabled: true, WorkerlessSupported: true},
		"node-conf": {Reconcile: "AfterWorker", Delete: "BeforeKubeAPIServer", GloballyEnabled: true},
		"optional":  {Reconcile: "AfterKubeAPIServer", Delete: "BeforeKubeAPIServer"},
	}
	types := func(p render.Component) []string {
		var out []string
		for _, o := range p.Objects {
			if o.Object.GetKind() == "Extension" {
				out = append(out, o.Object.GetName())
			}
		}
		return out
	}
	ps := parts(t, values(func(v *Values) { v.ExtensionLifecycles = registrations }))
	assert.Equal(t, []string{"audit"}, types(ps["extensions_after_kube_apiserver"]))
	assert.Equal(t, []string{"node-conf"}, types(ps["extensions_after_worker"]), "placed by its lifecycle")
	shoot := find(t, ps["shoot"], "Shoot", "dev")
	assert.NotContains(t, shoot.Object["spec"], "extensions", "the Shoot lists only what the shoot declares")

	ps = parts(t, values(func(v *Values) {
		v.ExtensionLifecycles = registrations
		v.Extensions = []Extension{{Type: "audit", Disabled: true}}
	}))
	assert.Empty(t, types(ps["extensions_after_kube_apiserver"]), "a shoot may opt out")

	ps = parts(t, values(func(v *Values) { workerless(v); v.ExtensionLifecycles = registrations }))
	assert.Equal(t, []string{"audit"}, types(ps["extensions_after_kube_apiserver"]))
	assert.NotContains(t, ps, "extensions_after_worker", "node-conf does not support workerless shoots")

	_, err := Parts("dev", values(func(v *Values) {
		workerless(v)
		v.ExtensionLifecycles = registrations
		v.Extensions = []Extension{{Type: "optional"}}
	}))
	assert.ErrorContains(t, err, `extensions "optional": its registration does not support workerless shoots`)
}

// A shoot of an ExposureClass is exposed through the seed's gateway of the class's handler
// (Gardener's "ExposureClasses" docs/usage/networking/exposureclasses.md), on a multi-zone seed
// through that gateway's variant in the control plane's zone (Gardener's docs/operations/istio.md),
// and its internal DNS record points at that gateway's load balancer.
func TestExposureClassGateway(t *testing.T) {
	handler := Gateway{Namespace: "istio-ingress-handler-internal", Labels: map[string]string{"app": "istio-ingressgateway", "handler.exposureclass.gardener.cloud/name": "internal"}}
	for name, tc := range map[string]struct {
		zones     []string
		namespace string
		istio     string
	}{
		"single zone": {[]string{"0"}, "istio-ingress-handler-internal", ""},
		"multi zone":  {[]string{"a", "b", "c"}, "istio-ingress-handler-internal--", "ingressgateway--zone--"},
	} {
		t.Run(name, func(t *testing.T) {
			own := parts(t, values(func(v *Values) {
				withDNS(v)
				v.Seed = seedRef(tc.zones...)
				v.Seed.ExposureClassHandlers = map[string]Gateway{"internal": handler}
				v.ExposureClass, v.ExposureClassHandler = "internal", "internal"
			}))
			gw := find(t, own["kube_apiserver"], "Gateway", "kube-apiserver")
			selector, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
			assert.Equal(t, "internal", selector["handler.exposureclass.gardener.cloud/name"])
			assert.Equal(t, tc.istio != "", strings.HasPrefix(selector["istio"], "ingressgateway--zone--"), "zone-pinned gateway: %v", selector)
			record := find(t, own["dns_record_internal"], "DNSRecord", "dev-internal")
			refs, err := render.LiveRefs(record.Object["spec"].(map[string]any)["values"].([]any)[0].(string))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(refs[0].Namespace, tc.namespace), "the record points at the handler's gateway: %s", refs[0].Namespace)
			assert.Equal(t, "istio-ingressgateway", refs[0].Name)
			shoot := find(t, own["shoot"], "Shoot", "dev")
			assert.Equal(t, "internal", shoot.Object["spec"].(map[string]any)["exposureClassName"])
		})
	}
}

// A shoot on a seed with observability gets its control plane's monitoring, after the
// kube-apiserver and its resource manager (Gardener's "Logging And Monitoring"
// docs/extensions/logging-and-monitoring.md), unless its purpose is testing (Gardener's "Shoot
// Cluster Purposes" docs/usage/shoot/shoot_purposes.md); hibernated, the stack scales to zero with
// the control plane.
func TestObservability(t *testing.T) {
	withObservability := func(v *Values) { v.Seed.Observability = SeedObservability{Enabled: true} }
	own := parts(t, values(withObservability))
	require.Contains(t, own, "observability")
	find(t, own["observability"], "Prometheus", "shoot")
	seq := order(t, own)
	before(t, seq, "kube_apiserver", "observability")
	before(t, seq, "gardener_resource_manager", "observability")
	assert.Equal(t, "password", own["plutono_admin"].Secret.Class)

	forTests := parts(t, values(func(v *Values) { withObservability(v); v.Purpose = PurposeTesting }))
	assert.NotContains(t, forTests, "observability")
	assert.NotContains(t, forTests, "plutono_admin")
	assert.NotContains(t, parts(t, values(nil)), "observability", "the seed runs no observability")

	asleep := parts(t, values(func(v *Values) {
		withObservability(v)
		v.Seed.Observability.LoggingEnabled = true // Vali's StatefulSet too
		hibernated(v)
	}))
	scaled := 0
	for _, o := range asleep["observability"].Objects {
		switch o.Object.GetKind() {
		case "Deployment", "StatefulSet", "Prometheus":
			replicas, found, _ := unstructured.NestedInt64(o.Object.Object, "spec", "replicas")
			assert.True(t, found, "%s %s has replicas", o.Object.GetKind(), o.Object.GetName())
			assert.Zero(t, replicas, "%s %s is scaled down in hibernation", o.Object.GetKind(), o.Object.GetName())
			scaled++
		}
	}
	assert.GreaterOrEqual(t, scaled, 5, "Plutono, kube-state-metrics, blackbox-exporter, the event-logger, Vali and Prometheus")
	// Hibernation scales it down before the kube-apiserver, like the other components after it.
	before(t, order(t, asleep), "observability", "kube_apiserver")
}

// vpn-shoot's client certificate and tls-auth key and metrics-server's serving certificate reach
// the shoot inside their ManagedResources, as Secrets filled from the Secrets generated in the
// control plane (Gardener's "Reversed VPN Tunnel" docs/development/reversed-vpn-tunnel.md): the
// certificate parts come before the system components.
func TestSystemComponentSecrets(t *testing.T) {
	own := parts(t, values(nil))
	assert.Subset(t, own["system_components"].DependsOn, []string{"vpn_shoot_client", "vpn_seed_server_tlsauth", "metrics_server_tls"})
	assert.Equal(t, "client-cert", own["vpn_shoot_client"].Secret.Class)
	assert.Equal(t, "ca-vpn", own["vpn_shoot_client"].Secret.CA, "signed by the CA vpn-seed-server trusts")
	assert.Equal(t, "server-cert", own["metrics_server_tls"].Secret.Class)
	assert.Contains(t, own["metrics_server_tls"].Secret.DNSNames, "metrics-server.kube-system.svc")
	contents := rendertest.PackedSecret(t, own["system_components"].Objects, "shoot-core-vpn-shoot")
	packed := contents.Object["stringData"].(map[string]any)["secret__kube-system__vpn-shoot-client.yaml"].(string)
	assert.Contains(t, packed, render.GeneratedRef("shoot--local--dev", "vpn-shoot-client", "tls.key", true))
	assert.Contains(t, packed, render.GeneratedRef("shoot--local--dev", "ca-vpn", "ca.crt", true))
	assert.NotContains(t, parts(t, values(workerless)), "vpn_shoot_client", "a workerless shoot has no VPN")
}

// With confine_spec_update_rollout, every part of the control plane waits for the maintenance
// window (Gardener's "gardenlet" docs/concepts/gardenlet.md, "Shoot Maintenance"
// docs/usage/shoot/shoot_maintenance.md), while the Shoot takes the new specification at once.
func TestConfineSpecUpdateRollout(t *testing.T) {
	confined := func(v *Values) {
		v.Maintenance = &Maintenance{ConfineSpecUpdateRollout: true}
		v.Maintenance.TimeWindow = &struct {
			Begin string `json:"begin"`
			End   string `json:"end"`
		}{Begin: "220000+0000", End: "230000+0000"}
	}
	own := parts(t, values(confined))
	for name, p := range own {
		// The NetworkPolicy controller is no step of the shoot's flow: it keeps the policies at
		// any time (pkg/controller/networkpolicy in gardener/gardener v1.120.0).
		if name == "shoot" || name == "network_policies" || p.Secret != nil || p.Copy != nil {
			assert.Nil(t, p.Window, "%s is updated at once", name)
			continue
		}
		require.NotNil(t, p.Window, name)
		assert.Equal(t, "220000+0000", p.Window.Begin)
		assert.Equal(t, "230000+0000", p.Window.End)
		// Held only once the Shoot's last operation succeeded and while the control plane's
		// hibernation does not change, whoever flipped the Shoot (Gardener's Maintenance in
		// docs/api-reference/core.md).
		require.Len(t, p.Window.HoldWhile, 2, name)
		op, hib := p.Window.HoldWhile[0], p.Window.HoldWhile[1]
		assert.Equal(t, render.LiveRef{Cluster: "virtual_garden", Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots",
			Namespace: "garden-local", Name: "dev", Paths: []string{"status.lastOperation.state"}}, op.Ref)
		assert.Equal(t, "Succeeded", op.Value)
		assert.Equal(t, render.LiveRef{Cluster: "seed1", Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "clusters",
			Name: "shoot--local--dev", Paths: []string{"spec.shoot.spec.hibernation.enabled"}}, hib.Ref, "the control plane's copy of the Shoot")
		assert.Equal(t, "false", hib.Value)
		assert.Equal(t, "false", hib.Default)
	}
	for _, p := range parts(t, values(func(v *Values) { confined(v); hibernated(v) })) {
		if p.Window != nil {
			assert.Equal(t, "true", p.Window.HoldWhile[1].Value, "a hibernated shoot's hold needs a hibernated control plane")
		}
	}
	for _, p := range parts(t, values(nil)) {
		assert.Nil(t, p.Window, "%s: not confined by default", p.Name)
	}
	_, err := Parts("dev", values(func(v *Values) { v.Maintenance = &Maintenance{ConfineSpecUpdateRollout: true} }))
	assert.ErrorContains(t, err, "confine_spec_update_rollout needs maintenance.time_window")
}

// A shoot block on a seed handed to gardenlet writes the Shoot alone: gardenlet deploys the
// control plane and reports the status, and what the engine deployed while it managed the seed is
// released to gardenlet, not deleted.
func TestShootOnAGardenletSeed(t *testing.T) {
	v := values(func(v *Values) { withDNS(v); seed := *v.Seed; seed.ManagedBy = "gardenlet"; v.Seed = &seed })
	out, err := Type.Render(render.Input{Name: "dev", Observe: observingShoots(existingShoot("dev", exampleUID))}, v)
	require.NoError(t, err)
	require.Len(t, out.Components, 1)
	assert.Equal(t, "shoot", out.Components[0].Name)
	shoot := find(t, out.Components[0], "Shoot", "dev")
	seedName, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
	assert.Equal(t, "local", seedName)
	assert.Empty(t, out.Reports, "gardenlet reports the Shoot's status")
	assert.Contains(t, out.Notices[0], "seed local is handed to gardenlet")
	handedOver := rendertest.HandedOver(out)
	assert.Equal(t, "gardenlet", handedOver["seed1 Deployment shoot--local--dev/^kube-apiserver$"])
	assert.Equal(t, "gardenlet", handedOver["seed1 Etcd shoot--local--dev/^etcd-main$"])
	assert.Equal(t, "gardenlet", handedOver["seed1 Namespace /^shoot--local--dev$"])
	assert.NotContains(t, handedOver, "virtual_garden Shoot garden-local/^dev$", "the Shoot stays the landscape's")
}
