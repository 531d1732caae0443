package observability

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
)

// eventLoggerLabels label and select the event-logger's objects (event_logger.go in
// pkg/component/observability/logging/eventlogger of gardener/gardener v1.120.0).
func eventLoggerLabels() map[string]string {
	return map[string]string{labelApp: EventLoggerName, labelRole: roleLogging, labelGardenRole: roleLogging}
}

// eventRules read events, the event-logger's permissions in the seed and in the shoot.
var eventRules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: read}}

// eventLoggerObjects renders the event-logger of a shoot control plane as gardenlet deploys it
// (event_logger.go): it reads the events of the control-plane namespace in the seed (with its
// ServiceAccount there) and of the shoot's kube-system and default namespaces (with access's
// token) and writes them to its log, where the log shipper finds them (Gardener's "Logging"
// docs/usage/observability/logging.md).
func eventLoggerObjects(s stack, access shootaccess.Access) []runtime.Object {
	labels := eventLoggerLabels()
	c := corev1.Container{
		Name:            EventLoggerName,
		Image:           s.img[ImageEventLogger],
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command: []string{
			"./event-logger",
			"--seed-event-namespaces=" + s.namespace,
			"--shoot-kubeconfig=" + shootaccess.KubeconfigPath,
			"--shoot-event-namespaces=" + metav1.NamespaceSystem + "," + metav1.NamespaceDefault,
		},
		Resources:       requests("12m", "50Mi"),
		SecurityContext: noPrivilegeEscalation(),
		VolumeMounts:    []corev1.VolumeMount{access.Mount()},
	}
	pod := corev1.PodSpec{
		ServiceAccountName: EventLoggerName,
		Containers:         []corev1.Container{c},
		Volumes:            []corev1.Volume{access.GenericKubeconfigVolume()},
	}
	podLabels := merge(labels, map[string]string{toDNS: allowed, toRuntimeAPIServer: allowed, toShootAPIServer(): allowed})
	d := s.deployment(EventLoggerName, labels, labels, podLabels, pod)
	d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
	return []runtime.Object{
		serviceAccount(EventLoggerName, s.namespace, labels),
		&rbacv1.Role{ObjectMeta: meta(EventLoggerName, s.namespace, labels), Rules: eventRules},
		roleBinding(EventLoggerName, s.namespace, labels, EventLoggerName, EventLoggerName),
		access.Secret(),
		d,
		workloadVPA(s.namespace, EventLoggerName+"-vpa", nil, "Deployment", EventLoggerName,
			containerPolicy{container: "*", minAllowed: map[string]string{"memory": "20Mi"}, requestsOnly: true}),
	}
}
