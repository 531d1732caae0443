package observability

import (
	"fmt"
	"maps"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Names of Plutono's objects (Gardener's "Gardener Operator" docs/concepts/operator.md: "A Plutono
// instance is deployed by gardener-operator into the garden namespace").
const (
	PlutonoName = "plutono"
	// PlutonoHostPrefix is the first label of Plutono's host under the ingress domain.
	PlutonoHostPrefix               = "plutono-garden"
	plutonoDatasources              = "plutono-datasources"
	plutonoDashboardProviders       = "plutono-dashboard-providers"
	plutonoDashboardRefresher       = "dashboard-refresher"
	plutonoPort                     = 3000
	plutonoUser               int64 = 472 // the user of the Plutono image
	plutonoData                     = "/var/lib/plutono"
	plutonoDashboards               = plutonoData + "/dashboards"
	plutonoProvisioning             = "/etc/plutono/provisioning"
)

// ValiDatasource and PrometheusDatasource name Plutono's datasources.
const (
	PrometheusDatasource = GardenPrometheusService
	ValiDatasource       = "vali"
)

func plutonoHost(domain string) string { return PlutonoHostPrefix + "." + domain }

// dashboardLabel is the key of the label of the ConfigMaps a Plutono loads as dashboards:
// dashboard.monitoring.gardener.cloud/<role> for role garden, seed or shoot (Gardener's
// docs/concepts/operator.md, "Logging And Monitoring" docs/extensions/logging-and-monitoring.md).
func dashboardLabel(role string) string { return "dashboard.monitoring.gardener.cloud/" + role }

// plutonoSpec is what sets one stack's Plutono apart from another's.
type plutonoSpec struct {
	// role is garden, seed or shoot: the dashboard provider's name and the dashboard label's
	// last segment.
	role string
	// prometheus are the Services of the Prometheus datasources, the first the default.
	prometheus []string
	// vali provisions Vali's Service as a datasource.
	vali bool
	// host is the Ingress host; "" renders no Ingress.
	host, tlsSecret string
	// adminSecret names the Secret with the admin password (key password).
	adminSecret string
	// datasourceLabels are the network labels that let Plutono reach its datasources.
	datasourceLabels map[string]string
}

// url is where users reach Plutono; "" without an Ingress.
func (p plutonoSpec) url() string {
	if p.host == "" {
		return ""
	}
	return "https://" + p.host
}

// plutonoObjects renders Plutono: its provisioning ConfigMaps, the ServiceAccount and Role of
// the dashboard sidecar, the Deployment, the Service and, with a host, the Ingress.
func plutonoObjects(s stack, p plutonoSpec) ([]runtime.Object, error) {
	datasources, err := yaml.Marshal(datasourcesConfig(s.namespace, p))
	if err != nil {
		return nil, fmt.Errorf("plutono datasources: %w", err)
	}
	providers, err := yaml.Marshal(dashboardProviders(p.role))
	if err != nil {
		return nil, fmt.Errorf("plutono dashboard providers: %w", err)
	}
	out := []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: meta(plutonoDatasources, s.namespace, PlutonoName), Data: map[string]string{"datasources.yaml": string(datasources)}},
		&corev1.ConfigMap{ObjectMeta: meta(plutonoDashboardProviders, s.namespace, PlutonoName), Data: map[string]string{"providers.yaml": string(providers)}},
		&corev1.ServiceAccount{ObjectMeta: meta(PlutonoName, s.namespace, ""), AutomountServiceAccountToken: ptr.To(true)},
	}
	out = append(out, role(PlutonoName+"-"+plutonoDashboardRefresher, s.namespace, PlutonoName,
		[]rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: read}})...)
	out = append(out,
		plutonoDeployment(s, p),
		service(PlutonoName, s.namespace, PlutonoName, appLabels(PlutonoName), "web", 80, intstr.FromString("web")),
	)
	if p.host != "" {
		out = append(out, ingress(s.namespace, PlutonoName, PlutonoName, p.host, p.tlsSecret, ""))
	}
	return out, nil
}

// datasourcesConfig provisions the Prometheus instances and Vali as Plutono's datasources.
// Vali's entry follows the documented one: proxy access, the logging Service on port 3100 and
// at most 5000 lines (Gardener's "Logging" docs/usage/observability/logging.md).
func datasourcesConfig(namespace string, p plutonoSpec) map[string]any {
	var sources []any
	for i, svc := range p.prometheus {
		sources = append(sources, map[string]any{
			"name":      svc,
			"type":      "prometheus",
			"access":    "proxy",
			"url":       fmt.Sprintf("http://%s.%s.svc:%d", svc, namespace, prometheusWeb),
			"isDefault": i == 0,
			"editable":  false,
			"jsonData":  map[string]any{"timeInterval": ScrapeInterval},
		})
	}
	if p.vali {
		sources = append(sources, map[string]any{
			"name":     ValiDatasource,
			"type":     "vali",
			"access":   "proxy",
			"url":      fmt.Sprintf("http://%s.%s.svc:%d", ValiServiceName, namespace, valiPort),
			"editable": false,
			"jsonData": map[string]any{"maxLines": 5000},
		})
	}
	return map[string]any{"apiVersion": 1, "datasources": sources}
}

// dashboardProviders has Plutono load every dashboard the sidecar writes into its dashboard
// directory, one file per key of each ConfigMap with the stack's dashboard label
// (Gardener's docs/concepts/operator.md).
func dashboardProviders(role string) map[string]any {
	return map[string]any{
		"apiVersion": 1,
		"providers": []any{map[string]any{
			"name":                  role,
			"orgId":                 1,
			"type":                  "file",
			"disableDeletion":       true,
			"allowUiUpdates":        false,
			"updateIntervalSeconds": 30,
			"options":               map[string]any{"path": plutonoDashboards},
		}},
	}
}

// plutonoDeployment runs Plutono and the dashboard sidecar, which watches the dashboard
// ConfigMaps in the namespace and writes their documents where the provider reads them.
// Plutono allows no anonymous access: the admin password comes from the admin Secret.
func plutonoDeployment(s stack, p plutonoSpec) *appsv1.Deployment {
	env := []corev1.EnvVar{
		{Name: "PL_AUTH_ANONYMOUS_ENABLED", Value: "false"},
		{Name: "PL_USERS_ALLOW_SIGN_UP", Value: "false"},
		{Name: "PL_SECURITY_ADMIN_USER", Value: "admin"},
		{Name: "PL_SECURITY_ADMIN_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: p.adminSecret},
			Key:                  "password",
		}}},
		{Name: "PL_ANALYTICS_REPORTING_ENABLED", Value: "false"},
		{Name: "PL_ANALYTICS_CHECK_FOR_UPDATES", Value: "false"},
		{Name: "PL_PATHS_DATA", Value: plutonoData},
		{Name: "PL_PATHS_PROVISIONING", Value: plutonoProvisioning},
	}
	if p.host != "" {
		env = append(env, corev1.EnvVar{Name: "PL_SERVER_ROOT_URL", Value: p.url()})
	}
	dashboards := corev1.VolumeMount{Name: "dashboards", MountPath: plutonoDashboards}
	plutono := s.container(PlutonoName, ImagePlutono, "10m", "50Mi")
	plutono.Env, plutono.Ports, plutono.ReadinessProbe = env, tcpPort("web", plutonoPort), httpProbe("/api/health", "web")
	plutono.SecurityContext = containerSecurity(false)
	plutono.VolumeMounts = []corev1.VolumeMount{
		{Name: "storage", MountPath: plutonoData},
		dashboards,
		{Name: "datasources", MountPath: plutonoProvisioning + "/datasources", ReadOnly: true},
		{Name: "dashboard-providers", MountPath: plutonoProvisioning + "/dashboards", ReadOnly: true},
	}
	refresher := s.container(plutonoDashboardRefresher, ImagePlutonoDashboardRefresher, "5m", "50Mi")
	refresher.VolumeMounts = []corev1.VolumeMount{dashboards}
	refresher.Env = []corev1.EnvVar{
		{Name: "LABEL", Value: dashboardLabel(p.role)},
		{Name: "LABEL_VALUE", Value: DashboardLabelValue},
		{Name: "FOLDER", Value: plutonoDashboards},
		{Name: "RESOURCE", Value: "configmap"},
		{Name: "NAMESPACE", Value: s.namespace},
		{Name: "METHOD", Value: "WATCH"},
	}
	pod := corev1.PodSpec{
		ServiceAccountName: PlutonoName,
		SecurityContext:    kube.NonRootPodOwningVolumes(plutonoUser),
		Containers: []corev1.Container{
			plutono,
			refresher,
		},
		Volumes: []corev1.Volume{
			{Name: "storage", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "dashboards", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "datasources", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: plutonoDatasources}}}},
			{Name: "dashboard-providers", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: plutonoDashboardProviders}}}},
		},
	}
	// The sidecar watches ConfigMaps through the runtime cluster's API server.
	network := map[string]string{toRuntimeAPIServer: allowed}
	maps.Copy(network, p.datasourceLabels)
	return s.deployment(PlutonoName, network, pod)
}
