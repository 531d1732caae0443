// Package kubecontrollermanager renders the kube_controller_manager component: the controller
// manager of the virtual garden (virtual-garden-kube-controller-manager, Gardener's "Gardener
// Operator" docs/concepts/operator.md) as a Deployment in the runtime cluster. It runs only the few
// controllers an API without nodes or workloads needs; the serviceaccount-token controller is
// always off, so static ServiceAccount token Secrets do not exist and clients use the TokenRequest
// API (Gardener's docs/concepts/operator.md).
package kubecontrollermanager

import (
	"fmt"
	"maps"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Port is the controller manager's secure port, which serves /healthz and /metrics.
const Port = 10257

// Controllers are the controllers the virtual garden's controller manager runs: namespace and
// garbage collection, default ServiceAccounts and the kube-root-ca.crt ConfigMaps, RBAC
// aggregation, quotas, CSR signing for gardenlet client certificates (Gardener's
// docs/concepts/operator.md), bootstrap tokens for registering gardenlets, and TTL clean-up. The
// serviceaccount-token controller is named explicitly as disabled (Gardener's
// docs/concepts/operator.md). Gardener's documentation says only "a few controllers"; this is the
// set such an API needs.
var Controllers = []string{
	"namespace", "serviceaccount", "garbagecollector", "clusterrole-aggregation", "resourcequota",
	"csrsigning", "csrapproving", "csrcleaner", "root-ca-cert-publisher", "ttl-after-finished",
	"bootstrapsigner", "tokencleaner", "-serviceaccount-token",
}

// ShootControllers are the controllers of a shoot's controller manager: all the default ones
// plus the bootstrap-token controllers nodes join with, without the serviceaccount-token
// controller (tokens come from the TokenRequest API, Gardener's docs/concepts/operator.md).
var ShootControllers = []string{"*", "bootstrapsigner", "tokencleaner", "-serviceaccount-token"}

// WorkerlessControllers leave out, for a shoot without nodes (Gardener's "Workerless Shoots"
// docs/usage/shoot/shoot_workerless.md), the controllers that only act on nodes, their volumes and
// their pod ranges.
var WorkerlessControllers = []string{
	"*", "bootstrapsigner", "tokencleaner", "-serviceaccount-token", "-nodeipam", "-nodelifecycle",
	"-attachdetach", "-persistentvolume-binder", "-persistentvolume-expander", "-ttl",
}

// ShootNetworks make the controller manager a shoot's: it runs ShootControllers (or
// WorkerlessControllers) and allocates each node's pod range from the shoot's pod network.
type ShootNetworks struct {
	// Pods and Services are the shoot's networks (.spec.networking); Pods is required with
	// workers.
	Pods, Services string
	// NodeCIDRMaskSize is the prefix length of each node's pod range; 0 means 24 (Gardener's
	// KubeControllerManagerConfig in docs/api-reference/core.md).
	NodeCIDRMaskSize int32
	// NodeMonitorGracePeriod is how long a node may be silent before it is marked unhealthy;
	// "" leaves the Kubernetes default.
	NodeMonitorGracePeriod string
	// Workerless leaves out the node controllers and the pod range allocation.
	Workerless bool
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the runtime cluster the controller manager runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of all objects.
	Namespace string `json:"namespace"`
	// NamePrefix is put before kube-controller-manager: etcd.DefaultNamePrefix for the virtual
	// garden, "" for the control planes of shoots.
	NamePrefix string `json:"name_prefix"`
	// Images overrides image vector entries by name (kube-controller-manager).
	Images map[string]string `json:"images"`
	// KubernetesVersion (MAJOR.MINOR.PATCH) tags the image.
	KubernetesVersion string `json:"kubernetes_version"`
	// HighAvailability runs two replicas with leader election instead of one (Gardener's "High
	// Availability Of Components" docs/development/high-availability-of-components.md).
	HighAvailability bool `json:"high_availability"`
	// KubeconfigSecretName holds a kubeconfig (key kubeconfig) for the API server the controller
	// manager manages.
	KubeconfigSecretName string `json:"kubeconfig_secret_name"`
	// CASecretName holds the cluster CA (ca.crt) published as kube-root-ca.crt.
	CASecretName string `json:"ca_secret_name"`
	// ClientCASecretName holds the client CA (ca.crt, ca.key) CSRs are signed with (Gardener's
	// docs/concepts/operator.md).
	ClientCASecretName string `json:"client_ca_secret_name"`
	// ServiceAccountKeySecretName holds the ServiceAccount signing key (key.pem) (Gardener's
	// docs/concepts/operator.md).
	ServiceAccountKeySecretName string `json:"service_account_key_secret_name"`
	// CertificateSigningDuration is the longest validity of certificates signed for CSRs.
	CertificateSigningDuration string `json:"certificate_signing_duration"`
	// FeatureGates switch Kubernetes feature gates on or off.
	FeatureGates map[string]bool `json:"feature_gates"`
	// PriorityClassName of the pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// ScrapeTargetsAlias is the alias of the Prometheus that scrapes the metrics (Gardener's
	// "Network Policies" docs/operations/network_policies.md).
	ScrapeTargetsAlias string `json:"scrape_targets_alias"`
	// Shoot, when set, configures a shoot's controller manager; nil is the virtual garden's.
	Shoot *ShootNetworks `json:"-"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md).
	Hibernated bool `json:"-"`
}

// Name is the Deployment's and Service's name, <prefix>kube-controller-manager (Gardener's
// docs/concepts/operator.md).
func Name(prefix string) string { return prefix + "kube-controller-manager" }

// SelectorLabels select the controller manager's pods.
func SelectorLabels(prefix string) map[string]string {
	return map[string]string{"app": kubeapiserver.AppLabel(prefix), "role": "controller-manager"}
}

// Type is the kube_controller_manager component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the metrics Service, the Deployment and, with several replicas, a
// PodDisruptionBudget.
func Objects(v Values) ([]render.Object, error) {
	if v.KubernetesVersion == "" {
		return nil, fmt.Errorf("kubernetes version is required")
	}
	if _, err := time.ParseDuration(v.CertificateSigningDuration); err != nil {
		return nil, fmt.Errorf("certificate signing duration %q: %w", v.CertificateSigningDuration, err)
	}
	if s := v.Shoot; s != nil && !s.Workerless && s.Pods == "" {
		return nil, fmt.Errorf("shoot pod network is required to allocate node pod ranges")
	}
	prefix, ns := v.NamePrefix, v.Namespace
	d, err := deployment(v, prefix, ns)
	if err != nil {
		return nil, err
	}
	typed := []runtime.Object{service(v, prefix, ns), d}
	if v.HighAvailability {
		typed = append(typed, disruption.Budget(ns, Name(prefix), SelectorLabels(prefix)))
	}
	us, err := kube.All(typed...)
	if err != nil {
		return nil, err
	}
	kubeapiserver.StripStatus(us)
	return kube.On(v.Cluster.Name, "", us...), nil
}

const (
	dirKubeconfig     = "/var/run/secrets/gardener.cloud/kubeconfig"
	dirCA             = "/srv/kubernetes/ca"
	dirClientCA       = "/srv/kubernetes/ca-client"
	dirServiceAccount = "/srv/kubernetes/service-account-key"
)

func args(v Values) []string {
	kubeconfig := dirKubeconfig + "/kubeconfig"
	a := []string{
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--cluster-signing-cert-file=" + dirClientCA + "/ca.crt",
		"--cluster-signing-duration=" + v.CertificateSigningDuration,
		"--cluster-signing-key-file=" + dirClientCA + "/ca.key",
		"--controllers=" + strings.Join(Controllers, ","),
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=true",
		"--profiling=false",
		"--root-ca-file=" + dirCA + "/ca.crt",
		fmt.Sprintf("--secure-port=%d", Port),
		"--service-account-private-key-file=" + dirServiceAccount + "/key.pem",
		// Each controller acts as its own ServiceAccount, with tokens from the TokenRequest API.
		"--use-service-account-credentials=true",
	}
	if s := v.Shoot; s != nil {
		a = shootArgs(a, s)
	}
	if len(v.FeatureGates) > 0 {
		a = append(a, "--feature-gates="+kubeapiserver.FeatureGatesFlag(v.FeatureGates))
	}
	return a
}

// shootArgs replaces the controller list and adds the networks of a shoot.
func shootArgs(a []string, s *ShootNetworks) []string {
	controllers := ShootControllers
	if s.Workerless {
		controllers = WorkerlessControllers
	}
	for i, arg := range a {
		if strings.HasPrefix(arg, "--controllers=") {
			a[i] = "--controllers=" + strings.Join(controllers, ",")
		}
	}
	if s.Services != "" {
		a = append(a, "--service-cluster-ip-range="+s.Services)
	}
	if !s.Workerless {
		mask := s.NodeCIDRMaskSize
		if mask == 0 {
			mask = 24
		}
		a = append(a, "--allocate-node-cidrs=true", "--cluster-cidr="+s.Pods, fmt.Sprintf("--node-cidr-mask-size=%d", mask))
		if s.NodeMonitorGracePeriod != "" {
			a = append(a, "--node-monitor-grace-period="+s.NodeMonitorGracePeriod)
		}
	}
	return a
}

func deployment(v Values, prefix, ns string) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.KubeControllerManager, v.KubernetesVersion)
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager images: %w", err)
	}
	selector := SelectorLabels(prefix)
	labels := map[string]string{
		"gardener.cloud/role":              "controlplane",
		"networking.gardener.cloud/to-dns": "allowed",
		// Gardener's docs/concepts/resource-manager.md: egress to the API server's Service in the same
		// namespace.
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(prefix), kubeapiserver.Port): "allowed",
	}
	maps.Copy(labels, selector)
	secret := func(name, dir, secretName string) (corev1.Volume, corev1.VolumeMount) {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secretName, DefaultMode: ptr.To(int32(0o640))}}},
			corev1.VolumeMount{Name: name, MountPath: dir, ReadOnly: true}
	}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	for _, s := range [][3]string{
		{"kubeconfig", dirKubeconfig, v.KubeconfigSecretName},
		{"ca", dirCA, v.CASecretName},
		{"ca-client", dirClientCA, v.ClientCASecretName},
		{"service-account-key", dirServiceAccount, v.ServiceAccountKeySecretName},
	} {
		vol, m := secret(s[0], s[1], s[2])
		volumes, mounts = append(volumes, vol), append(mounts, m)
	}
	return kubeapiserver.ControlPlaneDeployment(metav1.ObjectMeta{Name: Name(prefix), Namespace: ns, Labels: selector},
		ptr.To(replicas.UnlessHibernated(replicas.HighAvailability(v.HighAvailability), v.Hibernated)),
		metav1.ObjectMeta{Labels: labels},
		corev1.PodSpec{
			PriorityClassName:         v.PriorityClassName,
			TopologySpreadConstraints: kube.SpreadOverNodesAndZones(selector),
			Containers: []corev1.Container{{
				Name:          "kube-controller-manager",
				Image:         image,
				Command:       []string{"/usr/local/bin/kube-controller-manager"},
				Args:          args(v),
				Ports:         []corev1.ContainerPort{{Name: "metrics", ContainerPort: Port, Protocol: corev1.ProtocolTCP}},
				LivenessProbe: kubeapiserver.SecureProbe("/healthz", Port, 2),
				// Initial requests an operator would pick for a control plane without
				// workloads; Gardener's documentation gives none.
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("100m"),
					corev1.ResourceMemory: resource.MustParse("128Mi"),
				}},
				VolumeMounts: mounts,
			}},
			Volumes: volumes,
		}), nil
}

// service exposes the metrics port to the garden's Prometheus (Gardener's
// docs/operations/network_policies.md).
func service(v Values, prefix, ns string) *corev1.Service {
	return kubeapiserver.MetricsService(Name(prefix), ns, SelectorLabels(prefix), v.ScrapeTargetsAlias, Port)
}
