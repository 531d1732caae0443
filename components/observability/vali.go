package observability

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// Names of Vali's objects (pkg/component/observability/logging/vali in gardener/gardener
// v1.120.0): the StatefulSet and its volume vali, the Service logging, the configuration
// vali-config.
const (
	ValiName              = "vali"
	ValiServiceName       = "logging"
	valiConfigName        = "vali-config"
	valiPort              = 3100
	valiUser        int64 = 10001 // the user and group of the Vali image
	valiConfigDir         = "/etc/vali"
	valiDataDir           = "/data"
	valiConfigKey         = "vali.yaml"
)

// ValiRetention is how long Vali keeps logs; the chunk store looks back as far
// (templates/vali-config.yaml).
const ValiRetention = "360h"

// valiConfig is Vali's configuration, key for key as Gardener ships it
// (templates/vali-config.yaml): a single instance with an in-memory ring, a boltdb index and
// filesystem chunks under /data, logs kept for 360h.
const valiConfig = `auth_enabled: false
ingester:
  chunk_target_size: 1536000
  chunk_idle_period: 3m
  chunk_block_size: 262144
  chunk_retain_period: 3m
  max_transfer_retries: 3
  lifecycler:
    ring:
      kvstore:
        store: inmemory
      replication_factor: 1
    final_sleep: 0s
    min_ready_duration: 1s
limits_config:
  enforce_metric_name: false
  reject_old_samples: true
  reject_old_samples_max_age: 168h
schema_config:
  configs:
  - from: 2018-04-15
    store: boltdb
    object_store: filesystem
    schema: v11
    index:
      prefix: index_
      period: 24h
server:
  http_listen_port: 3100
storage_config:
  boltdb:
    directory: /data/vali/index
  filesystem:
    directory: /data/vali/chunks
chunk_store_config:
  max_look_back_period: ` + ValiRetention + `
table_manager:
  retention_deletes_enabled: true
  retention_period: ` + ValiRetention + `
`

// valiLabels label and select every object of Vali (getLabels in vali.go).
func valiLabels() map[string]string {
	return map[string]string{labelGardenRole: roleLogging, labelRole: roleLogging, labelApp: ValiName}
}

// valiObjects renders Vali as Gardener does without shoot node logging (vali.go): its
// content-addressed ConfigMap, the Service logging, the StatefulSet with one persistent volume and
// its VerticalPodAutoscaler. The volume is claimed from a template, so the objects are accepted
// where no volume can be provisioned; the pod waits for it.
func valiObjects(s stack, storage resource.Quantity) []runtime.Object {
	labels := valiLabels()
	cm := &corev1.ConfigMap{ObjectMeta: meta(valiConfigName, s.namespace, labels), Data: map[string]string{valiConfigKey: valiConfig}}
	unique.ConfigMap(cm)
	probe := func(failures int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("metrics")}},
			FailureThreshold: failures,
		}
	}
	liveness := probe(5)
	liveness.InitialDelaySeconds = 120
	c := corev1.Container{
		Name:  ValiName,
		Image: s.img[ImageVali],
		Args:  []string{"-config.file=" + valiConfigDir + "/" + valiConfigKey},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "config", MountPath: valiConfigDir + "/" + valiConfigKey, SubPath: valiConfigKey},
			{Name: ValiName, MountPath: valiDataDir},
		},
		Ports:          []corev1.ContainerPort{{Name: "metrics", ContainerPort: valiPort, Protocol: corev1.ProtocolTCP}},
		LivenessProbe:  liveness,
		ReadinessProbe: probe(7),
		Resources:      requests("10m", "100M"),
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			RunAsUser:                ptr.To(valiUser),
			RunAsGroup:               ptr.To(valiUser),
			RunAsNonRoot:             ptr.To(true),
			ReadOnlyRootFilesystem:   ptr.To(true),
		},
	}
	pod := corev1.PodSpec{
		AutomountServiceAccountToken: ptr.To(false),
		SecurityContext: &corev1.PodSecurityContext{
			FSGroup:             ptr.To(valiUser),
			FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
		},
		PriorityClassName: s.priorityClass,
		Containers:        []corev1.Container{c},
		Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, DefaultMode: ptr.To[int32](0o520)},
		}}},
	}
	svc := service(ValiServiceName, s.namespace, labels, labels, "metrics", valiPort, intstr.FromInt32(valiPort))
	s.scrapable(svc, valiPort)
	if s.kind == shootStack {
		annotate(svc, namespaceSelectors, `[{"matchLabels":{"kubernetes.io/metadata.name":"garden"}}]`)
		annotate(svc, podLabelSelectorNamespaceAlias, shootsAlias)
	}
	refs := unique.References(pod)
	sts := &appsv1.StatefulSet{
		ObjectMeta: meta(ValiName, s.namespace, labels),
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(s.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: merge(labels, map[string]string{labelObservabilityApp: ValiName}), Annotations: refs},
				Spec:       pod,
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: ValiName},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: storage}},
				},
			}},
		},
	}
	sts.Annotations = refs
	vpa := workloadVPA(s.namespace, ValiName+"-vpa", merge(labels, map[string]string{labelObservabilityApp: ValiName}), "StatefulSet", ValiName,
		containerPolicy{container: ValiName, requestsOnly: true})
	return []runtime.Object{cm, svc, sts, vpa}
}

// dropTemplateStatus removes the empty status the typed PersistentVolumeClaim carries from a
// StatefulSet's volume claim templates: like an object's own status it is not ours to set.
func dropTemplateStatus(u *unstructured.Unstructured) {
	if u.GetKind() != "StatefulSet" {
		return
	}
	templates, found, err := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
	if err != nil || !found {
		return
	}
	for _, t := range templates {
		if m, ok := t.(map[string]any); ok {
			delete(m, "status")
		}
	}
	_ = unstructured.SetNestedSlice(u.Object, templates, "spec", "volumeClaimTemplates") // the slice came from this very path
}
