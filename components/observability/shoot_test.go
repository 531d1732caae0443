package observability

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

const shootNS = "shoot--dev--app"

// shootDefault sets only what is required.
var shootDefault = ShootValues{Cluster: decode.Cluster{Name: "seed"}, Namespace: shootNS, Project: "dev", Name: "app"}

// shootCustomised changes every setting and turns logging and alerting on.
var shootCustomised = ShootValues{
	Cluster: decode.Cluster{Name: "seed-eu1"}, Namespace: shootNS, Project: "dev", Name: "app",
	Images:                      map[string]string{"blackbox-exporter": "v0.27.1", "event-logger": "mirror.example.com/event-logger:v0.60.0"},
	IngressDomain:               "ingress.eu1.seed.example.com",
	IngressTLSSecretName:        "seed-ingress-certificate",
	IngressAuthSecretName:       "observability-ingress-users",
	PlutonoAdminSecretName:      "observability-admin",
	CASecretName:                "ca-cluster",
	EtcdCASecretName:            "ca-etcd-2",
	EtcdClientSecretName:        "etcd-client-2",
	GenericKubeconfigSecretName: "generic-token-kubeconfig-1a2b3c4d",
	APIServerHost:               "api.app.dev.example.com",
	SeedNamespace:               "garden",
	LoggingEnabled:              true,
	Alerting:                    true,
	PrometheusStorage:           "20Gi",
	ValiStorage:                 "50Gi",
}

func shootObjects(t *testing.T, v ShootValues) []render.Object { return must(t)(ShootObjects(v)) }

func TestShootGolden(t *testing.T) {
	for name, v := range map[string]ShootValues{"shoot-default": shootDefault, "shoot-customised": shootCustomised} {
		t.Run(name, func(t *testing.T) {
			objs := shootObjects(t, v)
			checkObjects(t, objs)
			golden.Assert(t, name, objs)
		})
	}
}

// TestShootComponents checks the documented components of a shoot control plane's stack, all
// in the control-plane namespace with gardener-system-100 (Gardener's "Priority Classes"
// docs/development/priority-classes.md) and one replica whatever the availability (Gardener's "High
// Availability Of Components" docs/development/high-availability-of-components.md):
// prometheus-shoot, blackbox-exporter, plutono, kube-state-metrics (Gardener's "Logging And
// Monitoring" docs/extensions/logging-and-monitoring.md, docs/development/priority-classes.md),
// alertmanager-shoot if configured (Gardener's docs/extensions/logging-and-monitoring.md), vali
// with logging (Gardener's docs/extensions/logging-and-monitoring.md) and the event-logger
// (Gardener's "Logging" docs/usage/observability/logging.md).
func TestShootComponents(t *testing.T) {
	one := pods{priorityClass: "gardener-system-100", replicas: 1, namespace: shootNS}
	want := map[string]pods{
		"Prometheus/shoot": one, "Deployment/blackbox-exporter": one, "Deployment/plutono": one, "Deployment/kube-state-metrics": one,
	}
	assert.Equal(t, want, podRunners(t, shootObjects(t, shootDefault)))

	for _, name := range []string{"Alertmanager/shoot", "StatefulSet/vali", "Deployment/event-logger"} {
		want[name] = one
	}
	assert.Equal(t, want, podRunners(t, shootObjects(t, shootCustomised)))

	hibernated := shootCustomised
	hibernated.Hibernated = true
	for name, p := range podRunners(t, shootObjects(t, hibernated)) {
		assert.Zero(t, p.replicas, name)
	}
}

// TestShootScrapeTargets checks that the shoot Prometheus selects the objects labelled
// prometheus=shoot (Gardener's docs/extensions/logging-and-monitoring.md), named shoot-<component>
// like the documented examples (Gardener's docs/extensions/logging-and-monitoring.md), and that the
// monitors select the control plane's Services.
func TestShootScrapeTargets(t *testing.T) {
	objs := shootObjects(t, shootDefault)
	p := rendertest.MustFind(t, objs, "Prometheus", "shoot")
	for _, sel := range []string{"serviceMonitorSelector", "podMonitorSelector", "probeSelector", "ruleSelector", "scrapeConfigSelector"} {
		assert.Equal(t, map[string]string{"prometheus": "shoot"}, selectorOf(t, p, sel), sel)
	}
	selectors := map[string]map[string]string{
		"shoot-kube-apiserver":             {"app": "kubernetes", "role": "apiserver"},
		"shoot-kube-controller-manager":    {"app": "kubernetes", "role": "controller-manager"},
		"shoot-kube-scheduler":             {"app": "kubernetes", "role": "scheduler"},
		"shoot-machine-controller-manager": {"app": "kubernetes", "role": "machine-controller-manager"},
		"shoot-cluster-autoscaler":         {"app": "kubernetes", "role": "cluster-autoscaler"},
		"shoot-etcd-main":                  {"app": "etcd-statefulset", "role": "main", "gardener.cloud/role": "controlplane"},
		"shoot-etcd-events":                {"app": "etcd-statefulset", "role": "events", "gardener.cloud/role": "controlplane"},
	}
	for name, want := range selectors {
		kind := "ServiceMonitor"
		if strings.HasPrefix(name, "shoot-etcd") {
			kind = "PodMonitor"
		}
		m := rendertest.MustFind(t, objs, kind, name)
		assert.Equal(t, "shoot", m.GetLabels()["prometheus"], name)
		assert.Equal(t, want, selectorOf(t, m, "selector"), name)
	}
	// Gardener's docs/extensions/logging-and-monitoring.md: the token of shoot-access-prometheus-shoot
	// authorizes the scrape.
	eps, _, _ := unstructured.NestedSlice(rendertest.MustFind(t, objs, "ServiceMonitor", "shoot-kube-apiserver").Object, "spec", "endpoints")
	ep := eps[0].(map[string]any)
	assert.Equal(t, "shoot-access-prometheus-shoot", ep["authorization"].(map[string]any)["credentials"].(map[string]any)["name"])
	assert.Equal(t, "ca", ep["tlsConfig"].(map[string]any)["ca"].(map[string]any)["secret"].(map[string]any)["name"])
	secret := rendertest.MustFind(t, objs, "Secret", "shoot-access-prometheus-shoot")
	assert.Equal(t, "token-requestor", secret.GetLabels()["resources.gardener.cloud/purpose"])
	assert.Equal(t, "prometheus-shoot", secret.GetAnnotations()["serviceaccount.resources.gardener.cloud/name"])

	// The shoot's share of the seed's cache Prometheus (Gardener's "Alerting"
	// docs/monitoring/alerting.md).
	fed := rendertest.MustFind(t, objs, "ScrapeConfig", "shoot-prometheus-cache")
	targets, _, _ := unstructured.NestedSlice(fed.Object, "spec", "staticConfigs")
	assert.Equal(t, []any{"prometheus-cache.garden.svc:80"}, targets[0].(map[string]any)["targets"])
	match, _, _ := unstructured.NestedSlice(fed.Object, "spec", "params", "match[]")
	assert.Equal(t, []any{`{namespace="shoot--dev--app"}`}, match)

	probe := rendertest.MustFind(t, objs, "ScrapeConfig", "shoot-blackbox-apiserver")
	assert.Equal(t, "/probe", str(t, probe, "spec", "metricsPath"))

	// Network (DefaultPrometheus in pkg/gardenlet/operation/botanist/monitoring.go, service.go in
	// pkg/component/observability/monitoring/prometheus): the shoot's scrape targets, the seed's cache
	// Prometheus and alertmanager-seed; the Service is reached by the aggregate Prometheus from the
	// garden namespace under the alias all-shoots.
	assert.Equal(t, map[string]string{
		"networking.gardener.cloud/to-dns":                                         "allowed",
		"networking.gardener.cloud/to-runtime-apiserver":                           "allowed",
		"observability.gardener.cloud/app":                                         "prometheus-shoot",
		"networking.resources.gardener.cloud/to-all-scrape-targets":                "allowed",
		"networking.resources.gardener.cloud/to-garden-prometheus-cache-tcp-9090":  "allowed",
		"networking.resources.gardener.cloud/to-garden-alertmanager-seed-tcp-9093": "allowed",
	}, podLabels(t, p))
	svc := rendertest.MustFind(t, objs, "Service", "prometheus-shoot")
	assert.Equal(t, map[string]string{
		"networking.resources.gardener.cloud/pod-label-selector-namespace-alias": "all-shoots",
		"networking.resources.gardener.cloud/namespace-selectors":                `[{"matchLabels":{"kubernetes.io/metadata.name":"garden"}}]`,
	}, svc.GetAnnotations())
}

// TestShootRBAC checks the ManagedResources with the permissions in the shoot of the
// ServiceAccounts the token-requestor Secrets stand for, named as gardenlet names them:
// prometheus-shoot-target, shoot-core-kube-state-metrics-target and shoot-event-logger.
func TestShootRBAC(t *testing.T) {
	objs := shootObjects(t, shootCustomised)
	var subjects []string
	for mrName, binding := range map[string]string{
		"prometheus-shoot-target":              "gardener.cloud:monitoring:prometheus-shoot",
		"shoot-core-kube-state-metrics-target": "gardener.cloud:monitoring:kube-state-metrics",
		"shoot-event-logger":                   "gardener.cloud:logging:event-logger",
	} {
		mr := rendertest.MustFind(t, objs, "ManagedResource", mrName)
		assert.Equal(t, shootNS, mr.GetNamespace())
		assert.Equal(t, "gardener", mr.GetLabels()["origin"], mrName)
		_, hasClass, _ := unstructured.NestedString(mr.Object, "spec", "class")
		assert.False(t, hasClass, "the shoot's resource manager applies it into the shoot (Gardener's docs/extensions/conventions.md)")
		secret := rendertest.PackedSecret(t, objs, mrName)
		data, _, _ := unstructured.NestedStringMap(secret.Object, "stringData")
		if data == nil {
			data, _, _ = unstructured.NestedStringMap(secret.Object, "data")
		}
		found := false
		for key, doc := range data {
			if !strings.HasPrefix(key, "clusterrolebinding__") {
				continue
			}
			var b struct {
				Metadata struct{ Name string }
				Subjects []struct{ Name, Namespace string }
			}
			require.NoError(t, yaml.Unmarshal([]byte(doc), &b), key)
			assert.Equal(t, binding, b.Metadata.Name, mrName)
			subjects = append(subjects, b.Subjects[0].Namespace+"/"+b.Subjects[0].Name)
			found = true
		}
		assert.True(t, found, mrName)
	}
	assert.ElementsMatch(t, []string{"kube-system/prometheus-shoot", "kube-system/kube-state-metrics", "kube-system/event-logger"}, subjects)
	for _, name := range []string{"shoot-access-prometheus-shoot", "shoot-access-kube-state-metrics", "shoot-access-event-logger"} {
		assert.NotNil(t, rendertest.Find(objs, "Secret", name), name)
	}
	assert.Nil(t, rendertest.Find(shootObjects(t, shootDefault), "ManagedResource", "shoot-event-logger"), "no event-logger without logging")
}

// TestShootPlutono checks the dashboard label dashboard.monitoring.gardener.cloud/shoot=true
// (Gardener's docs/extensions/logging-and-monitoring.md) and the datasources: the shoot Prometheus
// and the shoot's Vali, which Gardener provisions whether logging is on or not (getDataSource in
// pkg/component/observability/plutono/plutono.go).
func TestShootPlutono(t *testing.T) {
	for _, logging := range []bool{false, true} {
		v := shootDefault
		v.LoggingEnabled = logging
		objs := shootObjects(t, v)
		containers, _, _ := unstructured.NestedSlice(rendertest.MustFind(t, objs, "Deployment", PlutonoName).Object, "spec", "template", "spec", "containers")
		assert.Contains(t, containers[1].(map[string]any)["env"], map[string]any{"name": "LABEL", "value": "dashboard.monitoring.gardener.cloud/shoot"})
		var ds struct{ Datasources []struct{ Name, URL string } }
		require.NoError(t, yaml.Unmarshal([]byte(str(t, findVersion(objs, "ConfigMap", "plutono-datasources"), "data", "datasources.yaml")), &ds))
		assert.Equal(t, "http://prometheus-shoot:80", ds.Datasources[0].URL)
		assert.Len(t, ds.Datasources, 2)
	}
}

// TestShootIngress checks the hosts of the local setup, gu-<project>--<shoot> for Plutono and
// p-<project>--<shoot> for Prometheus under the seed's ingress domain (Gardener's "Getting Started
// Locally" docs/deployment/getting_started_locally.md), and basic authentication before Prometheus
// and Alertmanager.
func TestShootIngress(t *testing.T) {
	objs := shootObjects(t, shootCustomised)
	assert.Equal(t, map[string]string{
		"plutono":            "gu-dev--app.ingress.eu1.seed.example.com",
		"prometheus-shoot":   "p-dev--app.ingress.eu1.seed.example.com",
		"alertmanager-shoot": "au-dev--app.ingress.eu1.seed.example.com",
	}, ingressHosts(objs))
	for _, name := range []string{"prometheus-shoot", "alertmanager-shoot"} {
		ing := rendertest.MustFind(t, objs, "Ingress", name)
		assert.Equal(t, "observability-ingress-users", ing.GetAnnotations()["nginx.ingress.kubernetes.io/auth-secret"], name)
		tls, _, _ := unstructured.NestedSlice(ing.Object, "spec", "tls")
		assert.Equal(t, "seed-ingress-certificate", tls[0].(map[string]any)["secretName"], name)
	}
	assert.Equal(t, "https://gu-dev--app.ingress.eu1.seed.example.com", ShootPlutonoURL(shootCustomised))

	noAuth := shootCustomised
	noAuth.IngressAuthSecretName = ""
	assert.Equal(t, map[string]string{"plutono": "gu-dev--app.ingress.eu1.seed.example.com"}, ingressHosts(shootObjects(t, noAuth)))
	assert.Empty(t, ingressHosts(shootObjects(t, shootDefault)))
}

// TestShootEventLogger checks that the event-logger reads the control-plane namespace and the
// shoot's kube-system and default namespaces (computeCommand in
// pkg/component/observability/logging/eventlogger/event_logger.go).
func TestShootEventLogger(t *testing.T) {
	objs := shootObjects(t, shootCustomised)
	containers, _, _ := unstructured.NestedSlice(rendertest.MustFind(t, objs, "Deployment", EventLoggerName).Object, "spec", "template", "spec", "containers")
	cmd := containers[0].(map[string]any)["command"]
	assert.Contains(t, cmd, "--seed-event-namespaces=shoot--dev--app")
	assert.Contains(t, cmd, "--shoot-event-namespaces=kube-system,default")
	assert.Equal(t, "mirror.example.com/event-logger:v0.60.0", containers[0].(map[string]any)["image"])
}

func TestShootErrors(t *testing.T) {
	with := func(f func(*ShootValues)) ShootValues {
		v := shootDefault
		f(&v)
		return v
	}
	tests := []struct {
		name string
		v    ShootValues
		want string
	}{
		{"no cluster", with(func(v *ShootValues) { v.Cluster = decode.Cluster{} }), "cluster is not set"},
		{"no namespace", with(func(v *ShootValues) { v.Namespace = "" }), "namespace is required"},
		{"no project", with(func(v *ShootValues) { v.Project = "" }), "project and name of the shoot are required"},
		{"no name", with(func(v *ShootValues) { v.Name = "" }), "project and name of the shoot are required"},
		{"bad namespace", with(func(v *ShootValues) { v.Namespace = "Shoot_dev" }), `namespace "Shoot_dev"`},
		{"bad host", with(func(v *ShootValues) { v.IngressDomain = "bad_domain" }), `ingress host "au-dev--app.bad_domain"`},
		{"bad storage", with(func(v *ShootValues) { v.PrometheusStorage = "-1Gi" }), `prometheus storage "-1Gi" is not positive`},
		{"unknown image", with(func(v *ShootValues) { v.Images = map[string]string{"loki": "1.0"} }), `image "loki" is not in the image vector`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ShootObjects(tt.v)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestShootImageNames(t *testing.T) {
	assert.Equal(t, []string{"alertmanager", "blackbox-exporter", "event-logger", "kube-state-metrics", "plutono",
		"plutono-dashboard-refresher", "prometheus", "vali"}, ShootImageNames())
}

// TestShootRendersNothingClusterWide checks that a shoot's stack keeps to its namespace, so that
// the control planes of many shoots share a seed: its cluster-wide permissions go into the
// shoot.
func TestShootRendersNothingClusterWide(t *testing.T) {
	for _, o := range shootObjects(t, shootCustomised) {
		assert.Equal(t, shootNS, o.Object.GetNamespace(), o.Object.GetKind()+"/"+o.Object.GetName())
	}
}
