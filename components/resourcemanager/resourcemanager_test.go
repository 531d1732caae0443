package resourcemanager

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

const testPEM = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n"

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": rendertest.Cluster("runtime")}).AsValueMap()

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// config is a decoded HCL configuration with the schema's defaults, changed by overrides.
func config(overrides map[string]cty.Value) cty.Value { return rendertest.Config(defaults, overrides) }

func customised() cty.Value {
	return config(map[string]cty.Value{
		"namespace":               cty.StringVal("garden-runtime"),
		"images":                  cty.MapVal(map[string]cty.Value{"gardener-resource-manager": cty.StringVal("registry.example.com/grm:v1.2.3")}),
		"high_availability":       cty.True,
		"ca_bundle":               cty.StringVal(testPEM),
		"server_tls_secret_name":  cty.StringVal("grm-tls"),
		"concurrent_syncs":        cty.NumberIntVal(10),
		"log_level":               cty.StringVal("debug"),
		"log_format":              cty.StringVal("text"),
		"default_seccomp_profile": cty.True,
	})
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		golden string
		config cty.Value
	}{
		{"default", config(nil)},
		{"customised", customised()},
		{"no-webhooks", config(map[string]cty.Value{"admission_webhooks": cty.False})},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			out, err := Type.RenderConfig(render.Input{Name: "grm", Config: tt.config})
			require.NoError(t, err)
			golden.Assert(t, tt.golden, out.Objects)
		})
	}
}

// find returns the object of a kind, converted into out.
func find(t *testing.T, objs []render.Object, kind string, out runtime.Object) {
	t.Helper()
	for _, o := range objs {
		if o.Object.GetKind() == kind {
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, out))
			return
		}
	}
	t.Fatalf("no %s rendered", kind)
}

func objectsOf(t *testing.T, v Values) []render.Object {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	return objs
}

func TestObjectsAndNamespaces(t *testing.T) {
	objs := objectsOf(t, values(Values{Cluster: clusterRef()}))
	var got []string
	for _, o := range objs {
		assert.Equal(t, "runtime", o.Cluster)
		name := o.Object.GetName()
		if o.Object.GetKind() == "ConfigMap" {
			assert.Regexp(t, `^gardener-resource-manager-[0-9a-f]{8}$`, name, "named after its data")
			name = "gardener-resource-manager-<checksum>"
		}
		got = append(got, o.Object.GetKind()+"/"+o.Object.GetNamespace()+"/"+name)
	}
	assert.Equal(t, []string{
		"CustomResourceDefinition//managedresources.resources.gardener.cloud",
		"ServiceAccount/garden/gardener-resource-manager",
		"ClusterRole//gardener.cloud:system:gardener-resource-manager",
		"ClusterRoleBinding//gardener.cloud:system:gardener-resource-manager",
		"Role/garden/gardener-resource-manager",
		"RoleBinding/garden/gardener-resource-manager",
		"ConfigMap/garden/gardener-resource-manager-<checksum>",
		"Service/garden/gardener-resource-manager",
		"Deployment/garden/gardener-resource-manager",
		"PodDisruptionBudget/garden/gardener-resource-manager",
		"MutatingWebhookConfiguration//gardener-resource-manager",
		"ValidatingWebhookConfiguration//gardener-resource-manager",
	}, got)
}

func clusterRef() decode.Cluster { return decode.Cluster{Name: "runtime"} }

func TestDeploymentFacts(t *testing.T) {
	for _, ha := range []bool{false, true} {
		var d appsv1.Deployment
		find(t, objectsOf(t, values(Values{Cluster: clusterRef(), HighAvailability: ha})), "Deployment", &d)
		// Servers run with 2 replicas whatever the HA setting (Gardener's "Gardener Resource Manager"
		// docs/concepts/resource-manager.md, "High Availability Of Components"
		// docs/development/high-availability-of-components.md).
		assert.Equal(t, int32(2), *d.Spec.Replicas)
		// Gardener's "Priority Classes" docs/development/priority-classes.md: gardener-resource-manager
		// runs with gardener-garden-system-critical.
		assert.Equal(t, "gardener-garden-system-critical", d.Spec.Template.Spec.PriorityClassName)
		// A runtime GRM skips the high-availability-config webhook it serves itself
		// (pkg/component/gardener/resourcemanager/resource_manager.go at gardener/gardener v1.120.0).
		assert.Equal(t, map[string]string{"app": Name, "high-availability-config.resources.gardener.cloud/skip": "true"}, d.Labels)
		assert.Equal(t, map[string]string{"app": Name}, d.Spec.Selector.MatchLabels)
		for k, v := range d.Spec.Selector.MatchLabels {
			assert.Equal(t, v, d.Spec.Template.Labels[k], "selector label %s", k)
		}
		assert.Equal(t, "seed", d.Spec.Template.Labels["gardener.cloud/role"])
		assert.Equal(t, "true", d.Spec.Template.Labels["projected-token-mount.resources.gardener.cloud/skip"])
		assert.Equal(t, "true", d.Spec.Template.Labels["system-components-config.resources.gardener.cloud/skip"])
		c := d.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/resource-manager:v1.120.0", c.Image)
		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		assert.Equal(t, map[string]int32{"metrics": 8080, "health": 8081}, ports)
		// Probes and requests of resource_manager.go at v1.120.0.
		assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
		assert.Equal(t, int32(30), c.LivenessProbe.InitialDelaySeconds)
		assert.Equal(t, int32(5), c.LivenessProbe.FailureThreshold)
		assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
		assert.Equal(t, int32(10), c.ReadinessProbe.InitialDelaySeconds)
		assert.Equal(t, "10m", c.Resources.Requests.Cpu().String())
		assert.Equal(t, "30M", c.Resources.Requests.Memory().String())
		assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, d.Spec.Template.Spec.SecurityContext.SeccompProfile.Type)
		var keys []string
		for _, tsc := range d.Spec.Template.Spec.TopologySpreadConstraints {
			assert.Equal(t, corev1.ScheduleAnyway, tsc.WhenUnsatisfiable)
			keys = append(keys, tsc.TopologyKey)
		}
		if ha {
			assert.Equal(t, []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, keys)
		} else {
			assert.Equal(t, []string{"kubernetes.io/hostname"}, keys)
		}
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.Name] = m.MountPath
		}
		assert.Equal(t, map[string]string{
			"kube-api-access-gardener": "/var/run/secrets/kubernetes.io/serviceaccount",
			"tls":                      "/etc/gardener-resource-manager-tls",
			"config":                   "/etc/gardener-resource-manager-config",
		}, mounts)
		var secret string
		for _, vol := range d.Spec.Template.Spec.Volumes {
			if vol.Secret != nil {
				secret = vol.Secret.SecretName
			}
		}
		assert.Equal(t, "gardener-resource-manager-server", secret)
	}
}

// TestConfigMapNamedAfterItsData: the configuration ConfigMap is immutable and named after a
// checksum of its data, the Deployment names it in a reference annotation so that the garbage
// collector keeps it, and a new configuration rolls the pods through the new name (MakeUnique and
// references.InjectAnnotations in resource_manager.go at v1.120.0).
func TestConfigMapNamedAfterItsData(t *testing.T) {
	rendered := func(v Values) (corev1.ConfigMap, appsv1.Deployment, render.Object) {
		objs := objectsOf(t, v)
		var d appsv1.Deployment
		var cm corev1.ConfigMap
		find(t, objs, "Deployment", &d)
		find(t, objs, "ConfigMap", &cm)
		for _, o := range objs {
			if o.Object.GetKind() == "ConfigMap" {
				return cm, d, o
			}
		}
		t.Fatal("no ConfigMap")
		return cm, d, render.Object{}
	}
	cm, d, obj := rendered(values(Values{Cluster: clusterRef()}))
	assert.Equal(t, ptr.To(true), cm.Immutable)
	assert.Equal(t, "true", cm.Labels["resources.gardener.cloud/garbage-collectable-reference"])
	assert.Equal(t, cm.Name, d.Annotations[unique.AnnotationKey("configmap", cm.Name)])
	assert.Equal(t, cm.Name, d.Spec.Template.Annotations[unique.AnnotationKey("configmap", cm.Name)])
	var volume string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil {
			volume = v.ConfigMap.Name
		}
	}
	assert.Equal(t, cm.Name, volume)
	again, _, _ := rendered(values(Values{Cluster: clusterRef()}))
	assert.Equal(t, cm.Name, again.Name, "deterministic")
	debug, _, _ := rendered(values(Values{Cluster: clusterRef(), LogLevel: "debug"}))
	assert.NotEqual(t, cm.Name, debug.Name, "a new configuration is a new ConfigMap")
	// The ConfigMap before supersedes the earlier names, the unsuffixed one included.
	require.NotNil(t, obj.Supersedes)
	assert.True(t, obj.Supersedes.MatchString("gardener-resource-manager-config"))
	assert.True(t, obj.Supersedes.MatchString(debug.Name))
	assert.False(t, obj.Supersedes.MatchString("gardener-resource-manager-server"))
}

func TestComponentConfiguration(t *testing.T) {
	var cm corev1.ConfigMap
	find(t, objectsOf(t, values(Values{Cluster: clusterRef(), Namespace: "gardens"})), "ConfigMap", &cm)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg))
	u := &unstructured.Unstructured{Object: cfg}
	assert.Equal(t, "resourcemanager.config.gardener.cloud/v1alpha1", u.GetAPIVersion())
	assert.Equal(t, "ResourceManagerConfiguration", u.GetKind())
	field := func(path ...string) any {
		v, found, err := unstructured.NestedFieldNoCopy(cfg, path...)
		require.NoError(t, err)
		require.True(t, found, "%v", path)
		return v
	}
	// Gardener's "Gardener Operator" docs/concepts/operator.md: runtime ManagedResources have
	// .spec.class=seed.
	assert.Equal(t, "seed", field("controllers", "resourceClass"))
	assert.Equal(t, "gardens", field("leaderElection", "resourceNamespace"))
	assert.EqualValues(t, 10250, field("server", "webhooks", "port"))
	assert.Equal(t, "/etc/gardener-resource-manager-tls", field("server", "webhooks", "tls", "serverCertDir"))
	assert.Equal(t, true, field("controllers", "networkPolicy", "enabled"))                     // Gardener's docs/operations/network_policies.md
	assert.Equal(t, "gardener", field("controllers", "managedResource", "managedByLabelValue")) // Gardener's docs/concepts/resource-manager.md
	// Sync periods of resource_manager.go at v1.120.0.
	assert.Equal(t, "12h0m0s", field("controllers", "garbageCollector", "syncPeriod"))
	assert.Equal(t, "1h0m0s", field("controllers", "managedResource", "syncPeriod"))
	assert.EqualValues(t, 43200, field("webhooks", "projectedTokenMount", "expirationSeconds")) // Gardener's docs/concepts/resource-manager.md
	assert.Equal(t, false, field("webhooks", "seccompProfile", "enabled"))
	_, found, _ := unstructured.NestedFieldNoCopy(cfg, "sourceClientConnection", "namespaces")
	assert.False(t, found, "the runtime GRM watches all namespaces (Gardener's docs/concepts/resource-manager.md)")
}

func TestServiceAndPDB(t *testing.T) {
	objs := objectsOf(t, values(Values{Cluster: clusterRef()}))
	var svc corev1.Service
	find(t, objs, "Service", &svc)
	assert.Equal(t, map[string]string{"app": "gardener-resource-manager"}, svc.Spec.Selector)
	// ensureService in resource_manager.go at v1.120.0: metrics, health, and server 443 to 10250.
	ports := map[string][2]int32{}
	for _, p := range svc.Spec.Ports {
		ports[p.Name] = [2]int32{p.Port, p.TargetPort.IntVal}
	}
	assert.Equal(t, map[string][2]int32{"metrics": {8080, 8080}, "health": {8081, 8081}, "server": {443, 10250}}, ports)
	assert.Equal(t, map[string]string{
		"networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":8080}]`,
		"networking.resources.gardener.cloud/from-world-to-ports":                        `[{"protocol":"TCP","port":10250}]`,
	}, svc.Annotations)
	var pdb policyv1.PodDisruptionBudget
	find(t, objs, "PodDisruptionBudget", &pdb)
	// Gardener's docs/development/high-availability-of-components.md
	assert.Equal(t, int32(1), pdb.Spec.MaxUnavailable.IntVal)
	assert.Equal(t, policyv1.AlwaysAllow, *pdb.Spec.UnhealthyPodEvictionPolicy)
	assert.Equal(t, map[string]string{"app": Name, "gardener.cloud/role": "seed"}, pdb.Spec.Selector.MatchLabels)
}

func TestWebhooks(t *testing.T) {
	objs := objectsOf(t, values(Values{Cluster: clusterRef(), CABundle: testPEM}))
	var m admissionregistrationv1.MutatingWebhookConfiguration
	var val admissionregistrationv1.ValidatingWebhookConfiguration
	find(t, objs, "MutatingWebhookConfiguration", &m)
	find(t, objs, "ValidatingWebhookConfiguration", &val)
	names := map[string]admissionregistrationv1.WebhookClientConfig{}
	for _, h := range m.Webhooks {
		names[h.Name] = h.ClientConfig
	}
	for _, h := range val.Webhooks {
		names[h.Name] = h.ClientConfig
	}
	for _, n := range []string{HighAvailabilityConfigWebhook, ProjectedTokenMountWebhook, PodTopologySpreadWebhook, EndpointSliceHintsWebhook,
		CRDDeletionProtectionWebhook, CRDeletionProtectionWebhook, "validation.extensions.workers.resources.gardener.cloud", "validation.extensions.etcds.resources.gardener.cloud"} {
		require.Contains(t, names, n)
		cc := names[n]
		assert.Equal(t, "gardener-resource-manager", cc.Service.Name)
		assert.Equal(t, "garden", cc.Service.Namespace)
		assert.Equal(t, []byte(testPEM), cc.CABundle)
	}
	assert.NotContains(t, names, SeccompProfileWebhook, "seccomp defaulting is opt-in (Gardener's docs/usage/security/default_seccomp_profile.md)")
	// Gardener's docs/concepts/resource-manager.md: only namespaces labelled consider=true.
	assert.Equal(t, "true", m.Webhooks[0].NamespaceSelector.MatchLabels["high-availability-config.resources.gardener.cloud/consider"])
	// Gardener's docs/concepts/resource-manager.md: only CRDs labelled deletion-protected.
	assert.Equal(t, "true", val.Webhooks[0].ObjectSelector.MatchLabels["gardener.cloud/deletion-protected"])

	objs = objectsOf(t, values(Values{Cluster: clusterRef(), DefaultSeccompProfile: true}))
	find(t, objs, "MutatingWebhookConfiguration", &m)
	var seccomp bool
	for _, h := range m.Webhooks {
		seccomp = seccomp || h.Name == SeccompProfileWebhook
		assert.Nil(t, h.ClientConfig.CABundle, "no caBundle without Values.CABundle")
	}
	assert.True(t, seccomp)
}

func TestCABundleMarkers(t *testing.T) {
	tests := []struct{ in, want string }{
		{testPEM, base64.StdEncoding.EncodeToString([]byte(testPEM))},
		{render.GeneratedRef("garden", "ca", "ca.crt", false), render.GeneratedRef("garden", "ca", "ca.crt", true)},
		{render.GeneratedRef("garden", "ca", "ca.crt", true), render.GeneratedRef("garden", "ca", "ca.crt", true)},
		{render.UnknownString, render.UnknownString},
	}
	for _, tt := range tests {
		objs := objectsOf(t, values(Values{Cluster: clusterRef(), CABundle: tt.in}))
		for _, o := range objs {
			if o.Object.GetKind() != "MutatingWebhookConfiguration" && o.Object.GetKind() != "ValidatingWebhookConfiguration" {
				continue
			}
			hooks, _, _ := unstructured.NestedSlice(o.Object.Object, "webhooks")
			for _, h := range hooks {
				got, _, _ := unstructured.NestedString(h.(map[string]any), "clientConfig", "caBundle")
				assert.Equal(t, tt.want, got)
			}
		}
	}
}

func TestNoWebhooks(t *testing.T) {
	v := values(Values{Cluster: clusterRef()})
	v.AdmissionWebhooks = false
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		assert.NotContains(t, o.Object.GetKind(), "WebhookConfiguration")
	}
}

func TestOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: customised()})
	require.NoError(t, err)
	assert.Equal(t, cty.StringVal("gardener-resource-manager"), out.Outputs["service_name"])
	assert.Equal(t, cty.StringVal("garden-runtime"), out.Outputs["namespace"])
}

func TestServiceDNSNames(t *testing.T) {
	assert.Equal(t, []string{"gardener-resource-manager", "gardener-resource-manager.garden", "gardener-resource-manager.garden.svc",
		"gardener-resource-manager.garden.svc.cluster.local"}, ServiceDNSNames(DefaultNamespace))
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		values Values
		err    string
	}{
		{"log level", Values{LogLevel: "warn"}, `log level "warn" is not one of info, debug, error`},
		{"log format", Values{LogFormat: "xml"}, `log format "xml" is not one of json, text`},
		{"concurrent syncs", Values{ConcurrentSyncs: -1}, "concurrent syncs -1 is negative"},
		{"namespace", Values{Namespace: "Garden"}, `namespace "Garden" is invalid`},
		{"secret name", Values{ServerTLSSecretName: "a_b"}, `server TLS secret name "a_b" is invalid`},
		{"unknown image", Values{Images: map[string]string{"grm": "x:1"}}, `image "grm" is not in the image vector`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(values(tt.values))
			assert.ErrorContains(t, err, tt.err)
		})
	}
	_, err := Type.RenderConfig(render.Input{Config: config(map[string]cty.Value{"unknown": cty.True})})
	assert.ErrorContains(t, err, "unknown field")
}
