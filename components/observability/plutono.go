package observability

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// Names of Plutono's objects (pkg/component/observability/plutono/plutono.go in gardener/gardener
// v1.120.0).
const (
	PlutonoName = "plutono"
	// PlutonoHostPrefix is the first label of the garden Plutono's host under the ingress domain.
	PlutonoHostPrefix         = "plutono-garden"
	plutonoDatasources        = "plutono-datasources"
	plutonoDashboardProviders = "plutono-dashboard-providers"
	plutonoDashboardRefresher = "dashboard-refresher"
	plutonoPort               = 3000
	plutonoData               = "/var/lib/plutono"
	plutonoDashboards         = plutonoData + "/dashboards"
	plutonoProvisioning       = "/etc/plutono/provisioning"
)

// ValiDatasource and PrometheusDatasource name Plutono's datasources.
const (
	PrometheusDatasource = "prometheus"
	ValiDatasource       = "vali"
)

func plutonoHost(domain string) string { return PlutonoHostPrefix + "." + domain }

// dashboardLabel is the key of the label of the ConfigMaps a Plutono loads as dashboards:
// dashboard.monitoring.gardener.cloud/<role> for role garden, seed or shoot (Gardener's
// docs/concepts/operator.md, "Logging And Monitoring" docs/extensions/logging-and-monitoring.md).
func dashboardLabel(role string) string { return "dashboard.monitoring.gardener.cloud/" + role }

// plutonoLabels label and select every object of Plutono.
func plutonoLabels() map[string]string { return map[string]string{labelComponent: PlutonoName} }

// plutonoSpec is what sets one stack's Plutono apart from another's.
type plutonoSpec struct {
	// role is garden, seed or shoot: the dashboard label's last segment.
	role string
	// host is the Ingress host; "" renders no Ingress.
	host, tlsSecret string
	// adminSecret names the Secret with the admin password (key password).
	adminSecret string
}

// url is where users reach Plutono; "" without an Ingress.
func (p plutonoSpec) url() string {
	if p.host == "" {
		return ""
	}
	return "https://" + p.host
}

// plutonoObjects renders Plutono: its provisioning ConfigMaps (content-addressed), the
// ServiceAccount and Role of the dashboard sidecar, the Deployment, the Service and, with a host,
// the Ingress.
func plutonoObjects(s stack, p plutonoSpec) []runtime.Object {
	labels := plutonoLabels()
	datasources := &corev1.ConfigMap{ObjectMeta: meta(plutonoDatasources, s.namespace, labels), Data: map[string]string{"datasources.yaml": datasourcesConfig(s, p)}}
	providers := &corev1.ConfigMap{ObjectMeta: meta(plutonoDashboardProviders, s.namespace, labels), Data: map[string]string{"default.yaml": dashboardProviders}}
	unique.ConfigMap(datasources)
	unique.ConfigMap(providers)
	refresher := PlutonoName + "-" + plutonoDashboardRefresher
	svc := service(PlutonoName, s.namespace, labels, labels, "web", plutonoPort, intstr.FromInt32(plutonoPort))
	if s.kind == seedStack {
		svc.Labels = merge(labels, map[string]string{labelRole: roleMonitoring})
	}
	out := []runtime.Object{
		datasources,
		providers,
		plutonoDeployment(s, p, datasources.Name, providers.Name),
		svc,
		serviceAccount(PlutonoName, s.namespace, labels),
		&rbacv1.Role{ObjectMeta: meta(refresher, s.namespace, labels), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: read}}},
		roleBinding(refresher, s.namespace, labels, refresher, PlutonoName),
	}
	if p.host != "" {
		ing := ingress(s.namespace, PlutonoName, nil, p.host, p.tlsSecret, "", intstr.FromInt32(plutonoPort))
		ing.Annotations = map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "location /api/admin/ {\n  return 403;\n}"}
		if s.kind == shootStack {
			ing.Labels = labels
		}
		out = append(out, ing)
	}
	return out
}

// datasourcesConfig is Plutono's datasource provisioning, text for text as Gardener writes it
// (getDataSource in plutono.go): the default Prometheus (the garden's, the seed's aggregate or the
// shoot's), the Long-term or the seed Prometheus besides, and Vali's logging Service.
func datasourcesConfig(s stack, p plutonoSpec) string {
	prometheus, maxLines := "shoot", "1000"
	switch s.kind {
	case gardenStack:
		prometheus, maxLines = "garden", "5000"
	case seedStack:
		prometheus, maxLines = "aggregate", "5000"
	}
	out := `apiVersion: 1

# list of datasources that should be deleted from the database
deleteDatasources:
- name: Graphite
  orgId: 1

# list of datasources to insert/update depending
# whats available in the database
datasources:
- name: prometheus
  type: prometheus
  access: proxy
  url: http://prometheus-` + prometheus + `:80
  basicAuth: false
  isDefault: true
  version: 1
  editable: false
  jsonData:
    timeInterval: 1m
`
	switch s.kind {
	case gardenStack:
		out += `- name: prometheus-longterm
  type: prometheus
  access: proxy
  url: http://prometheus-longterm:80
  basicAuth: false
  isDefault: false
  jsonData:
    timeInterval: 30s
  version: 1
  editable: false
`
	case seedStack:
		out += `- name: seed-prometheus
  type: prometheus
  access: proxy
  url: http://prometheus-seed:80
  basicAuth: false
  version: 1
  editable: false
  jsonData:
    timeInterval: 1m
`
	}
	return out + `- name: vali
  type: vali
  access: proxy
  url: http://` + ValiServiceName + `.` + s.namespace + `.svc:` + strconv.Itoa(valiPort) + `
  jsonData:
    maxLines: ` + maxLines + `
`
}

// dashboardProviders has Plutono load every dashboard the sidecar writes into its dashboard
// directory (getDashboardsProviders in plutono.go).
const dashboardProviders = `apiVersion: 1
providers:
- name: 'default'
  orgId: 1
  folder: ''
  type: file
  disableDeletion: false
  editable: false
  options:
    path: ` + plutonoDashboards

// plutonoPodLabels are the labels of Plutono's pods: the network paths to its datasources
// (getPodLabels in plutono.go).
func plutonoPodLabels(s stack) map[string]string {
	labels := merge(plutonoLabels(), map[string]string{
		labelObservabilityApp:                PlutonoName,
		toDNS:                                allowed,
		toRuntimeAPIServer:                   allowed,
		toService(ValiServiceName, valiPort): allowed,
	})
	switch s.kind {
	case gardenStack:
		labels[toService(GardenPrometheusService, prometheusPort)] = allowed
		labels[toService(LongtermPrometheusService, 9091)] = allowed
	case seedStack:
		labels[labelRole] = roleMonitoring
		labels[toService("prometheus-"+AggregatePrometheusName, prometheusPort)] = allowed
		labels[toService("prometheus-"+SeedPrometheusName, prometheusPort)] = allowed
	case shootStack:
		labels[labelGardenRole] = roleMonitoring
		labels[toService("prometheus-"+ShootPrometheusName, prometheusPort)] = allowed
	}
	return labels
}

// plutonoDeployment runs Plutono and the dashboard sidecar, which watches the dashboard
// ConfigMaps in the namespace and writes their documents where the provider reads them
// (getDeployment in plutono.go). Plutono allows no anonymous access: the admin password comes from
// the admin Secret.
func plutonoDeployment(s stack, p plutonoSpec, datasources, providers string) runtime.Object {
	env := []corev1.EnvVar{
		{Name: "PL_AUTH_ANONYMOUS_ENABLED", Value: "false"},
		{Name: "PL_USERS_ALLOW_SIGN_UP", Value: "false"},
		{Name: "PL_SECURITY_ADMIN_USER", Value: "admin"},
		{Name: "PL_SECURITY_ADMIN_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: p.adminSecret},
			Key:                  "password",
		}}},
		{Name: "PL_DATE_FORMATS_DEFAULT_TIMEZONE", Value: "UTC"},
		{Name: "PL_ALERTING_ENABLED", Value: "false"},
		{Name: "PL_SNAPSHOTS_EXTERNAL_ENABLED", Value: "false"},
	}
	if p.host != "" {
		env = append(env, corev1.EnvVar{Name: "PL_SERVER_ROOT_URL", Value: p.url()})
	}
	storage := corev1.VolumeMount{Name: "storage", MountPath: plutonoData}
	plutono := corev1.Container{
		Name:            PlutonoName,
		Image:           s.img[ImagePlutono],
		ImagePullPolicy: corev1.PullIfNotPresent,
		Env:             env,
		VolumeMounts: []corev1.VolumeMount{
			{Name: "datasources", MountPath: plutonoProvisioning + "/datasources"},
			{Name: "dashboard-providers", MountPath: plutonoProvisioning + "/dashboards"},
			storage,
		},
		Ports:           []corev1.ContainerPort{{Name: "web", ContainerPort: plutonoPort}},
		Resources:       requests("5m", "45Mi"),
		SecurityContext: noPrivilegeEscalation(),
	}
	refresher := corev1.Container{
		Name:            plutonoDashboardRefresher,
		Image:           s.img[ImagePlutonoDashboardRefresher],
		ImagePullPolicy: corev1.PullIfNotPresent,
		Env: []corev1.EnvVar{
			{Name: "LOG_LEVEL", Value: "INFO"},
			{Name: "RESOURCE", Value: "configmap"},
			{Name: "NAMESPACE", Value: s.namespace},
			{Name: "FOLDER", Value: plutonoDashboards},
			{Name: "LABEL", Value: dashboardLabel(p.role)},
			{Name: "LABEL_VALUE", Value: DashboardLabelValue},
			{Name: "METHOD", Value: "WATCH"},
		},
		VolumeMounts:    []corev1.VolumeMount{storage},
		Resources:       requests("5m", "85M"),
		SecurityContext: noPrivilegeEscalation(),
	}
	configMap := func(name string) corev1.VolumeSource {
		return corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	}
	pod := corev1.PodSpec{
		ServiceAccountName: PlutonoName,
		Containers:         []corev1.Container{plutono, refresher},
		Volumes: []corev1.Volume{
			{Name: "datasources", VolumeSource: configMap(datasources)},
			{Name: "dashboard-providers", VolumeSource: configMap(providers)},
			{Name: "storage", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("100Mi"))}}},
			{Name: "dashboards", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
	}
	labels := plutonoLabels()
	switch s.kind {
	case seedStack:
		labels[labelRole] = roleMonitoring
	case shootStack:
		labels[labelGardenRole] = roleMonitoring
	}
	d := s.deployment(PlutonoName, labels, plutonoLabels(), plutonoPodLabels(s), pod)
	unique.InjectReferences(d)
	return d
}
