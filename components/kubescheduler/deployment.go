package kubescheduler

import (
	"encoding/json"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The volumes and where they are mounted (pkg/component/kubernetes/scheduler/scheduler.go in
// gardener/gardener v1.120.0).
const (
	volumeClientCA = "client-ca"
	dirClientCA    = "/var/lib/kube-scheduler-client-ca"
	// fileClientCA is the client CA bundle's file name; the engine's CA Secret keys the
	// certificate ca.crt, which is projected to this path.
	fileClientCA = "bundle.crt"
	volumeServer = "kube-scheduler-server"
	dirServer    = "/var/lib/kube-scheduler-server"
	volumeConfig = "kube-scheduler-config"
	dirConfig    = "/var/lib/kube-scheduler-config"
)

// Labels gardenlet puts on control-plane workloads (pkg/apis/core/v1beta1/constants and
// pkg/apis/resources/v1alpha1 in gardener/gardener v1.120.0).
const (
	// labelHAType tells the high-availability-config webhook of the seed's resource manager that
	// the workload is a controller: one replica, two when the shoot has a failure tolerance.
	labelHAType = "high-availability-config.resources.gardener.cloud/type"
	// labelMutatedByWebhook lets the provider extension's control-plane webhook mutate the object.
	labelMutatedByWebhook = "provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"
	// labelMaintenanceRestart has the pod restarted in the shoot's maintenance window.
	labelMaintenanceRestart = "maintenance.gardener.cloud/restart"
	// annotationReference is the prefix of the annotations that name the Secrets and ConfigMaps a
	// workload refers to, which the resource manager's garbage collector keeps.
	annotationReference = "reference.resources.gardener.cloud/"
)

// SelectorLabels select the scheduler's pods: app kubernetes like the shoot's kube-apiserver
// (kubeapiserver.AppLabel), role scheduler.
func SelectorLabels() map[string]string {
	return map[string]string{"app": kubeapiserver.AppLabel, "role": "scheduler"}
}

// command is the kube-scheduler command line, flag for flag in gardenlet's order (computeCommand
// in pkg/component/kubernetes/scheduler/scheduler.go, gardener/gardener v1.120.0): the
// configuration, the delegated authentication and authorization through the generic kubeconfig,
// the client CA and serving certificate of the secure port, the feature gates and the verbosity.
func command(v Values) []string {
	c := []string{
		"/usr/local/bin/kube-scheduler",
		"--config=" + dirConfig + "/" + configKey,
		"--authentication-kubeconfig=" + shootaccess.KubeconfigPath,
		"--authorization-kubeconfig=" + shootaccess.KubeconfigPath,
		"--client-ca-file=" + dirClientCA + "/" + fileClientCA,
		"--tls-cert-file=" + dirServer + "/" + render.DataKeyCert,
		"--tls-private-key-file=" + dirServer + "/" + render.DataKeyKey,
		fmt.Sprintf("--secure-port=%d", Port),
	}
	if len(v.FeatureGates) > 0 {
		c = append(c, "--feature-gates="+kubeapiserver.FeatureGatesFlag(v.FeatureGates))
	}
	return append(c, "--v=2")
}

func deployment(v Values, configMapName string) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.KubeScheduler, v.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kube-scheduler images: %w", err)
	}
	selector := SelectorLabels()
	labels := withSelector(map[string]string{
		"gardener.cloud/role": "controlplane",
		labelHAType:           "controller",
		labelMutatedByWebhook: "true",
	})
	podLabels := withSelector(map[string]string{
		"gardener.cloud/role":              "controlplane",
		labelMaintenanceRestart:            "true",
		"networking.gardener.cloud/to-dns": "allowed",
		// Egress to the shoot's API server Service in the same namespace (Gardener's
		// docs/concepts/resource-manager.md).
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port): "allowed",
	})
	access := shootaccess.Access{
		Namespace: v.Namespace, Component: Name,
		GenericKubeconfigSecretName: v.GenericKubeconfigSecretName, AccessSecretName: v.AccessSecretName,
	}
	volumes := []corev1.Volume{
		{Name: volumeClientCA, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(0o644)),
			Sources: []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: v.ClientCASecretName},
				Items:                []corev1.KeyToPath{{Key: render.DataKeyCACert, Path: fileClientCA}},
			}}},
		}}},
		{Name: volumeServer, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: v.ServerTLSSecretName, DefaultMode: ptr.To(int32(0o640)),
		}}},
		{Name: volumeConfig, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: configMapName},
		}}},
		access.GenericKubeconfigVolume(),
	}
	mounts := []corev1.VolumeMount{
		{Name: volumeClientCA, MountPath: dirClientCA},
		{Name: volumeServer, MountPath: dirServer},
		{Name: volumeConfig, MountPath: dirConfig},
		access.Mount(),
	}
	var env []corev1.EnvVar
	if v.KubeMaxPDVols != "" {
		env = []corev1.EnvVar{{Name: "KUBE_MAX_PD_VOLS", Value: v.KubeMaxPDVols}}
	}
	var spread []corev1.TopologySpreadConstraint
	if v.HighAvailability {
		spread = kube.SpreadOverNodesAndZones(selector)
	}
	references := referenceAnnotations(volumes)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels, Annotations: references},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(v.HighAvailability), v.Hibernated)),
			RevisionHistoryLimit: ptr.To(int32(1)),
			Selector:             &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: maps.Clone(references)},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: ptr.To(false),
					// The distroless image's nonroot user.
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)),
						RunAsGroup: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532)),
					},
					Containers: []corev1.Container{{
						Name:            Name,
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         command(v),
						LivenessProbe: &corev1.Probe{
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/healthz", Scheme: corev1.URISchemeHTTPS, Port: intstr.FromInt32(Port),
							}},
							SuccessThreshold: 1, FailureThreshold: 2, InitialDelaySeconds: 15, PeriodSeconds: 10, TimeoutSeconds: 15,
						},
						Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
						Env:   env,
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("10m"),
							corev1.ResourceMemory: resource.MustParse("30M"),
						}},
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
						VolumeMounts:    mounts,
					}},
					// gardener-system-300 unless the values say otherwise (validate).
					PriorityClassName:         v.PriorityClassName,
					TopologySpreadConstraints: spread,
					Volumes:                   volumes,
				},
			},
		},
	}, nil
}

func withSelector(labels map[string]string) map[string]string {
	maps.Copy(labels, SelectorLabels())
	return labels
}

// referenceAnnotations name every Secret and ConfigMap the pods mount, one annotation each keyed
// by kind and the first eight hex digits of the name's SHA-256, as gardenlet annotates the
// Deployment and its pod template (InjectAnnotations in
// pkg/resourcemanager/controller/garbagecollector/references, gardener/gardener v1.120.0).
func referenceAnnotations(volumes []corev1.Volume) map[string]string {
	out := map[string]string{}
	ref := func(kind, name string) { out[annotationReference+kind+"-"+sha256Hex([]byte(name))[:8]] = name }
	for _, vol := range volumes {
		switch {
		case vol.Secret != nil:
			ref("secret", vol.Secret.SecretName)
		case vol.ConfigMap != nil:
			ref("configmap", vol.ConfigMap.Name)
		case vol.Projected != nil:
			for _, src := range vol.Projected.Sources {
				if src.Secret != nil {
					ref("secret", src.Secret.Name)
				}
				if src.ConfigMap != nil {
					ref("configmap", src.ConfigMap.Name)
				}
			}
		}
	}
	return out
}

// service exposes the metrics port, open to the shoot Prometheus's scrape targets policy: the
// annotation holds the ports as gardenlet marshals them (InjectNetworkPolicyAnnotationsForScrapeTargets
// in pkg/utils/gardener/networkpolicy.go, gardener/gardener v1.120.0).
func service(v Values) *corev1.Service {
	ports, _ := json.Marshal([]networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(Port))}})
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name, Namespace: v.Namespace, Labels: SelectorLabels(),
			Annotations: map[string]string{"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": string(ports)},
		},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: SelectorLabels(),
			// The API server defaults the target port to the port; rendered, so that plans compare
			// with the live object.
			Ports: []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: Port, TargetPort: intstr.FromInt32(Port)}},
		},
	}
}

// verticalPodAutoscaler scales the requests of every container of the Deployment, never the
// limits.
func verticalPodAutoscaler(namespace string) *unstructured.Unstructured {
	return kube.Custom("autoscaling.k8s.io/v1", "VerticalPodAutoscaler", namespace, VPAName, nil, map[string]any{"spec": map[string]any{
		"targetRef":    map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": Name},
		"updatePolicy": map[string]any{"updateMode": "Auto"},
		"resourcePolicy": map[string]any{"containerPolicies": []any{
			map[string]any{"containerName": "*", "controlledValues": "RequestsOnly"},
		}},
	}})
}

// shootRBAC binds the shoot's ServiceAccount kube-system/kube-scheduler to Kubernetes' scheduler
// and volume-scheduler ClusterRoles, in the ManagedResource the shoot's resource manager applies
// (reconcileShootResources in pkg/component/kubernetes/scheduler/scheduler.go, gardener/gardener
// v1.120.0).
func shootRBAC(v Values) ([]render.Object, error) {
	binding := func(name, role string) runtime.Object {
		return &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: metav1.NamespaceSystem}},
		}
	}
	us, err := kube.All(
		binding("gardener.cloud:target:kube-scheduler", "system:kube-scheduler"),
		binding("gardener.cloud:target:kube-scheduler-volume", "system:volume-scheduler"),
	)
	if err != nil {
		return nil, err
	}
	// origin=gardener, objects not kept, left alone by the shoot deletion's clean-up
	// (CreateForShoot in scheduler.go at Gardener v1.120.0).
	return managedresource.Pack(managedresource.ForShoot(v.Cluster.Name, v.Namespace, ShootRBACName, false, us))
}
