package shootsystem

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// NamespacesManagedResource labels the shoot's kube-system namespace (pkg/component/shoot/namespaces
// at gardener/gardener v1.120.0).
const NamespacesManagedResource = "shoot-core-namespaces"

// namespaces is the shoot's kube-system Namespace as Gardener labels it: gardener.cloud/purpose,
// which the pod webhooks of the shoot's gardener-resource-manager select namespaces by, and the
// high-availability labels with the zones of the pools that allow system components, which its
// high-availability-config webhook reads.
func (p *prepared) namespaces() ([]*unstructured.Unstructured, error) {
	var zones []string
	for _, pool := range p.WorkerPools {
		if pool.NoSystemComponents {
			continue
		}
		for _, z := range pool.Zones {
			if !slices.Contains(zones, z) {
				zones = append(zones, z)
			}
		}
	}
	slices.Sort(zones)
	return kube.All(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: Namespace,
		Labels: map[string]string{
			"gardener.cloud/purpose":                                     Namespace,
			"high-availability-config.resources.gardener.cloud/consider": "true",
		},
		Annotations: map[string]string{"high-availability-config.resources.gardener.cloud/zones": strings.Join(zones, ",")},
	}})
}
