package observability

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/kubeapiserver"
)

// stackKind is where a stack runs, Gardener's component.ClusterType with the garden runtime
// cluster apart: the components label, annotate and configure themselves by it.
type stackKind int

const (
	gardenStack stackKind = iota
	seedStack
	shootStack
)

// stack is one deployment of the observability stack: the garden runtime cluster's, a seed's or
// a shoot control plane's. The builders the three share take it instead of their Values, so
// that one builder serves all three.
type stack struct {
	kind          stackKind
	namespace     string
	priorityClass string
	// replicas of every workload: 1 (Gardener's "High Availability Of Components"
	// docs/development/high-availability-of-components.md), 0 for a hibernated shoot.
	replicas int32
	// img are the image references by image name.
	img map[string]string
}

// Network labels of Gardener's NetworkPolicies (Gardener's docs/operations/network_policies.md) and
// of gardener-resource-manager's NetworkPolicy controller (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md).
const (
	toDNS              = "networking.gardener.cloud/to-dns"
	toRuntimeAPIServer = "networking.gardener.cloud/to-runtime-apiserver"
	toPublicNetworks   = "networking.gardener.cloud/to-public-networks"
	toPrivateNetworks  = "networking.gardener.cloud/to-private-networks"
	allowed            = "allowed"
	namespaceSelectors = "networking.resources.gardener.cloud/namespace-selectors"
	// podLabelSelectorNamespaceAlias names the alias under which pods of other namespaces reach
	// a Service of a shoot namespace.
	podLabelSelectorNamespaceAlias = "networking.resources.gardener.cloud/pod-label-selector-namespace-alias"
)

// The aliases of the Prometheus pods that scrape annotated Services
// (pkg/apis/core/v1beta1/constants in gardener/gardener v1.120.0).
const (
	gardenScrapeTargets = "all-garden-scrape-targets"
	seedScrapeTargets   = "all-seed-scrape-targets"
	shootScrapeTargets  = "all-scrape-targets"
	// shootsAlias is the alias of the shoot namespaces.
	shootsAlias = "all-shoots"
)

// toScrapeTargets is the pod label that lets a Prometheus reach every Service annotated for its
// alias (Gardener's docs/concepts/resource-manager.md).
func toScrapeTargets(alias string) string {
	return "networking.resources.gardener.cloud/to-" + alias
}

// toService is the pod label that lets pods reach the TCP port of a Service (NetworkPolicyLabel in
// pkg/utils/gardener/networkpolicy.go).
func toService(service string, port int32) string {
	return fmt.Sprintf("networking.resources.gardener.cloud/to-%s-tcp-%d", service, port)
}

// scrapeAnnotation is the annotation by which a Service lets the Prometheus pods of alias in on
// ports, with the value as Gardener marshals its NetworkPolicyPorts.
func scrapeAnnotation(alias string, ports ...int32) (string, string) {
	entries := make([]string, len(ports))
	for i, p := range ports {
		entries[i] = fmt.Sprintf(`{"protocol":"TCP","port":%d}`, p)
	}
	return "networking.resources.gardener.cloud/from-" + alias + "-allowed-ports", "[" + strings.Join(entries, ",") + "]"
}

// annotate adds an annotation to a Service.
func annotate(svc *corev1.Service, key, value string) {
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[key] = value
}

// scrapableBy annotates a metrics Service for the Prometheus pods of the aliases.
func scrapableBy(svc *corev1.Service, ports []int32, aliases ...string) *corev1.Service {
	for _, alias := range aliases {
		k, v := scrapeAnnotation(alias, ports...)
		annotate(svc, k, v)
	}
	return svc
}

// scrapable annotates a metrics Service for the Prometheus that scrapes the stack's components:
// the garden's, the seed's or the shoot's (InjectNetworkPolicyAnnotationsFor*ScrapeTargets in
// pkg/utils/gardener/networkpolicy.go).
func (s stack) scrapable(svc *corev1.Service, ports ...int32) *corev1.Service {
	return scrapableBy(svc, ports, s.scrapeAlias())
}

// scrapeAlias is the alias of the Prometheus that scrapes the stack's components.
func (s stack) scrapeAlias() string {
	switch s.kind {
	case seedStack:
		return seedScrapeTargets
	case shootStack:
		return shootScrapeTargets
	default:
		return gardenScrapeTargets
	}
}

// deployment runs a pod as a Deployment with the stack's replicas and priority class and two
// old revisions kept, as Gardener's observability Deployments do; labels are the Deployment's,
// selector selects podLabels.
func (s stack) deployment(name string, labels, selector, podLabels map[string]string, pod corev1.PodSpec) *appsv1.Deployment {
	pod.PriorityClassName = s.priorityClass
	return &appsv1.Deployment{
		ObjectMeta: meta(name, s.namespace, labels),
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(s.replicas),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: pod},
		},
	}
}

// toShootAPIServer is the network label of pods that talk to the shoot's API server through its
// Service in the control-plane namespace (Gardener's docs/concepts/resource-manager.md).
func toShootAPIServer() string {
	return kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port)
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
