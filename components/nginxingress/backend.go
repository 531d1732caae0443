package nginxingress

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// backendPort is where the default backend serves its 404 page and /healthy.
const backendPort int32 = 8080

// backendObjects renders the default backend: its Service and a Deployment of one replica
// answering 404 to every request no Ingress matches. It runs with the namespace's default
// ServiceAccount and needs no API access.
func backendObjects(v Values, image string) []runtime.Object {
	ns, labels := v.Namespace, BackendLabels()
	d := kube.Deployment(metav1.ObjectMeta{Namespace: ns, Name: BackendName, Labels: labels}, withRelease(labels), 1, corev1.PodSpec{
		PriorityClassName: v.PriorityClassName,
		SecurityContext:   &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534), FSGroup: ptr.To[int64](65534)},
		Containers: []corev1.Container{{
			Name:            BackendName,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			LivenessProbe: &corev1.Probe{
				ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthy", Port: intstr.FromInt32(backendPort), Scheme: corev1.URISchemeHTTP}},
				InitialDelaySeconds: 30,
				TimeoutSeconds:      5,
			},
			Ports: []corev1.ContainerPort{{ContainerPort: backendPort, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("20Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Mi")},
			},
			SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
		}},
		TerminationGracePeriodSeconds: ptr.To[int64](60),
	})
	d.Spec.Template.Labels = withRelease(labels)
	return []runtime.Object{
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: BackendName, Labels: labels},
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(backendPort)}},
				Selector: labels,
			},
		},
		d,
	}
}
