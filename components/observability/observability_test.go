package observability

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster": rendertest.Cluster("runtime"),
}).AsValueMap()

// config is a configuration as the engine passes it: schema defaults filled in, extra
// attributes overriding them.
func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

// customised is a configuration that changes every attribute.
var customised = map[string]cty.Value{
	"namespace":                 cty.StringVal("monitoring"),
	"images":                    cty.MapVal(map[string]cty.Value{"prometheus": cty.StringVal("mirror.example.com/prometheus:v3.5.0"), "vali": cty.StringVal("v2.2.23")}),
	"ingress_domain":            cty.StringVal("ingress.garden.example.com"),
	"ingress_tls_secret_name":   cty.StringVal("garden-ingress-certificate"),
	"plutono_admin_secret_name": cty.StringVal("observability-admin"),
	"prometheus_storage":        cty.StringVal("50Gi"),
	"vali_storage":              cty.StringVal("20Gi"),
	"longterm":                  cty.False,
	"alerting":                  cty.False,
}

func render1(t *testing.T, extra map[string]cty.Value) []render.Object {
	t.Helper()
	out, err := Type.RenderConfig(render.Input{Name: "observability", Config: config(extra)})
	require.NoError(t, err)
	return out.Objects
}

func str(t *testing.T, u *unstructured.Unstructured, path ...string) string {
	t.Helper()
	require.NotNil(t, u, path)
	s, _, err := unstructured.NestedString(u.Object, path...)
	require.NoError(t, err, path)
	return s
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "observability"}, map[string]cty.Value{
		"default":    config(nil),
		"customised": config(customised),
	})
}

// TestEveryPodHasPriorityClass100 checks the class of every workload and custom resource that
// runs pods: gardener-garden-system-100 for the whole stack (Gardener's "Priority Classes"
// docs/development/priority-classes.md), and one replica each (Gardener's "High Availability Of
// Components" docs/development/high-availability-of-components.md).
func TestEveryPodHasPriorityClass100(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"ingress_domain": cty.StringVal("example.com")})
	workloads := map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "Prometheus": true, "Alertmanager": true}
	seen := map[string]bool{}
	for _, o := range objs {
		u := o.Object
		if !workloads[u.GetKind()] {
			continue
		}
		seen[u.GetKind()+"/"+u.GetName()] = true
		path := []string{"spec", "template", "spec", "priorityClassName"}
		if u.GetAPIVersion() == "monitoring.coreos.com/v1" {
			path = []string{"spec", "priorityClassName"}
		}
		assert.Equal(t, "gardener-garden-system-100", str(t, u, path...), u.GetName())
		n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
		want := 1
		if u.GetName() == "kube-state-metrics-runtime" {
			want = 2 // as in a seed (NewKubeStateMetrics in pkg/component/shared/kubestatemetrics.go)
		}
		assert.EqualValues(t, want, n, u.GetName())
		assert.Equal(t, "garden", u.GetNamespace(), u.GetName())
	}
	assert.Equal(t, map[string]bool{
		"Deployment/prometheus-operator": true, "Deployment/kube-state-metrics-runtime": true, "Deployment/plutono": true,
		"StatefulSet/vali": true, "Prometheus/garden": true, "Prometheus/longterm": true, "Alertmanager/garden": true,
	}, seen)
}

// TestSelectorsUseTheDocumentedLabels checks that the instances pick up the objects operators
// label as documented: prometheus=garden, prometheus=longterm (Gardener's "Gardener Operator"
// docs/concepts/operator.md), alertmanager=garden (Gardener's docs/concepts/operator.md), and that
// each Prometheus scrapes every minute (pkg/component/observability/monitoring/prometheus/prometheus.go).
func TestSelectorsUseTheDocumentedLabels(t *testing.T) {
	objs := render1(t, nil)
	for name, label := range map[string]string{"garden": "garden", "longterm": "longterm"} {
		p := rendertest.Find(objs, "Prometheus", name)
		require.NotNil(t, p, name)
		for _, sel := range []string{"serviceMonitorSelector", "podMonitorSelector", "ruleSelector", "scrapeConfigSelector"} {
			got, _, _ := unstructured.NestedStringMap(p.Object, "spec", sel, "matchLabels")
			assert.Equal(t, map[string]string{"prometheus": label}, got, name+" "+sel)
		}
		assert.Equal(t, "1m", str(t, p, "spec", "scrapeInterval"), name)
	}
	am := rendertest.Find(objs, "Alertmanager", "garden")
	got, _, _ := unstructured.NestedStringMap(am.Object, "spec", "alertmanagerConfigSelector", "matchLabels")
	assert.Equal(t, map[string]string{"alertmanager": "garden"}, got)

	ams, _, _ := unstructured.NestedSlice(rendertest.Find(objs, "Prometheus", "garden").Object, "spec", "alerting", "alertmanagers")
	require.Len(t, ams, 1)
	assert.Equal(t, "alertmanager-garden", ams[0].(map[string]any)["name"])
	assert.NotNil(t, rendertest.Find(objs, "Service", "alertmanager-garden"))

	ksm := rendertest.Find(objs, "ScrapeConfig", "garden-kube-state-metrics")
	require.NotNil(t, ksm)
	assert.Equal(t, "garden", ksm.GetLabels()["prometheus"])
	svc := rendertest.Find(objs, "Service", "kube-state-metrics-runtime")
	require.NotNil(t, svc)
	assert.Equal(t, "kube-state-metrics-runtime", svc.GetLabels()["component"], "the ScrapeConfig keeps the Service by its component label")

	fed := rendertest.Find(objs, "ScrapeConfig", "longterm-prometheus-garden")
	require.NotNil(t, fed)
	assert.Equal(t, "longterm", fed.GetLabels()["prometheus"])
	assert.Equal(t, "/federate", str(t, fed, "spec", "metricsPath"))
}

// TestDashboards checks Plutono's provisioning: the sidecar picks the ConfigMaps labelled
// dashboard.monitoring.gardener.cloud/garden=true (Gardener's docs/concepts/operator.md) and the
// datasources are the Garden Prometheus and Vali with the documented settings (Gardener's "Logging"
// docs/usage/observability/logging.md).
func TestDashboards(t *testing.T) {
	objs := render1(t, nil)
	d := rendertest.Find(objs, "Deployment", "plutono")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	require.Len(t, containers, 2)
	env := map[string]string{}
	for _, e := range containers[1].(map[string]any)["env"].([]any) {
		env[e.(map[string]any)["name"].(string)] = e.(map[string]any)["value"].(string)
	}
	assert.Equal(t, "dashboard.monitoring.gardener.cloud/garden", env["LABEL"])
	assert.Equal(t, "true", env["LABEL_VALUE"])
	assert.Equal(t, "garden", env["NAMESPACE"])

	var ds struct {
		Datasources []struct {
			Name, Type, URL string
			JSONData        map[string]any `json:"jsonData"`
		}
	}
	cm := findVersion(objs, "ConfigMap", "plutono-datasources")
	require.NoError(t, yaml.Unmarshal([]byte(str(t, cm, "data", "datasources.yaml")), &ds))
	require.Len(t, ds.Datasources, 3)
	assert.Equal(t, "prometheus", ds.Datasources[0].Name)
	assert.Equal(t, "http://prometheus-garden:80", ds.Datasources[0].URL)
	assert.Equal(t, "prometheus-longterm", ds.Datasources[1].Name)
	assert.Equal(t, "vali", ds.Datasources[2].Type)
	assert.Equal(t, "http://logging.garden.svc:3100", ds.Datasources[2].URL)
	assert.EqualValues(t, 5000, ds.Datasources[2].JSONData["maxLines"])
}

// TestValiRetention checks the retention of 360h for both the table manager and the chunk store
// (pkg/component/observability/logging/vali/templates/vali-config.yaml) and the Service name
// Plutono reaches Vali by (Gardener's docs/usage/observability/logging.md).
func TestValiRetention(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"vali_storage": cty.StringVal("30Gi")})
	var cfg struct {
		ChunkStore   map[string]any `json:"chunk_store_config"`
		TableManager map[string]any `json:"table_manager"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(str(t, findVersion(objs, "ConfigMap", "vali-config"), "data", "vali.yaml")), &cfg))
	assert.Equal(t, "360h", cfg.TableManager["retention_period"])
	assert.Equal(t, true, cfg.TableManager["retention_deletes_enabled"])
	assert.Equal(t, "360h", cfg.ChunkStore["max_look_back_period"])

	sts := rendertest.Find(objs, "StatefulSet", "vali")
	templates, _, _ := unstructured.NestedSlice(sts.Object, "spec", "volumeClaimTemplates")
	require.Len(t, templates, 1)
	size, _, _ := unstructured.NestedString(templates[0].(map[string]any), "spec", "resources", "requests", "storage")
	assert.Equal(t, "30Gi", size)
	assert.Empty(t, str(t, sts, "spec", "serviceName"), "Gardener names no governing Service")
	assert.NotNil(t, rendertest.Find(objs, "Service", "logging"))
}

func TestIngress(t *testing.T) {
	tests := []struct {
		name    string
		extra   map[string]cty.Value
		host    string
		secret  string
		url     string
		ingress bool
	}{
		{"no domain, no ingress", nil, "", "", "", false},
		{"domain", map[string]cty.Value{"ingress_domain": cty.StringVal("ingress.example.com")}, "plutono-garden.ingress.example.com", "", "https://plutono-garden.ingress.example.com", true},
		{"domain and certificate", map[string]cty.Value{"ingress_domain": cty.StringVal("example.com"), "ingress_tls_secret_name": cty.StringVal("wildcard")}, "plutono-garden.example.com", "wildcard", "https://plutono-garden.example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Type.RenderConfig(render.Input{Config: config(tt.extra)})
			require.NoError(t, err)
			assert.Equal(t, tt.url, out.Outputs["plutono_url"].AsString())
			ing := rendertest.Find(out.Objects, "Ingress", "plutono")
			if !tt.ingress {
				assert.Nil(t, ing)
				return
			}
			require.NotNil(t, ing)
			assert.Equal(t, "nginx-ingress-gardener", str(t, ing, "spec", "ingressClassName"))
			rules, _, _ := unstructured.NestedSlice(ing.Object, "spec", "rules")
			require.Len(t, rules, 1)
			assert.Equal(t, tt.host, rules[0].(map[string]any)["host"])
			tls, _, _ := unstructured.NestedSlice(ing.Object, "spec", "tls")
			require.Len(t, tls, 1)
			secret, _, _ := unstructured.NestedString(tls[0].(map[string]any), "secretName")
			assert.Equal(t, tt.secret, secret)
		})
	}
}

func TestOptionalInstances(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"longterm": cty.False, "alerting": cty.False})
	assert.NotNil(t, rendertest.Find(objs, "Prometheus", "garden"))
	for _, kind := range []struct{ kind, name string }{
		{"Prometheus", "longterm"}, {"ScrapeConfig", "longterm-prometheus-garden"}, {"Service", "prometheus-longterm"},
		{"ServiceAccount", "prometheus-longterm"}, {"Alertmanager", "garden"}, {"Service", "alertmanager-garden"},
	} {
		assert.Nil(t, rendertest.Find(objs, kind.kind, kind.name), kind)
	}
	_, found, _ := unstructured.NestedFieldNoCopy(rendertest.Find(objs, "Prometheus", "garden").Object, "spec", "alerting")
	assert.False(t, found, "no Alertmanager to send alerts to")
}

func TestImages(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{
		"prometheus":         cty.StringVal("mirror.example.com/prometheus:v3.5.0"),
		"kube-state-metrics": cty.StringVal("v2.16.0"),
	})})
	assert.Equal(t, "mirror.example.com/prometheus:v3.5.0", str(t, rendertest.Find(objs, "Prometheus", "garden"), "spec", "image"))
	containers, _, _ := unstructured.NestedSlice(rendertest.Find(objs, "Deployment", "kube-state-metrics-runtime").Object, "spec", "template", "spec", "containers")
	assert.Equal(t, "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.16.0", containers[0].(map[string]any)["image"])
	containers, _, _ = unstructured.NestedSlice(rendertest.Find(objs, "Deployment", "prometheus-operator").Object, "spec", "template", "spec", "containers")
	assert.Contains(t, containers[0].(map[string]any)["args"], "--prometheus-config-reloader=quay.io/prometheus-operator/prometheus-config-reloader:v0.82.2")
	assert.Equal(t, []string{"alertmanager", "kube-state-metrics", "plutono", "plutono-dashboard-refresher", "prometheus", "prometheus-config-reloader", "prometheus-operator", "vali"}, ImageNames())
}

func TestDeploymentsSelectTheirPods(t *testing.T) {
	for _, o := range render1(t, nil) {
		u := o.Object
		if u.GetKind() != "Deployment" && u.GetKind() != "StatefulSet" {
			continue
		}
		sel, _, _ := unstructured.NestedStringMap(u.Object, "spec", "selector", "matchLabels")
		labels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
		for k, v := range sel {
			assert.Equal(t, v, labels[k], u.GetName())
		}
	}
}

func TestObjectsWithTheDefaults(t *testing.T) {
	objs, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}}))
	require.NoError(t, err)
	p := rendertest.Find(objs, "Prometheus", "longterm")
	require.NotNil(t, p, "longterm defaults to on")
	assert.Equal(t, "garden", p.GetNamespace())
	assert.Equal(t, "8192MiB", str(t, p, "spec", "retentionSize"), "80% of 10Gi")
	assert.NotNil(t, rendertest.Find(objs, "Alertmanager", "garden"), "alerting defaults to on")
	for _, o := range objs {
		assert.Equal(t, "runtime", o.Cluster)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		config cty.Value
		want   string
	}{
		{"unknown image", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"grafana": cty.StringVal("1.0")})}), `image "grafana" is not in the image vector`},
		{"image without tag", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"vali": cty.StringVal("mirror.example.com/vali")})}), "has no tag"},
		{"bad prometheus storage", config(map[string]cty.Value{"prometheus_storage": cty.StringVal("ten gigs")}), "prometheus storage"},
		{"zero vali storage", config(map[string]cty.Value{"vali_storage": cty.StringVal("0")}), "vali storage \"0\" is not positive"},
		{"unknown attribute", cty.ObjectVal(map[string]cty.Value{"replicas": cty.NumberIntVal(3)}), "unknown field"},
		{"no cluster", cty.ObjectVal(map[string]cty.Value{"namespace": cty.StringVal("garden")}), "cluster is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Config: tt.config})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
