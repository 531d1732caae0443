package kubecontrollermanager

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func minimal() Values {
	return rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}, KubernetesVersion: "1.31.4"})
}

func cases() map[string]Values {
	ha := minimal()
	ha.HighAvailability = true
	ha.CertificateSigningDuration = "48h"
	ha.FeatureGates = map[string]bool{"B": false, "A": true}
	ha.Images = map[string]string{"kube-controller-manager": "v1.31.5"}
	return map[string]Values{"default": minimal(), "ha-customised": ha, "shoot": shootValues(false), "workerless-shoot": shootValues(true)}
}

// shootValues are a shoot's controller manager as components/shoot configures it.
func shootValues(workerless bool) Values {
	v := minimal()
	v.NamePrefix, v.Namespace, v.PriorityClassName = "", "shoot--dev--a", "gardener-system-300"
	v.ScrapeTargetsAlias = "all-scrape-targets"
	v.ServiceNetwork = "100.64.0.0/13"
	v.Shoot = &Shoot{Workerless: workerless}
	if !workerless {
		v.Shoot.Pods, v.Shoot.KubeletCASecretName = "100.96.0.0/11", "ca-kubelet"
	}
	return v
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

func deploymentOf(t *testing.T, v Values) appsv1.Deployment {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	var d appsv1.Deployment
	for _, o := range objs {
		if o.Object.GetKind() == "Deployment" {
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, &d))
		}
	}
	require.NotEmpty(t, d.Name)
	return d
}

func flag(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// The flags every command line shares: the generic kubeconfig and, at the end, the keys, ports and
// TLS settings (computeCommand in pkg/component/kubernetes/controllermanager/controllermanager.go
// at Gardener v1.120.0).
var (
	kubeconfigFlags = []string{
		"/usr/local/bin/kube-controller-manager",
		"--authentication-kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
		"--authorization-kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
		"--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
	}
	clientSignerFlags = []string{
		"--cluster-signing-kube-apiserver-client-cert-file=/srv/kubernetes/ca-client/ca.crt",
		"--cluster-signing-kube-apiserver-client-key-file=/srv/kubernetes/ca-client/ca.key",
		"--cluster-signing-legacy-unknown-cert-file=/srv/kubernetes/ca-client/ca.crt",
		"--cluster-signing-legacy-unknown-key-file=/srv/kubernetes/ca-client/ca.key",
	}
	keyFlags = []string{
		"--root-ca-file=/srv/kubernetes/ca/ca.crt",
		"--service-account-private-key-file=/srv/kubernetes/service-account-key/key.pem",
		"--secure-port=10257",
	}
	tlsFlags = []string{
		"--profiling=false",
		"--tls-cert-file=/var/lib/kube-controller-manager-server/tls.crt",
		"--tls-private-key-file=/var/lib/kube-controller-manager-server/tls.key",
		"--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
		"--use-service-account-credentials=true",
		"--v=2",
	}
	// workerFlags are those of a shoot with workers before the cluster name: pod ranges, kubelet
	// signers, the horizontal pod autoscaler's defaults, the node grace period and the workload
	// controllers' workers.
	workerFlags = func(mask []string, gracePeriod string) []string {
		return slices.Concat(mask, []string{
			"--allocate-node-cidrs=true",
			"--attach-detach-reconcile-sync-period=1m0s",
			"--cluster-cidr=100.96.0.0/11",
			"--cluster-signing-kubelet-client-cert-file=/srv/kubernetes/ca-client/ca.crt",
			"--cluster-signing-kubelet-client-key-file=/srv/kubernetes/ca-client/ca.key",
			"--cluster-signing-kubelet-serving-cert-file=/srv/kubernetes/ca-kubelet/ca.crt",
			"--cluster-signing-kubelet-serving-key-file=/srv/kubernetes/ca-kubelet/ca.key",
			"--horizontal-pod-autoscaler-downscale-stabilization=5m0s",
			"--horizontal-pod-autoscaler-initial-readiness-delay=30s",
			"--horizontal-pod-autoscaler-cpu-initialization-period=5m0s",
			"--horizontal-pod-autoscaler-sync-period=30s",
			"--horizontal-pod-autoscaler-tolerance=0.1",
			"--leader-elect=true",
			"--node-monitor-grace-period=" + gracePeriod,
			"--concurrent-deployment-syncs=50",
			"--concurrent-replicaset-syncs=50",
			"--concurrent-statefulset-syncs=15",
		})
	}
)

// TestCommand checks the whole command line, flag by flag and in order, against the one Gardener
// v1.120.0 computes for the virtual garden (gardener-operator's newKubeControllerManager in
// pkg/operator/controller/garden/garden/components.go: no workers, more garbage collector,
// namespace and quota workers, no serviceaccount-token controller, the Garden's 48h signing
// duration and Service network), for a shoot with and one without workers (gardenlet's
// DefaultKubeControllerManager in pkg/gardenlet/operation/botanist/kubecontrollermanager.go:
// Gardener's default workers) and for the settings a shoot can change (the expected lines of
// pkg/component/kubernetes/controllermanager/controllermanager_test.go).
func TestCommand(t *testing.T) {
	garden := minimal()
	garden.CertificateSigningDuration, garden.ServiceNetwork = "48h", "10.4.0.0/16"
	customised := shootValues(false)
	customised.Shoot.NodeCIDRMaskSize, customised.Shoot.NodeMonitorGracePeriod = 26, "2m"
	customised.FeatureGates = map[string]bool{"B": false, "A": true}
	dualStack := shootValues(false)
	dualStack.Shoot.Pods = "100.96.0.0/11,2001:db8::/64"
	ipv6 := shootValues(false)
	ipv6.Shoot.Pods = "2001:db8::/64"
	for _, tc := range []struct {
		name string
		v    Values
		want []string
	}{
		{"virtual garden", garden, slices.Concat(kubeconfigFlags, []string{"--cluster-name=garden"}, clientSignerFlags, []string{
			"--cluster-signing-duration=48h0m0s",
			"--concurrent-endpoint-syncs=15",
			"--concurrent-gc-syncs=250",
			"--concurrent-service-endpoint-syncs=15",
			"--controllers=*,bootstrapsigner,tokencleaner,-attachdetach,-cloud-node-lifecycle,-endpoint,-ephemeral-volume,-nodeipam,-nodelifecycle,-persistentvolume-binder,-persistentvolume-expander,-pv-protection,-serviceaccount-token,-ttl",
			"--concurrent-namespace-syncs=100",
			"--concurrent-resource-quota-syncs=100",
			"--resource-quota-sync-period=1m0s",
		}, keyFlags, []string{"--service-cluster-ip-range=10.4.0.0/16"}, tlsFlags)},
		{"shoot with workers", shootValues(false), slices.Concat(kubeconfigFlags, workerFlags([]string{"--node-cidr-mask-size=24"}, "40s"),
			[]string{"--cluster-name=shoot--dev--a"}, clientSignerFlags, []string{
				"--cluster-signing-duration=720h0m0s",
				"--concurrent-endpoint-syncs=15",
				"--concurrent-gc-syncs=30",
				"--concurrent-service-endpoint-syncs=15",
				"--controllers=*,bootstrapsigner,tokencleaner",
				"--concurrent-namespace-syncs=30",
				"--concurrent-resource-quota-syncs=15",
				"--concurrent-serviceaccount-token-syncs=15",
			}, keyFlags, []string{"--service-cluster-ip-range=100.64.0.0/13"}, tlsFlags)},
		{"shoot with workers and settings", customised, slices.Concat(kubeconfigFlags, workerFlags([]string{"--node-cidr-mask-size=26"}, "2m0s"),
			[]string{"--cluster-name=shoot--dev--a"}, clientSignerFlags, []string{
				"--cluster-signing-duration=720h0m0s",
				"--concurrent-endpoint-syncs=15",
				"--concurrent-gc-syncs=30",
				"--concurrent-service-endpoint-syncs=15",
				"--controllers=*,bootstrapsigner,tokencleaner",
				"--concurrent-namespace-syncs=30",
				"--concurrent-resource-quota-syncs=15",
				"--concurrent-serviceaccount-token-syncs=15",
				"--feature-gates=A=true,B=false",
			}, keyFlags, []string{"--service-cluster-ip-range=100.64.0.0/13"}, tlsFlags)},
		{"workerless shoot", shootValues(true), slices.Concat(kubeconfigFlags, []string{"--cluster-name=shoot--dev--a"}, clientSignerFlags, []string{
			"--cluster-signing-duration=720h0m0s",
			"--concurrent-endpoint-syncs=15",
			"--concurrent-gc-syncs=30",
			"--concurrent-service-endpoint-syncs=15",
			"--controllers=*,bootstrapsigner,tokencleaner,-attachdetach,-cloud-node-lifecycle,-endpoint,-ephemeral-volume,-nodeipam,-nodelifecycle,-persistentvolume-binder,-persistentvolume-expander,-pv-protection,-ttl",
			"--concurrent-namespace-syncs=30",
			"--concurrent-resource-quota-syncs=15",
			"--concurrent-serviceaccount-token-syncs=15",
		}, keyFlags, []string{"--service-cluster-ip-range=100.64.0.0/13"}, tlsFlags)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := deploymentOf(t, tc.v).Spec.Template.Spec.Containers[0]
			assert.Equal(t, tc.want, c.Command)
			assert.Empty(t, c.Args, "Gardener puts every flag into the command")
		})
	}

	// The pod range flags: one per family when dual-stack, 64 by default for IPv6 alone.
	for name, tc := range map[string]struct {
		v    Values
		want []string
	}{
		"dual-stack": {dualStack, []string{"--node-cidr-mask-size-ipv4=24", "--node-cidr-mask-size-ipv6=64", "--allocate-node-cidrs=true", "--attach-detach-reconcile-sync-period=1m0s", "--cluster-cidr=100.96.0.0/11,2001:db8::/64"}},
		"ipv6":       {ipv6, []string{"--node-cidr-mask-size=64", "--allocate-node-cidrs=true", "--attach-detach-reconcile-sync-period=1m0s", "--cluster-cidr=2001:db8::/64"}},
	} {
		c := deploymentOf(t, tc.v).Spec.Template.Spec.Containers[0].Command
		assert.Equal(t, tc.want, c[len(kubeconfigFlags):len(kubeconfigFlags)+len(tc.want)], name)
	}
}

// TestControllersOfDisabledAPIs checks that the controllers of the APIs the runtime config turns
// off are switched off, in the Kubernetes versions that have them (the "various runtime config"
// entries of pkg/component/kubernetes/controllermanager/controllermanager_test.go and
// APIGroupControllerMap in pkg/utils/kubernetes/controllers.go at Gardener v1.120.0).
func TestControllersOfDisabledAPIs(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		workerless    bool
		runtimeConfig map[string]bool
		want          string
	}{
		{"none", "1.31.4", false, nil, "*,bootstrapsigner,tokencleaner"},
		{"served APIs", "1.31.4", true, map[string]bool{"apps/v1": true},
			"*,bootstrapsigner,tokencleaner,-attachdetach,-cloud-node-lifecycle,-endpoint,-ephemeral-volume,-nodeipam,-nodelifecycle,-persistentvolume-binder,-persistentvolume-expander,-pv-protection,-ttl"},
		{"apps off without workers", "1.27.3", true, map[string]bool{"apps/v1": false},
			"*,bootstrapsigner,tokencleaner,-attachdetach,-cloud-node-lifecycle,-daemonset,-deployment,-endpoint,-ephemeral-volume,-nodeipam,-nodelifecycle,-persistentvolume-binder,-persistentvolume-expander,-pv-protection,-replicaset,-statefulset,-ttl"},
		{"batch and autoscaling off", "1.27.3", false, map[string]bool{
			"autoscaling/v2": false, "batch/v1": false, "apps/v1": true, "policy/v1/poddisruptionbudgets": false, "storage.k8s.io/v1/csinodes": false,
		}, "*,bootstrapsigner,tokencleaner,-cronjob,-horizontalpodautoscaling,-job,-ttl-after-finished"},
		{"groups with suffixes off", "1.27.3", false, map[string]bool{
			"resource.k8s.io/v1alpha2": false, "discovery.k8s.io/v1": false, "internal.apiserver.k8s.io/v1alpha1": false, "rbac.authorization.k8s.io/v1": false,
		}, "*,bootstrapsigner,tokencleaner,-clusterrole-aggregation,-endpointslice,-endpointslicemirroring,-resource-claim-controller,-storage-version-gc"},
		// Version boundaries: the service CIDR controller needs networking/v1alpha1 before 1.31
		// and networking/v1beta1 from 1.31 on.
		{"networking v1beta1 off before 1.31", "1.30.9", false, map[string]bool{"networking.k8s.io/v1beta1": false}, "*,bootstrapsigner,tokencleaner"},
		{"networking v1beta1 off from 1.31", "1.31.0", false, map[string]bool{"networking.k8s.io/v1beta1": false}, "*,bootstrapsigner,tokencleaner,-service-cidr-controller"},
		{"networking v1alpha1 off before 1.31", "1.30.9", false, map[string]bool{"networking.k8s.io/v1alpha1": false}, "*,bootstrapsigner,tokencleaner,-service-cidr-controller"},
		{"networking v1alpha1 off from 1.31", "1.31.0", false, map[string]bool{"networking.k8s.io/v1alpha1": false}, "*,bootstrapsigner,tokencleaner"},
		// A disabled bootstrap token controller leaves the enabled list.
		{"core off", "1.32.1", false, map[string]bool{"v1": false}, "*,-attachdetach,-bootstrapsigner,-cloud-node,-cloud-node-lifecycle,-cronjob,-csrapproving,-csrsigning,-daemonset,-deployment,-disruption,-endpoint,-endpointslice,-endpointslicemirroring,-ephemeral-volume,-horizontalpodautoscaling,-job,-legacy-service-account-token-cleaner,-namespace,-nodelifecycle,-persistentvolume-binder,-persistentvolume-expander,-podgc,-pv-protection,-pvc-protection,-replicaset,-replicationcontroller,-resource-claim-controller,-resourcequota,-root-ca-cert-publisher,-route,-selinux-warning-controller,-service,-service-cidr-controller,-serviceaccount,-serviceaccount-token,-statefulset,-taint-eviction-controller,-tokencleaner,-ttl,-ttl-after-finished,-volumeattributesclass-protection-controller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := shootValues(tc.workerless)
			v.KubernetesVersion, v.RuntimeConfig = tc.version, tc.runtimeConfig
			controllers, ok := flag(deploymentOf(t, v).Spec.Template.Spec.Containers[0].Command, "controllers")
			require.True(t, ok)
			assert.Equal(t, tc.want, controllers)
		})
	}
}

// TestVolumes checks the Secrets the command line reads, mounted where it reads them, and the
// generic kubeconfig with the controller manager's token next to it.
func TestVolumes(t *testing.T) {
	for name, tc := range map[string]struct {
		v       Values
		volumes map[string]string
	}{
		"virtual garden": {minimal(), map[string]string{
			"ca": "/srv/kubernetes/ca", "ca-client": "/srv/kubernetes/ca-client", "service-account-key": "/srv/kubernetes/service-account-key",
			"server": "/var/lib/kube-controller-manager-server", "kubeconfig": "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig",
		}},
		"shoot with workers": {shootValues(false), map[string]string{
			"ca": "/srv/kubernetes/ca", "ca-client": "/srv/kubernetes/ca-client", "service-account-key": "/srv/kubernetes/service-account-key",
			"server": "/var/lib/kube-controller-manager-server", "ca-kubelet": "/srv/kubernetes/ca-kubelet", "kubeconfig": "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig",
		}},
	} {
		d := deploymentOf(t, tc.v)
		mounts := map[string]string{}
		for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
			mounts[m.Name] = m.MountPath
		}
		assert.Equal(t, tc.volumes, mounts, name)
		var projected []string
		for _, vol := range d.Spec.Template.Spec.Volumes {
			if vol.Projected != nil {
				// InjectGenericKubeconfig: mode 0644, both Secrets required.
				assert.Equal(t, int32(0o644), *vol.Projected.DefaultMode, name)
				for _, src := range vol.Projected.Sources {
					projected = append(projected, src.Secret.Name)
					assert.Equal(t, ptr.To(false), src.Secret.Optional, name)
				}
			}
		}
		assert.Equal(t, []string{"generic-token-kubeconfig", "shoot-access-kube-controller-manager"}, projected, name)
	}
}

func TestDocumentedFacts(t *testing.T) {
	for _, tc := range []struct {
		ha       bool
		replicas int32
		pdb      bool
	}{
		// Controllers: 1 replica without, 2 with high availability (Gardener's "High Availability Of
		// Components" docs/development/high-availability-of-components.md); a budget either way
		// (controllermanager.go at gardener/gardener v1.120.0).
		{false, 1, true},
		{true, 2, true},
	} {
		v := minimal()
		v.HighAvailability = tc.ha
		d := deploymentOf(t, v)
		// Gardener's docs/concepts/operator.md: the name; Gardener's "Priority Classes"
		// docs/development/priority-classes.md: gardener-garden-system-300.
		assert.Equal(t, "virtual-garden-kube-controller-manager", d.Name)
		assert.Equal(t, "garden", d.Namespace)
		assert.Equal(t, "gardener-garden-system-300", d.Spec.Template.Spec.PriorityClassName)
		assert.Equal(t, tc.replicas, *d.Spec.Replicas)
		for k, val := range d.Spec.Selector.MatchLabels {
			assert.Equal(t, val, d.Spec.Template.Labels[k], k)
		}
		assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-virtual-garden-kube-apiserver-tcp-443"])
		// pkg/component/kubernetes/controllermanager/controllermanager.go at Gardener v1.120.0: provider
		// extensions' control-plane webhooks mutate the Deployment; the selector stays the pods'.
		assert.Equal(t, "true", d.Labels["provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"])
		assert.NotContains(t, d.Spec.Selector.MatchLabels, "provider.extensions.gardener.cloud/mutated-by-controlplane-webhook")
		c := d.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "registry.k8s.io/kube-controller-manager:v1.31.4", c.Image)
		duration, _ := flag(c.Command, "cluster-signing-duration")
		assert.Equal(t, "720h0m0s", duration)
		assert.Contains(t, c.Command, "--use-service-account-credentials=true")
		assert.Contains(t, c.Command, "--root-ca-file=/srv/kubernetes/ca/ca.crt")

		objs, err := Objects(v)
		require.NoError(t, err)
		kinds := map[string]bool{}
		for _, o := range objs {
			kinds[o.Object.GetKind()] = true
			if o.Object.GetKind() == "Service" {
				var s corev1.Service
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, &s))
				assert.Equal(t, int32(10257), s.Spec.Ports[0].Port)
			}
		}
		assert.Equal(t, tc.pdb, kinds["PodDisruptionBudget"])
	}
}

// TestHibernation checks that a hibernated controller manager has no replicas, with or without
// high availability (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component
// Checklist" docs/development/component-checklist.md).
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ha, asleep bool
		replicas   int32
	}{
		{"awake", false, false, 1},
		{"awake HA", true, false, 2},
		{"hibernated", false, true, 0},
		{"hibernated HA", true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			v.HighAvailability, v.Hibernated = tc.ha, tc.asleep
			d := deploymentOf(t, v)
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.replicas, *d.Spec.Replicas)
		})
	}
}

func TestRender(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{
		"cluster":                      cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"kubernetes_version":           cty.StringVal("1.32.1"),
		"certificate_signing_duration": cty.StringVal("24h"),
	})})
	require.NoError(t, err)
	assert.Len(t, out.Objects, 4, "Service, Deployment, PodDisruptionBudget and VPA; no ManagedResource outside a shoot")
}

// TestShootClusterRoleBinding: a shoot's controller manager acts as kube-system/kube-controller-manager
// with Kubernetes' controller manager role, bound by the ManagedResource
// shoot-core-kube-controller-manager, whose objects stay when it goes (reconcileShootResources in
// pkg/component/kubernetes/controllermanager/shoot_resources.go at v1.120.0).
func TestShootClusterRoleBinding(t *testing.T) {
	objs, err := Objects(shootValues(false))
	require.NoError(t, err)
	mr := rendertest.MustFind(t, objs, "ManagedResource", "shoot-core-kube-controller-manager")
	assert.Equal(t, "shoot--dev--a", mr.GetNamespace())
	assert.Equal(t, map[string]string{"origin": "gardener"}, mr.GetLabels())
	keep, _, _ := unstructured.NestedBool(mr.Object, "spec", "keepObjects")
	assert.True(t, keep)
	data, _, _ := unstructured.NestedStringMap(rendertest.PackedSecret(t, objs, "shoot-core-kube-controller-manager").Object, "stringData")
	require.Len(t, data, 1)
	var crb rbacv1.ClusterRoleBinding
	require.NoError(t, yaml.Unmarshal([]byte(data["clusterrolebinding____gardener.cloud_target_kube-controller-manager.yaml"]), &crb))
	assert.Equal(t, "gardener.cloud:target:kube-controller-manager", crb.Name)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:kube-controller-manager"}, crb.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "kube-controller-manager", Namespace: "kube-system"}}, crb.Subjects)
	// The access Secret the controller manager's token comes from names the same ServiceAccount.
	assert.Equal(t, "system:serviceaccount:kube-system:kube-controller-manager", shootaccess.Access{Component: "kube-controller-manager"}.ServiceAccountUser())

	for _, v := range []Values{minimal(), shootValues(true)} {
		objs, err := Objects(v)
		require.NoError(t, err)
		if v.Shoot == nil {
			assert.Nil(t, rendertest.Find(objs, "ManagedResource", "shoot-core-kube-controller-manager"), "the virtual garden's has none")
		} else {
			assert.NotNil(t, rendertest.Find(objs, "ManagedResource", "shoot-core-kube-controller-manager"), "a workerless shoot's too")
		}
	}
}

// TestWorkload: Gardener's Deployment, Service and budget around the command line
// (controllermanager.go at v1.120.0).
func TestWorkload(t *testing.T) {
	v := shootValues(false)
	d := deploymentOf(t, v)
	assert.Equal(t, int32(1), *d.Spec.RevisionHistoryLimit)
	assert.Empty(t, d.Spec.Strategy, "the rollout strategy is left to the defaults")
	assert.Equal(t, "true", d.Spec.Template.Labels["maintenance.gardener.cloud/restart"])
	assert.Equal(t, "controlplane", d.Spec.Template.Labels["gardener.cloud/role"])
	assert.Equal(t, ptr.To(false), d.Spec.Template.Spec.AutomountServiceAccountToken)
	sc := d.Spec.Template.Spec.SecurityContext
	assert.Equal(t, &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532), FSGroup: ptr.To[int64](65532)}, sc)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
	assert.Equal(t, "10m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "30M", c.Resources.Requests.Memory().String())
	assert.Equal(t, &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}, c.SecurityContext)
	p := c.LivenessProbe
	assert.Equal(t, "/healthz", p.HTTPGet.Path)
	assert.Equal(t, corev1.URISchemeHTTPS, p.HTTPGet.Scheme)
	assert.Equal(t, int32(10257), p.HTTPGet.Port.IntVal)
	assert.Equal(t, [5]int32{1, 2, 15, 10, 15}, [5]int32{p.SuccessThreshold, p.FailureThreshold, p.InitialDelaySeconds, p.PeriodSeconds, p.TimeoutSeconds})

	objs, err := Objects(v)
	require.NoError(t, err)
	var svc corev1.Service
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "Service", "kube-controller-manager").Object, &svc))
	assert.Equal(t, corev1.ClusterIPNone, svc.Spec.ClusterIP, "headless")
	assert.Equal(t, `[{"protocol":"TCP","port":10257}]`, svc.Annotations["networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports"], "a shoot's controller manager is scraped by the seed's Prometheus")
	var pdb policyv1.PodDisruptionBudget
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "PodDisruptionBudget", "kube-controller-manager").Object, &pdb))
	assert.Equal(t, int32(1), pdb.Spec.MaxUnavailable.IntVal)
	assert.Equal(t, policyv1.AlwaysAllow, *pdb.Spec.UnhealthyPodEvictionPolicy)
	assert.Equal(t, d.Spec.Selector, pdb.Spec.Selector)

	vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "kube-controller-manager-vpa")
	target, _, _ := unstructured.NestedStringMap(vpa.Object, "spec", "targetRef")
	assert.Equal(t, map[string]string{"apiVersion": "apps/v1", "kind": "Deployment", "name": "kube-controller-manager"}, target)
	mode, _, _ := unstructured.NestedString(vpa.Object, "spec", "updatePolicy", "updateMode")
	assert.Equal(t, "Auto", mode)
	policies, _, _ := unstructured.NestedSlice(vpa.Object, "spec", "resourcePolicy", "containerPolicies")
	assert.Equal(t, []any{map[string]any{"containerName": "kube-controller-manager", "controlledValues": "RequestsOnly"}}, policies)
	assert.Empty(t, vpa.GetLabels())

	// A Shoot with scale-down disabled: the VPA never evicts to scale down.
	v.ScaleDownDisabled = true
	objs, err = Objects(v)
	require.NoError(t, err)
	vpa = rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "kube-controller-manager-vpa")
	assert.Equal(t, map[string]string{"autoscaling.gardener.cloud/eviction-requirements": "managed-by-controller"}, vpa.GetLabels())
	assert.Equal(t, map[string]string{"eviction-requirements.autoscaling.gardener.cloud/downscale-restriction": "never"}, vpa.GetAnnotations())
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Values)
		err    string
	}{
		{"no version", func(v *Values) { v.KubernetesVersion = "" }, "kubernetes version is required"},
		{"bad duration", func(v *Values) { v.CertificateSigningDuration = "a year" }, `certificate signing duration "a year"`},
		{"unknown image", func(v *Values) { v.Images = map[string]string{"kcm": "v1"} }, `kube-controller-manager images: image "kcm" is not in the image vector`},
		{"no pod network", func(v *Values) { v.Shoot = &Shoot{KubeletCASecretName: "ca-kubelet"} }, "shoot pod network is required"},
		{"no kubelet CA", func(v *Values) { v.Shoot = &Shoot{Pods: "100.96.0.0/11"} }, "kubelet CA secret is required"},
		{"bad grace period", func(v *Values) {
			v.Shoot = &Shoot{Pods: "100.96.0.0/11", KubeletCASecretName: "ca-kubelet", NodeMonitorGracePeriod: "soon"}
		}, `node monitor grace period "soon"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			tc.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
