package observability

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// seedCustomised changes every seed setting and turns logging on.
var seedCustomised = SeedValues{
	Cluster:                decode.Cluster{Name: "seed-eu1"},
	Namespace:              "garden",
	Images:                 map[string]string{"prometheus": "mirror.example.com/prometheus:v3.5.0", "vali": "v2.2.23"},
	IngressDomain:          "ingress.eu1.seed.example.com",
	IngressTLSSecretName:   "seed-ingress-certificate",
	IngressAuthSecretName:  "observability-ingress",
	PlutonoAdminSecretName: "observability-admin",
	PrometheusStorage:      "50Gi",
	ValiStorage:            "200Gi",
	LoggingEnabled:         true,
	Alerting:               ptr.To(false),
}

func seedObjects(t *testing.T, v SeedValues) []render.Object { return must(t)(SeedObjects(v)) }

func TestSeedGolden(t *testing.T) {
	for name, v := range map[string]SeedValues{
		"seed-default":           {Cluster: decode.Cluster{Name: "seed"}},
		"seed-customised":        seedCustomised,
		"seed-runtime-as-garden": {Cluster: decode.Cluster{Name: "runtime"}, RuntimeIsGarden: true, LoggingEnabled: true, IngressDomain: "ingress.runtime.example.com", IngressAuthSecretName: "observability-ingress"},
	} {
		t.Run(name, func(t *testing.T) {
			objs := seedObjects(t, v)
			checkObjects(t, objs)
			golden.Assert(t, name, objs)
		})
	}
}

// TestSeedComponents checks the components gardenlet's seed reconciler deploys
// (pkg/gardenlet/controller/seed/seed/components.go), all in the seed's garden namespace with
// gardener-system-600: prometheus-operator, kube-state-metrics-seed (two replicas), plutono,
// prometheus-cache, prometheus-seed, prometheus-aggregate, alertmanager-seed and, with logging,
// vali.
func TestSeedComponents(t *testing.T) {
	want := map[string]pods{}
	for _, name := range []string{
		"Deployment/prometheus-operator", "Deployment/plutono",
		"Prometheus/cache", "Prometheus/seed", "Prometheus/aggregate", "Alertmanager/seed",
	} {
		want[name] = pods{priorityClass: "gardener-system-600", replicas: 1, namespace: "garden"}
	}
	want["Deployment/kube-state-metrics-seed"] = pods{priorityClass: "gardener-system-600", replicas: 2, namespace: "garden"}
	assert.Equal(t, want, podRunners(t, seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "seed"}})))

	want["StatefulSet/vali"] = pods{priorityClass: "gardener-system-600", replicas: 1, namespace: "garden"}
	assert.Equal(t, want, podRunners(t, seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "seed"}, LoggingEnabled: true})))
}

// TestSeedRuntimeIsGarden checks that a seed in the garden runtime cluster leaves
// prometheus-operator, plutono, kube-state-metrics and vali to the garden (Gardener's "Gardener
// Operator" docs/concepts/operator.md), with the CRDs the garden's stack installs, and keeps its
// own Prometheus instances.
func TestSeedRuntimeIsGarden(t *testing.T) {
	objs := seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "runtime"}, RuntimeIsGarden: true, LoggingEnabled: true, IngressDomain: "example.com"})
	for _, o := range objs {
		assert.NotEqual(t, "CustomResourceDefinition", o.Object.GetKind(), o.Object.GetName())
	}
	for _, name := range []string{PrometheusOperatorName, PlutonoName} {
		assert.Nil(t, rendertest.Find(objs, "Deployment", name), name)
	}
	// kube-state-metrics-seed runs in the garden runtime cluster too (the seed reconciler does not
	// skip it there), next to the garden's kube-state-metrics-runtime.
	assert.NotNil(t, rendertest.Find(objs, "Deployment", "kube-state-metrics-seed"))
	assert.Nil(t, rendertest.Find(objs, "StatefulSet", ValiName))
	assert.Nil(t, rendertest.Find(objs, "Ingress", PlutonoName))
	assert.Equal(t, "", SeedPlutonoURL(SeedValues{RuntimeIsGarden: true, IngressDomain: "example.com"}))
	for _, name := range []string{"cache", "seed", "aggregate"} {
		assert.NotNil(t, rendertest.Find(objs, "Prometheus", name), name)
	}
	assert.NotNil(t, rendertest.Find(objs, "ScrapeConfig", "cache-kube-state-metrics"))
	// ... and its prometheus-operator must serve all namespaces.
	garden, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}, WatchAllNamespaces: true}))
	require.NoError(t, err)
	containers, _, _ := unstructured.NestedSlice(rendertest.MustFind(t, garden, "Deployment", PrometheusOperatorName).Object, "spec", "template", "spec", "containers")
	assert.NotContains(t, containers[0].(map[string]any)["args"], "--namespaces=garden")
}

// TestSeedSelectors checks the labels by which the instances find their monitoring objects:
// prometheus=cache, prometheus=seed and prometheus=aggregate (Gardener's
// docs/extensions/logging-and-monitoring.md), and what each scrapes: kube-state-metrics for the
// cache Prometheus (Gardener's docs/monitoring/alerting.md), annotated pods in extension namespaces
// for the seed Prometheus (Gardener's docs/monitoring/alerting.md), the cache and the shoot
// Prometheus instances for the aggregate Prometheus, which alone alerts (Gardener's
// docs/monitoring/alerting.md).
func TestSeedSelectors(t *testing.T) {
	objs := seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "seed"}})
	for _, name := range []string{"cache", "seed", "aggregate"} {
		p := rendertest.MustFind(t, objs, "Prometheus", name)
		for _, sel := range []string{"serviceMonitorSelector", "podMonitorSelector", "probeSelector", "ruleSelector", "scrapeConfigSelector"} {
			assert.Equal(t, map[string]string{"prometheus": name}, selectorOf(t, p, sel), name+" "+sel)
		}
		_, alerts, _ := unstructured.NestedFieldNoCopy(p.Object, "spec", "alerting")
		assert.Equal(t, name == "aggregate", alerts, name)
		assert.Equal(t, "allowed", podLabels(t, p)["networking.resources.gardener.cloud/to-all-seed-scrape-targets"], name)
	}
	assert.Equal(t, "1d", str(t, rendertest.MustFind(t, objs, "Prometheus", "cache"), "spec", "retention"))
	assert.Equal(t, map[string]string{"alertmanager": "seed"}, selectorOf(t, rendertest.MustFind(t, objs, "Alertmanager", "seed"), "alertmanagerConfigSelector"))

	ksm := rendertest.MustFind(t, objs, "ScrapeConfig", "cache-kube-state-metrics")
	assert.Equal(t, "cache", ksm.GetLabels()["prometheus"])
	svc := rendertest.MustFind(t, objs, "Service", "kube-state-metrics-seed")
	assert.Equal(t, `[{"protocol":"TCP","port":8080}]`, svc.GetAnnotations()["networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports"])
	assert.Equal(t, `[{"protocol":"TCP","port":8080}]`, svc.GetAnnotations()["networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports"])

	pm := rendertest.MustFind(t, objs, "PodMonitor", "seed-extensions")
	assert.Equal(t, "seed", pm.GetLabels()["prometheus"])
	eps, _, _ := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	relabelings := eps[0].(map[string]any)["relabelings"].([]any)
	assert.Equal(t, "extension-(.+);true;(.+)", relabelings[0].(map[string]any)["regex"])
	assert.Equal(t, "job", relabelings[1].(map[string]any)["targetLabel"])

	assert.Equal(t, "aggregate", rendertest.MustFind(t, objs, "ScrapeConfig", "aggregate-prometheus").GetLabels()["prometheus"])
	assert.NotNil(t, rendertest.MustFind(t, objs, "ServiceMonitor", "aggregate-shoot-prometheus"))
	cache := rendertest.MustFind(t, objs, "Service", "prometheus-cache")
	assert.Equal(t, `[{"protocol":"TCP","port":9090}]`, cache.GetAnnotations()["networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports"])
	assert.Equal(t, `[{"matchLabels":{"gardener.cloud/role":"shoot"}}]`, cache.GetAnnotations()["networking.resources.gardener.cloud/namespace-selectors"])
}

// TestSeedPlutono checks the dashboard label dashboard.monitoring.gardener.cloud/seed=true
// (Gardener's docs/extensions/logging-and-monitoring.md) and the datasources.
func TestSeedPlutono(t *testing.T) {
	objs := seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "seed"}, LoggingEnabled: true})
	containers, _, _ := unstructured.NestedSlice(rendertest.MustFind(t, objs, "Deployment", PlutonoName).Object, "spec", "template", "spec", "containers")
	env := map[string]string{}
	for _, e := range containers[1].(map[string]any)["env"].([]any) {
		env[e.(map[string]any)["name"].(string)] = e.(map[string]any)["value"].(string)
	}
	assert.Equal(t, "dashboard.monitoring.gardener.cloud/seed", env["LABEL"])
	var ds struct{ Datasources []struct{ Name, URL string } }
	require.NoError(t, yaml.Unmarshal([]byte(str(t, findVersion(objs, "ConfigMap", "plutono-datasources"), "data", "datasources.yaml")), &ds))
	require.Len(t, ds.Datasources, 3)
	assert.Equal(t, "prometheus", ds.Datasources[0].Name)
	assert.Equal(t, "http://prometheus-aggregate:80", ds.Datasources[0].URL)
	assert.Equal(t, "seed-prometheus", ds.Datasources[1].Name)
	assert.Equal(t, "http://logging.garden.svc:3100", ds.Datasources[2].URL)
	assert.Equal(t, "allowed", podLabels(t, rendertest.MustFind(t, objs, "Deployment", PlutonoName))["networking.resources.gardener.cloud/to-prometheus-aggregate-tcp-9090"])
}

// TestSeedIngress checks the hosts of the local setup, g-seed and p-seed under the seed's
// ingress domain (Gardener's "Getting Started Locally" docs/deployment/getting_started_locally.md),
// the aggregate Prometheus only behind basic authentication.
func TestSeedIngress(t *testing.T) {
	tests := []struct {
		name  string
		v     SeedValues
		hosts map[string]string
	}{
		{"no domain", SeedValues{IngressAuthSecretName: "auth"}, map[string]string{}},
		{"no credentials", SeedValues{IngressDomain: "ingress.example.com"}, map[string]string{"plutono": "g-seed.ingress.example.com"}},
		{"both", SeedValues{IngressDomain: "ingress.example.com", IngressAuthSecretName: "auth"},
			map[string]string{"plutono": "g-seed.ingress.example.com", "prometheus-aggregate": "p-seed.ingress.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.v.Cluster = decode.Cluster{Name: "seed"}
			objs := seedObjects(t, tt.v)
			assert.Equal(t, tt.hosts, ingressHosts(objs))
			if ing := rendertest.Find(objs, "Ingress", "prometheus-aggregate"); ing != nil {
				assert.Equal(t, "auth", ing.GetAnnotations()["nginx.ingress.kubernetes.io/auth-secret"])
				assert.Equal(t, "basic", ing.GetAnnotations()["nginx.ingress.kubernetes.io/auth-type"])
			}
			if tt.v.IngressDomain != "" {
				assert.Equal(t, "https://g-seed.ingress.example.com", SeedPlutonoURL(tt.v))
			}
		})
	}
}

// TestSeedDefaults checks the zero values: namespace garden, 10Gi per Prometheus with its blocks
// kept within 80% of it, and the central Vali's 100Gi (Gardener's "Configuring Logging"
// docs/deployment/configuring_logging.md).
func TestSeedDefaults(t *testing.T) {
	objs := seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "seed"}, LoggingEnabled: true})
	templates, _, _ := unstructured.NestedSlice(rendertest.MustFind(t, objs, "StatefulSet", ValiName).Object, "spec", "volumeClaimTemplates")
	size, _, _ := unstructured.NestedString(templates[0].(map[string]any), "spec", "resources", "requests", "storage")
	assert.Equal(t, "100Gi", size)
	assert.Equal(t, "8192MiB", str(t, rendertest.MustFind(t, objs, "Prometheus", "seed"), "spec", "retentionSize"))
	for _, o := range objs {
		assert.Equal(t, "seed", o.Cluster)
	}
}

func TestSeedErrors(t *testing.T) {
	tests := []struct {
		name string
		v    SeedValues
		want string
	}{
		{"no cluster", SeedValues{}, "cluster is not set"},
		{"bad prometheus storage", SeedValues{Cluster: decode.Cluster{Name: "seed"}, PrometheusStorage: "lots"}, `prometheus storage "lots"`},
		{"zero vali storage", SeedValues{Cluster: decode.Cluster{Name: "seed"}, ValiStorage: "0"}, `vali storage "0" is not positive`},
		{"unknown image", SeedValues{Cluster: decode.Cluster{Name: "seed"}, Images: map[string]string{"grafana": "1.0"}}, `image "grafana" is not in the image vector`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SeedObjects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestSeedInGardenRuntimeClusterDoesNotCollide checks that the seed's stack in the garden
// runtime cluster renders no object the garden's stack renders too.
func TestSeedInGardenRuntimeClusterDoesNotCollide(t *testing.T) {
	garden := must(t)(Objects(rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}, IngressDomain: "example.com", WatchAllNamespaces: true})))
	ids := map[string]bool{}
	for _, o := range garden {
		ids[o.Object.GetKind()+" "+o.Object.GetNamespace()+"/"+o.Object.GetName()] = true
	}
	seed := seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "runtime"}, RuntimeIsGarden: true, LoggingEnabled: true, IngressDomain: "example.com", IngressAuthSecretName: "auth"})
	for _, o := range seed {
		id := o.Object.GetKind() + " " + o.Object.GetNamespace() + "/" + o.Object.GetName()
		assert.False(t, ids[id], id)
	}
}
