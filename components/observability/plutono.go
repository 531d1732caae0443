package observability

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/nginxingress"
)

// Names of Plutono's objects (S4:12923: "A Plutono instance is deployed by gardener-operator
// into the garden namespace").
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

// plutonoObjects renders Plutono: its provisioning ConfigMaps, the ServiceAccount and Role of
// the dashboard sidecar, the Deployment, the Service and, with an ingress domain, the Ingress.
func plutonoObjects(v Values, img map[string]string) ([]runtime.Object, error) {
	datasources, err := yaml.Marshal(datasourcesConfig(v.Namespace))
	if err != nil {
		return nil, fmt.Errorf("plutono datasources: %w", err)
	}
	providers, err := yaml.Marshal(dashboardProviders())
	if err != nil {
		return nil, fmt.Errorf("plutono dashboard providers: %w", err)
	}
	out := []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: meta(plutonoDatasources, v.Namespace, PlutonoName), Data: map[string]string{"datasources.yaml": string(datasources)}},
		&corev1.ConfigMap{ObjectMeta: meta(plutonoDashboardProviders, v.Namespace, PlutonoName), Data: map[string]string{"providers.yaml": string(providers)}},
		&corev1.ServiceAccount{ObjectMeta: meta(PlutonoName, v.Namespace, ""), AutomountServiceAccountToken: ptr.To(true)},
		&rbacv1.Role{
			ObjectMeta: meta(PlutonoName+"-"+plutonoDashboardRefresher, v.Namespace, ""),
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: read}},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: meta(PlutonoName+"-"+plutonoDashboardRefresher, v.Namespace, ""),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: PlutonoName + "-" + plutonoDashboardRefresher},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: PlutonoName, Namespace: v.Namespace}},
		},
		plutonoDeployment(v, img),
		service(PlutonoName, v.Namespace, PlutonoName, appLabels(PlutonoName), "web", 80, intstr.FromString("web")),
	}
	if v.IngressDomain != "" {
		out = append(out, plutonoIngress(v))
	}
	return out, nil
}

// datasourcesConfig provisions the Garden Prometheus and Vali as Plutono's datasources. Vali's
// entry follows the documented one: proxy access, the logging Service on port 3100 and at most
// 5000 lines (S4:21899-21912).
func datasourcesConfig(namespace string) map[string]any {
	return map[string]any{
		"apiVersion": 1,
		"datasources": []any{
			map[string]any{
				"name":      PrometheusDatasource,
				"type":      "prometheus",
				"access":    "proxy",
				"url":       fmt.Sprintf("http://%s.%s.svc:%d", GardenPrometheusService, namespace, prometheusWeb),
				"isDefault": true,
				"editable":  false,
				"jsonData":  map[string]any{"timeInterval": ScrapeInterval},
			},
			map[string]any{
				"name":     ValiDatasource,
				"type":     "vali",
				"access":   "proxy",
				"url":      fmt.Sprintf("http://%s.%s.svc:%d", ValiServiceName, namespace, valiPort),
				"editable": false,
				"jsonData": map[string]any{"maxLines": 5000},
			},
		},
	}
}

// dashboardProviders has Plutono load every dashboard the sidecar writes into its dashboard
// directory, one file per key of each ConfigMap labelled
// dashboard.monitoring.gardener.cloud/garden=true (S4:12923-12935).
func dashboardProviders() map[string]any {
	return map[string]any{
		"apiVersion": 1,
		"providers": []any{map[string]any{
			"name":                  "garden",
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
// Plutono allows no anonymous access: the admin password comes from PlutonoAdminSecretName.
func plutonoDeployment(v Values, img map[string]string) *appsv1.Deployment {
	labels := appLabels(PlutonoName)
	env := []corev1.EnvVar{
		{Name: "PL_AUTH_ANONYMOUS_ENABLED", Value: "false"},
		{Name: "PL_USERS_ALLOW_SIGN_UP", Value: "false"},
		{Name: "PL_SECURITY_ADMIN_USER", Value: "admin"},
		{Name: "PL_SECURITY_ADMIN_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: v.PlutonoAdminSecretName},
			Key:                  "password",
		}}},
		{Name: "PL_ANALYTICS_REPORTING_ENABLED", Value: "false"},
		{Name: "PL_ANALYTICS_CHECK_FOR_UPDATES", Value: "false"},
		{Name: "PL_PATHS_DATA", Value: plutonoData},
		{Name: "PL_PATHS_PROVISIONING", Value: plutonoProvisioning},
	}
	if v.IngressDomain != "" {
		env = append(env, corev1.EnvVar{Name: "PL_SERVER_ROOT_URL", Value: PlutonoURL(v.IngressDomain)})
	}
	dashboards := corev1.VolumeMount{Name: "dashboards", MountPath: plutonoDashboards}
	pod := corev1.PodSpec{
		ServiceAccountName: PlutonoName,
		PriorityClassName:  PriorityClass,
		SecurityContext:    podSecurity(plutonoUser),
		Containers: []corev1.Container{
			{
				Name:            PlutonoName,
				Image:           img[ImagePlutono],
				ImagePullPolicy: corev1.PullIfNotPresent,
				Env:             env,
				Ports:           []corev1.ContainerPort{{Name: "web", ContainerPort: plutonoPort, Protocol: corev1.ProtocolTCP}},
				Resources:       requests("10m", "50Mi"),
				SecurityContext: containerSecurity(false),
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
					HTTPGet: &corev1.HTTPGetAction{Path: "/api/health", Port: intstr.FromString("web")},
				}},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "storage", MountPath: plutonoData},
					dashboards,
					{Name: "datasources", MountPath: plutonoProvisioning + "/datasources", ReadOnly: true},
					{Name: "dashboard-providers", MountPath: plutonoProvisioning + "/dashboards", ReadOnly: true},
				},
			},
			{
				Name:            plutonoDashboardRefresher,
				Image:           img[ImagePlutonoDashboardRefresher],
				ImagePullPolicy: corev1.PullIfNotPresent,
				Env: []corev1.EnvVar{
					{Name: "LABEL", Value: DashboardLabel},
					{Name: "LABEL_VALUE", Value: DashboardLabelValue},
					{Name: "FOLDER", Value: plutonoDashboards},
					{Name: "RESOURCE", Value: "configmap"},
					{Name: "NAMESPACE", Value: v.Namespace},
					{Name: "METHOD", Value: "WATCH"},
				},
				Resources:       requests("5m", "50Mi"),
				SecurityContext: containerSecurity(true),
				VolumeMounts:    []corev1.VolumeMount{dashboards},
			},
		},
		Volumes: []corev1.Volume{
			{Name: "storage", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "dashboards", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "datasources", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: plutonoDatasources}}}},
			{Name: "dashboard-providers", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: plutonoDashboardProviders}}}},
		},
	}
	return &appsv1.Deployment{
		ObjectMeta: meta(PlutonoName, v.Namespace, PlutonoName),
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}
}

// plutonoIngress publishes Plutono as plutono-garden.<ingress domain> through Gardener's
// nginx-ingress controller, with TLS: the named certificate, or the controller's default.
func plutonoIngress(v Values) *networkingv1.Ingress {
	host := plutonoHost(v.IngressDomain)
	return &networkingv1.Ingress{
		ObjectMeta: meta(PlutonoName, v.Namespace, PlutonoName),
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr.To(nginxingress.DefaultIngressClass),
			TLS:              []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: v.IngressTLSSecretName}},
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path:     "/",
						PathType: ptr.To(networkingv1.PathTypePrefix),
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: PlutonoName,
							Port: networkingv1.ServiceBackendPort{Name: "web"},
						}},
					}},
				}},
			}},
		},
	}
}
