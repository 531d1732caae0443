package nginxingress

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
)

// backendPort is where the default backend serves its 404 page and /healthz.
const backendPort int32 = 8080

// backendObjects renders the default backend: a Deployment answering 404 to every request no
// Ingress matches, its Service and PodDisruptionBudget.
func backendObjects(v Values, image string) []runtime.Object {
	ns, labels := v.Namespace, BackendLabels()
	meta := metav1.ObjectMeta{Namespace: ns, Name: BackendName, Labels: labels}
	n := replicas.HighAvailability(v.HighAvailability)
	return []runtime.Object{
		kube.Deployment(meta, labels, n, corev1.PodSpec{
			// It needs no API access.
			AutomountServiceAccountToken: ptr.To(false),
			PriorityClassName:            v.PriorityClassName,
			TopologySpreadConstraints:    spread(n, labels),
			SecurityContext:              kube.NonRootPod(65534),
			Containers: []corev1.Container{{
				Name:           BackendName,
				Image:          image,
				Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: backendPort, Protocol: corev1.ProtocolTCP}},
				LivenessProbe:  healthz(backendPort, 5),
				ReadinessProbe: healthz(backendPort, 3),
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("10m"),
					corev1.ResourceMemory: resource.MustParse("20Mi"),
				}},
				SecurityContext: kube.UnprivilegedReadOnly(),
			}},
		}),
		&corev1.Service{
			ObjectMeta: meta,
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Selector: labels,
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}},
			},
		},
		disruption.Budget(ns, BackendName, labels),
	}
}
