package observability

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/kubecontrollermanager"
	"github.com/declarative-gardener/gardener/components/kubescheduler"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The shoot's etcds, which the shoot Prometheus scrapes on their client port.
var etcdRoles = []string{etcd.RoleMain, etcd.RoleEvents}

const etcdClientPort = etcd.ClientPort

func etcdClientService(role string) string { return etcd.ClientServiceName("", role) }

// scrapeTargets are the monitoring objects labelled prometheus=shoot and named
// shoot-<component> like the documented examples (Gardener's "Logging And Monitoring"
// docs/extensions/logging-and-monitoring.md) that have the shoot Prometheus scrape the control
// plane (Gardener's "Alerting" docs/monitoring/alerting.md). The API server,
// kube-controller-manager and kube-scheduler delegate authentication and authorization to the
// shoot's API server, so the Prometheus presents the token of shoot-access-prometheus-shoot
// (Gardener's docs/extensions/logging-and-monitoring.md); the API server's certificate is verified
// against the shoot's CA. kube-controller-manager and kube-scheduler serve self-signed
// certificates, which cannot be verified. etcd wants a client certificate.
// machine-controller-manager and cluster-autoscaler serve plain HTTP. Monitors of components a
// shoot does not run (a workerless shoot's scheduler, an autoscaler without autoscaled pools)
// select nothing.
func scrapeTargets(v ShootValues) []*unstructured.Unstructured {
	token := map[string]any{"credentials": map[string]any{"name": ShootAccessPrometheusSecret, "key": "token"}}
	selfSigned := map[string]any{"insecureSkipVerify": true}
	https := func(port string, tls map[string]any) map[string]any {
		return map[string]any{"port": port, "scheme": "https", "tlsConfig": tls, "authorization": token}
	}
	ns := v.Namespace
	out := []*unstructured.Unstructured{
		serviceMonitorSelecting(ns, ShootPrometheusName, kubeapiserver.Name(""), kubeapiserver.SelectorLabels(), https("kube-apiserver", map[string]any{
			"ca":         secretKey(v.CASecretName, "ca.crt"),
			"serverName": kubeapiserver.ServiceName(""),
		})),
		serviceMonitorSelecting(ns, ShootPrometheusName, kubecontrollermanager.Name(""), kubecontrollermanager.SelectorLabels(), https("metrics", selfSigned)),
		serviceMonitorSelecting(ns, ShootPrometheusName, kubescheduler.Name, kubescheduler.SelectorLabels(), https("metrics", selfSigned)),
		serviceMonitorSelecting(ns, ShootPrometheusName, machinecontrollermanager.Name, machinecontrollermanager.SelectorLabels(), map[string]any{"port": "metrics"}),
		serviceMonitorSelecting(ns, ShootPrometheusName, clusterautoscaler.Name, clusterautoscaler.SelectorLabels(), map[string]any{"port": "metrics"}),
	}
	for _, role := range etcdRoles {
		out = append(out, etcdMonitor(v, role))
	}
	return out
}

// etcdMonitor scrapes one etcd's members on the client port, which serves their metrics
// (components/etcd sets metrics: extensive for main, basic for events). The client Service is etcd-druid's, whose labels the
// documents do not give, so a PodMonitor selects the pods by the labels the Etcd resource
// gives them; the port is selected by number, as druid's port names are not documented either.
func etcdMonitor(v ShootValues, role string) *unstructured.Unstructured {
	spec := map[string]any{
		"selector": map[string]any{"matchLabels": kube.AnyMap(etcd.SelectorLabels(role))},
		"podMetricsEndpoints": []any{map[string]any{
			"targetPort": int64(etcdClientPort),
			"scheme":     "https",
			"tlsConfig": map[string]any{
				"ca":         secretKey(v.EtcdCASecretName, "ca.crt"),
				"cert":       secretKey(v.EtcdClientSecretName, "tls.crt"),
				"keySecret":  map[string]any{"name": v.EtcdClientSecretName, "key": "tls.key"},
				"serverName": etcdClientService(role),
			},
		}},
	}
	return customResource("monitoring.coreos.com/v1", "PodMonitor", v.Namespace, ShootPrometheusName+"-"+etcd.Name("", role), prometheusSelector(ShootPrometheusName), spec)
}

// secretKey is a SecretOrConfigMap of prometheus-operator's TLS configuration.
func secretKey(name, key string) map[string]any {
	return map[string]any{"secret": map[string]any{"name": name, "key": key}}
}

// shootRBAC are the ManagedResources with the permissions in the shoot of the ServiceAccounts the
// token-requestor Secrets stand for, applied by the shoot's gardener-resource-manager:
// prometheus-shoot-target for prometheus-shoot, which reads what it scrapes and /metrics
// (clusterRoleTarget in prometheus/rbac.go), shoot-core-kube-state-metrics-target for
// kube-state-metrics (getResourcesForShootTarget in kubestatemetrics/kubestatemetrics.go) and,
// with logging, shoot-event-logger for the event-logger (reconcileRBACForShoot in
// eventlogger/event_logger.go).
func shootRBAC(v ShootValues) ([]render.Object, error) {
	promRole := "gardener.cloud:monitoring:prometheus-" + ShootPrometheusName
	ksm := kubeStateMetrics{access: &shootaccess.Access{Component: KubeStateMetricsName}}
	groups := []struct {
		name string
		objs []runtime.Object
	}{
		{"prometheus-" + ShootPrometheusName + "-target", []runtime.Object{
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: promRole}, Rules: []rbacv1.PolicyRule{
				{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
				{APIGroups: []string{""}, Resources: []string{"nodes", "services", "endpoints", "pods"}, Verbs: read},
				{APIGroups: []string{""}, Resources: []string{"nodes/metrics", "pods/log", "nodes/proxy", "services/proxy", "pods/proxy"}, Verbs: []string{"get"}},
			}},
			clusterRoleBinding(promRole, nil, promRole, "prometheus-"+ShootPrometheusName, metav1.NamespaceSystem),
		}},
		{"shoot-core-" + KubeStateMetricsName + "-target", ksm.clusterRole(KubeStateMetricsName, metav1.NamespaceSystem)},
	}
	if v.LoggingEnabled {
		labels := eventLoggerLabels()
		groups = append(groups, struct {
			name string
			objs []runtime.Object
		}{"shoot-" + EventLoggerName, []runtime.Object{
			&rbacv1.ClusterRole{ObjectMeta: meta(EventLoggerName, "", labels), Rules: eventRules},
			clusterRoleBinding("gardener.cloud:logging:"+EventLoggerName, labels, EventLoggerName, EventLoggerName, metav1.NamespaceSystem),
		}})
	}
	var out []render.Object
	for _, g := range groups {
		objs, err := kube.All(g.objs...)
		if err != nil {
			return nil, err
		}
		packed, err := managedresource.Pack(managedresource.Spec{Cluster: v.Cluster.Name, Namespace: v.Namespace, Name: g.name, Objects: objs})
		if err != nil {
			return nil, err
		}
		for _, o := range packed {
			if o.Object.GetKind() == "ManagedResource" {
				o.Object.SetLabels(merge(o.Object.GetLabels(), map[string]string{"origin": "gardener", "care.gardener.cloud/condition-type": "ObservabilityComponentsHealthy"}))
			}
		}
		out = append(out, packed...)
	}
	return out, nil
}

// serviceMonitorSelecting has the Prometheus labelled label scrape the endpoints of the Services
// selector selects in namespace. It is named and labelled as Gardener names its monitoring
// objects, <label>-<name> with prometheus=<label> (ConfigObjectMeta in
// pkg/component/observability/monitoring/utils/utils.go).
func serviceMonitorSelecting(namespace, label, name string, selector map[string]string, endpoints ...map[string]any) *unstructured.Unstructured {
	eps := make([]any, len(endpoints))
	for i, e := range endpoints {
		eps[i] = e
	}
	spec := map[string]any{
		"selector":  map[string]any{"matchLabels": kube.AnyMap(selector)},
		"endpoints": eps,
	}
	return customResource("monitoring.coreos.com/v1", "ServiceMonitor", namespace, label+"-"+name, prometheusSelector(label), spec)
}
