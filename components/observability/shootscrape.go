package observability

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/kube"
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
		serviceMonitorSelecting(ns, ShootPrometheusName, kubecontrollermanager.Name(""), kubecontrollermanager.SelectorLabels(""), https("metrics", selfSigned)),
		serviceMonitorSelecting(ns, ShootPrometheusName, kubescheduler.Name, kubescheduler.SelectorLabels(), https("metrics", selfSigned)),
		serviceMonitorSelecting(ns, ShootPrometheusName, machinecontrollermanager.Name, machinecontrollermanager.SelectorLabels(), map[string]any{"port": "metrics"}),
		serviceMonitorSelecting(ns, ShootPrometheusName, clusterautoscaler.Name, clusterautoscaler.SelectorLabels(), map[string]any{"port": "metrics"}),
		serviceMonitor(ns, ShootPrometheusName, KubeStateMetricsName, ksmEndpoint()),
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
	labels := map[string]string{partOf: "observability", PrometheusLabel: ShootPrometheusName}
	return customResource("monitoring.coreos.com/v1", "PodMonitor", v.Namespace, ShootPrometheusName+"-"+etcd.Name("", role), labels, spec)
}

// secretKey is a SecretOrConfigMap of prometheus-operator's TLS configuration.
func secretKey(name, key string) map[string]any {
	return map[string]any{"secret": map[string]any{"name": name, "key": key}}
}

// apiServerProbe has blackbox-exporter probe the API server's health through its Service and,
// with a host, through its external domain, the seed's view of the connectivity (Gardener's
// "Connectivity" docs/monitoring/connectivity.md).
func apiServerProbe(v ShootValues) *unstructured.Unstructured {
	targets := []any{"https://" + kubeapiserver.ServiceName("") + "/healthz"}
	if v.APIServerHost != "" {
		targets = append(targets, "https://"+v.APIServerHost+"/healthz")
	}
	spec := map[string]any{
		"jobName": "blackbox-apiserver",
		"module":  blackboxAPIServerModule,
		"prober":  map[string]any{"url": fmt.Sprintf("%s.%s.svc:%d", BlackboxExporterName, v.Namespace, blackboxPort)},
		"targets": map[string]any{"staticConfig": map[string]any{"static": targets}},
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: ShootPrometheusName}
	return customResource("monitoring.coreos.com/v1", "Probe", v.Namespace, ShootPrometheusName+"-"+kubeapiserver.Name(""), labels, spec)
}

// eventRules read events, the event-logger's permissions in the seed and in the shoot.
var eventRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: read},
}

// shootRBAC is the ManagedResource with the permissions in the shoot of the ServiceAccounts
// the token-requestor Secrets stand for (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md): prometheus-shoot reads what it scrapes and /metrics,
// kube-state-metrics what it exports, the event-logger events.
func shootRBAC(v ShootValues) ([]render.Object, error) {
	typed := clusterRole("prometheus-"+ShootPrometheusName, metav1.NamespaceSystem, prometheusRules)
	typed = append(typed, clusterRole(KubeStateMetricsName, metav1.NamespaceSystem, ksmRules)...)
	if v.LoggingEnabled {
		typed = append(typed, clusterRole(EventLoggerName, metav1.NamespaceSystem, eventRules)...)
	}
	objs, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	return managedresource.Pack(managedresource.Spec{Cluster: v.Cluster.Name, Namespace: v.Namespace, Name: ShootRBACName, Objects: objs})
}
