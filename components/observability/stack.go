package observability

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/kubeapiserver"
)

// stack is one deployment of the observability stack: the garden runtime cluster's, a seed's or
// a shoot control plane's. The builders the three share take it instead of their Values, so
// that one builder serves all three.
type stack struct {
	namespace     string
	priorityClass string
	// replicas of every workload: 1 (Gardener's "High Availability Of Components"
	// docs/development/high-availability-of-components.md), 0 for a hibernated shoot.
	replicas int32
	// img are the image references by image name.
	img map[string]string
	// networkPolicies: the stack runs under Gardener's NetworkPolicies (seed and shoot
	// namespaces), so its pods carry the labels that open the paths they need: DNS for all
	// (Gardener's "Network Policies" docs/operations/network_policies.md) and the extra network labels
	// each builder names. The garden stack's pods carry none.
	networkPolicies bool
	// scrapeAlias is the alias of the Prometheus pods that scrape the stack's metrics Services,
	// which then carry networking.resources.gardener.cloud/from-<alias>-allowed-ports so that
	// gardener-resource-manager's NetworkPolicy controller lets those pods in (Gardener's
	// docs/operations/network_policies.md). "" leaves the Services alone (the garden stack).
	scrapeAlias string
}

// Network labels of Gardener's NetworkPolicies (Gardener's docs/operations/network_policies.md) and
// of gardener-resource-manager's NetworkPolicy controller (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md).
const (
	toDNS              = "networking.gardener.cloud/to-dns"
	toRuntimeAPIServer = "networking.gardener.cloud/to-runtime-apiserver"
	toPublicNetworks   = "networking.gardener.cloud/to-public-networks"
	allowed            = "allowed"
	namespaceSelectors = "networking.resources.gardener.cloud/namespace-selectors"
)

// toScrapeTargets is the pod label that lets a Prometheus reach every Service annotated for its
// alias (Gardener's docs/concepts/resource-manager.md).
func toScrapeTargets(alias string) string {
	return "networking.resources.gardener.cloud/to-" + alias
}

// labels are the labels of a workload's pods: its app label, which its controller and Service
// select, and under NetworkPolicies the DNS label and the extra network labels.
func (s stack) labels(app string, extra map[string]string) map[string]string {
	l := appLabels(app)
	if s.networkPolicies {
		l[toDNS] = allowed
		maps.Copy(l, extra)
	}
	return l
}

// deployment runs a pod as a Deployment named after its app label, with the stack's replicas
// and priority class; extra are pod labels besides the app label.
func (s stack) deployment(name string, extra map[string]string, pod corev1.PodSpec) *appsv1.Deployment {
	pod.PriorityClassName = s.priorityClass
	return &appsv1.Deployment{
		ObjectMeta: meta(name, s.namespace, name),
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(s.replicas),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: appLabels(name)},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: s.labels(name, extra)}, Spec: pod},
		},
	}
}

// scrapable annotates a metrics Service for the stack's scraping Prometheus; port is the
// container port the Service targets.
func (s stack) scrapable(svc *corev1.Service, port int32) *corev1.Service {
	if s.scrapeAlias == "" {
		return svc
	}
	k, v := kubeapiserver.ScrapeAnnotation(s.scrapeAlias, port)
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[k] = v
	return svc
}

// toShootAPIServer adds the network label of pods that talk to the shoot's API server through
// its Service in the control-plane namespace (Gardener's docs/concepts/resource-manager.md) to
// labels.
func toShootAPIServer(labels map[string]string) map[string]string {
	labels[kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port)] = allowed
	return labels
}

// container is a container of the stack running the image of the image name: pulled if not
// present, with resource requests, no privileges and a read-only root file system.
func (s stack) container(name, image, cpu, memory string) corev1.Container {
	return corev1.Container{
		Name:            name,
		Image:           s.img[image],
		ImagePullPolicy: corev1.PullIfNotPresent,
		Resources:       requests(cpu, memory),
		SecurityContext: containerSecurity(true),
	}
}

// tcpPort is a container's one named TCP port.
func tcpPort(name string, port int32) []corev1.ContainerPort {
	return []corev1.ContainerPort{{Name: name, ContainerPort: port, Protocol: corev1.ProtocolTCP}}
}

// defaultStack fills the seed's stack's defaults, which are the garden's (the schema's) but for
// Vali's volume: the volume sizes, Plutono's admin Secret and alerting on.
func defaultStack(prometheusStorage, valiStorage *string, valiDefault string, plutonoAdmin *string, alerting **bool) {
	defaultTo(prometheusStorage, DefaultPrometheusStorage)
	defaultTo(valiStorage, valiDefault)
	defaultTo(plutonoAdmin, DefaultPlutonoAdminSecretName)
	if *alerting == nil {
		*alerting = ptr.To(true)
	}
}

// defaultTo sets an empty string field to its default.
func defaultTo(field *string, value string) {
	if *field == "" {
		*field = value
	}
}
