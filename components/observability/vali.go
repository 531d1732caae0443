package observability

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Names of Vali's objects. The StatefulSet is vali (Gardener's "Gardener Operator"
// docs/concepts/operator.md, "Logging" docs/usage/observability/logging.md); the Service is
// logging, the name Plutono's documented datasource reaches Vali by (Gardener's
// docs/usage/observability/logging.md).
const (
	ValiName              = "vali"
	ValiServiceName       = "logging"
	valiConfigName        = "vali-config"
	valiPort              = 3100
	valiUser        int64 = 10001 // the user of the Vali image
	valiConfigDir         = "/etc/vali"
	valiDataDir           = "/data"
)

// ValiRetention is how long Vali keeps logs; the chunk store looks back as far
// (Gardener's docs/usage/observability/logging.md).
const ValiRetention = "336h"

// valiConfig is Vali's configuration: a single instance with an in-memory ring, the documented
// index schema (boltdb index, filesystem chunks, schema v11, 24h index period from 2018-04-15,
// Gardener's docs/usage/observability/logging.md) and the documented retention (Gardener's
// docs/usage/observability/logging.md).
func valiConfig() map[string]any {
	return map[string]any{
		"auth_enabled": false,
		"server":       map[string]any{"http_listen_port": valiPort},
		"ingester": map[string]any{
			"lifecycler": map[string]any{
				"ring":               map[string]any{"kvstore": map[string]any{"store": "inmemory"}, "replication_factor": 1},
				"final_sleep":        "0s",
				"min_ready_duration": "1s",
			},
			"chunk_idle_period":    "3m",
			"chunk_retain_period":  "1m",
			"chunk_target_size":    1536000,
			"max_transfer_retries": 0,
		},
		"limits_config": map[string]any{
			"enforce_metric_name":        false,
			"reject_old_samples":         true,
			"reject_old_samples_max_age": "168h",
		},
		"schema_config": map[string]any{"configs": []any{map[string]any{
			"from":         "2018-04-15",
			"store":        "boltdb",
			"object_store": "filesystem",
			"schema":       "v11",
			"index":        map[string]any{"prefix": "index_", "period": "24h"},
		}}},
		"storage_config": map[string]any{
			"boltdb":     map[string]any{"directory": valiDataDir + "/vali/index"},
			"filesystem": map[string]any{"directory": valiDataDir + "/vali/chunks"},
		},
		"chunk_store_config": map[string]any{"max_look_back_period": ValiRetention},
		"table_manager": map[string]any{
			"retention_deletes_enabled": true,
			"retention_period":          ValiRetention,
		},
	}
}

// valiObjects renders Vali: its ConfigMap, Service and StatefulSet with one persistent volume.
// The volume is claimed from a template, so the objects are accepted where no volume can be
// provisioned; the pod waits for it.
func valiObjects(s stack, storage resource.Quantity) ([]runtime.Object, error) {
	namespace := s.namespace
	cfg, err := yaml.Marshal(valiConfig())
	if err != nil {
		return nil, fmt.Errorf("vali configuration: %w", err)
	}
	labels := appLabels(ValiName)
	c := s.container(ValiName, ImageVali, "10m", "100Mi")
	c.Args, c.Ports, c.ReadinessProbe = []string{"-config.file=" + valiConfigDir + "/vali.yaml"}, tcpPort("metrics", valiPort), httpProbe("/ready", "metrics")
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "config", MountPath: valiConfigDir, ReadOnly: true},
		{Name: ValiName, MountPath: valiDataDir},
	}
	pod := corev1.PodSpec{
		PriorityClassName:            s.priorityClass,
		AutomountServiceAccountToken: ptr.To(false),
		SecurityContext:              kube.NonRootPodOwningVolumes(valiUser),
		Containers:                   []corev1.Container{c},
		Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: valiConfigName}},
		}}},
	}
	return []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: meta(valiConfigName, namespace, ValiName), Data: map[string]string{"vali.yaml": string(cfg)}},
		s.scrapable(service(ValiServiceName, namespace, ValiName, labels, "metrics", valiPort, intstr.FromString("metrics")), valiPort),
		&appsv1.StatefulSet{
			ObjectMeta: meta(ValiName, namespace, ValiName),
			Spec: appsv1.StatefulSetSpec{
				Replicas:             ptr.To(s.replicas),
				RevisionHistoryLimit: ptr.To[int32](2),
				ServiceName:          ValiServiceName,
				Selector:             &metav1.LabelSelector{MatchLabels: labels},
				Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: s.labels(ValiName, nil)}, Spec: pod},
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
					ObjectMeta: metav1.ObjectMeta{Name: ValiName},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: storage}},
					},
				}},
			},
		},
	}, nil
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
