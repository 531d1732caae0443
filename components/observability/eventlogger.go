package observability

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
)

// eventLoggerObjects renders the event-logger of a shoot control plane: it reads the events of
// the control-plane namespace in the seed (with its ServiceAccount there) and of the shoot's
// kube-system namespace (with access's token) and writes them to its log, where the log shipper
// finds them (Gardener's "Logging" docs/usage/observability/logging.md).
func eventLoggerObjects(s stack, access shootaccess.Access) []runtime.Object {
	out := namespacedRBAC(EventLoggerName, s.namespace, eventRules)
	c := s.container(EventLoggerName, ImageEventLogger, "5m", "30Mi")
	c.Command = []string{
		"./event-logger",
		"--seed-event-namespaces=" + s.namespace,
		"--shoot-kubeconfig=" + shootaccess.KubeconfigPath,
		"--shoot-event-namespaces=" + metav1.NamespaceSystem,
	}
	c.VolumeMounts = []corev1.VolumeMount{access.Mount()}
	pod := corev1.PodSpec{
		ServiceAccountName: EventLoggerName,
		SecurityContext:    kube.NonRootPodOwningVolumes(nobody),
		Containers:         []corev1.Container{c},
		Volumes:            []corev1.Volume{access.Volume()},
	}
	network := toShootAPIServer(map[string]string{toRuntimeAPIServer: allowed})
	return append(out, access.Secret(), s.deployment(EventLoggerName, network, pod))
}
