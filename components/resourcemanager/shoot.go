package resourcemanager

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ShootTarget makes the GRM a shoot's own resource manager, as gardenlet deploys it into the
// shoot's control-plane namespace of the seed (DefaultResourceManager and
// DeployGardenerResourceManager in pkg/gardenlet/operation/botanist/resource_manager.go,
// NewTargetGardenerResourceManager and DeployGardenerResourceManager in
// pkg/component/shared/resourcemanager.go at gardener/gardener v1.120.0): it watches only that
// namespace for ManagedResources without a class, applies them into the shoot, requests the tokens
// of the shoot-access Secrets there, its own included, and serves webhooks for the shoot's API
// server.
//
// Its identity in the shoot is the ServiceAccount kube-system/gardener-resource-manager, bound to
// cluster-admin by the ClusterRoleBinding gardener.cloud:target:resource-manager of its own
// ManagedResource (ShootManagedResourceName). It reaches the shoot with the generic token
// kubeconfig and the token its token requestor writes into its access Secret. Before that token
// exists it cannot request it, so it starts with a bootstrap kubeconfig: a client certificate of
// system:masters, valid ten minutes (BootstrapKubeconfigSecretName, MustBootstrap).
type ShootTarget struct {
	// GenericKubeconfigSecretName holds the shoot's generic token kubeconfig (key kubeconfig);
	// "" means shootaccess.GenericKubeconfigSecretName.
	GenericKubeconfigSecretName string
	// AccessSecretName is the GRM's token-requestor Secret; "" means AccessSecretName.
	AccessSecretName string
	// CASecretName holds the shoot's cluster CA (ca.crt): mounted as the root CA and the caBundle
	// the shoot's API server calls the webhooks with. Required.
	CASecretName string
	// Bootstrap starts the GRM with the bootstrap kubeconfig (MustBootstrap): it renders the
	// Secret BootstrapKubeconfigSecretName with a kubeconfig for the client certificate
	// BootstrapCertificateSecretName (tls.crt, tls.key; BootstrapCommonName in
	// BootstrapOrganization, signed by the shoot's client CA, which the caller generates) and mounts
	// it where the generic kubeconfig and token would be. Otherwise it mounts those.
	Bootstrap bool
	// ClusterIdentity is the seed's cluster identity, the GRM's controllers.clusterID.
	ClusterIdentity string
	// KubernetesServiceHost is the shoot API server's internal domain, which the
	// kubernetes-service-host webhook injects into the shoot's pods as KUBERNETES_SERVICE_HOST
	// (ComputeOutOfClusterAPIServerAddress(true) in pkg/gardenlet/operation/shoot/shoot.go); ""
	// leaves the webhook out.
	KubernetesServiceHost string
	// Workerless leaves out the controllers and webhooks of nodes and pods.
	Workerless bool
	// SystemComponentTolerations are the tolerations the system-components-config webhook adds
	// to the shoot's system component pods: those of the taints of the worker pools that allow
	// system components (ExtractSystemComponentsTolerations in pkg/utils/gardener/shoot.go).
	SystemComponentTolerations []corev1.Toleration
	// BinPacking turns on the pod-scheduler-name webhook for the shoot's bin-packing scheduling
	// profile.
	BinPacking bool
	// AuthorizeWithSelectors lets the node agent authorizer use field and label selectors
	// (IsAuthorizeWithSelectorsEnabled in pkg/utils/gardener/shoot.go: on from Kubernetes 1.32
	// unless the API server's AuthorizeWithSelectors gate is off).
	AuthorizeWithSelectors bool
	// NodeAgentReconciliationMaxDelay spreads the node agents' reconciliations; 0 means
	// Gardener's default, 5 minutes (pkg/gardenlet/operation/shoot/shoot.go).
	NodeAgentReconciliationMaxDelay time.Duration
	// PodTopologySpreadConstraints turns on the webhook that adds pod-template-hash to topology
	// spread constraints, for shoots that turned MatchLabelKeysInPodTopologySpread off
	// (IsMatchLabelKeysInPodTopologySpreadFeatureGateDisabled in pkg/utils/gardener/shoot.go).
	PodTopologySpreadConstraints bool
}

// Names and paths of a shoot's GRM (resource_manager.go and pkg/utils/gardener/shoot.go at
// v1.120.0).
const (
	// AccessSecretName is the GRM's token-requestor Secret in the control-plane namespace.
	AccessSecretName = "shoot-access-" + Name
	// BootstrapKubeconfigSecretName is the Secret with the bootstrap kubeconfig
	// (reconcileGardenerResourceManagerBootstrapKubeconfigSecret in
	// pkg/component/shared/resourcemanager.go; Gardener's secrets manager adds a suffix of its own).
	BootstrapKubeconfigSecretName = AccessSecretName + "-bootstrap"
	// BootstrapCertificateSecretName is the generated client certificate of the bootstrap
	// kubeconfig.
	BootstrapCertificateSecretName = BootstrapKubeconfigSecretName + "-certificate"
	// ShootManagedResourceName carries the GRM's objects in the shoot: its webhook configuration
	// and its ClusterRoleBinding.
	ShootManagedResourceName = "shoot-core-" + Name
	// GenericKubeconfigDir is where the GRM finds its kubeconfig for the shoot, and
	// GenericKubeconfigPath the kubeconfig: the generic token kubeconfig beside the GRM's token,
	// or the bootstrap kubeconfig.
	GenericKubeconfigDir  = shootaccess.KubeconfigDir
	GenericKubeconfigPath = shootaccess.KubeconfigPath
	// BootstrapCommonName and BootstrapOrganization are the bootstrap client certificate's
	// subject: a member of system:masters, which may create the GRM's ServiceAccount and request
	// its token before any RBAC exists.
	BootstrapCommonName   = "gardener.cloud:system:gardener-resource-manager"
	BootstrapOrganization = "system:masters"
	// BootstrapValidity is the bootstrap certificate's validity.
	BootstrapValidity = 10 * time.Minute
	// AccessTokenExpiration is how long the GRM's own tokens are valid (Reconcile with
	// WithTokenExpirationDuration in resource_manager.go).
	AccessTokenExpiration = "24h"
	// LabelSystemComponents marks the nodes of worker pools that run system components.
	LabelSystemComponents = "worker.gardener.cloud/system-components"
	// BinPackingSchedulerName is the scheduler of the bin-packing profile.
	BinPackingSchedulerName = "bin-packing-scheduler"
	// annotationTokenRenew is the token requestor's record of when it renews a token.
	annotationTokenRenew = "serviceaccount.resources.gardener.cloud/token-renew-timestamp"
	// annotationTokenExpiration asks the token requestor for tokens of that lifetime.
	annotationTokenExpiration = "serviceaccount.resources.gardener.cloud/token-expiration-duration"
)

// TargetNamespaces are the shoot namespaces the GRM caches: kube-system, kubernetes-dashboard and
// kube-node-lease (DefaultResourceManager in botanist/resource_manager.go).
var TargetNamespaces = []string{metav1.NamespaceSystem, "kubernetes-dashboard", corev1.NamespaceNodeLease}

// The worker counts of a shoot's GRM (targetGardenerResourceManagerDefaultValues in
// pkg/component/shared/resourcemanager.go).
const (
	shootManagedResourceWorkers = 20
	shootHealthWorkers          = 10
	shootCSRApproverWorkers     = 5
	shootTokenRequestorWorkers  = 5
	defaultNodeAgentMaxDelay    = 5 * time.Minute
)

func (s *ShootTarget) resolve() {
	if s.GenericKubeconfigSecretName == "" {
		s.GenericKubeconfigSecretName = shootaccess.GenericKubeconfigSecretName
	}
	if s.AccessSecretName == "" {
		s.AccessSecretName = AccessSecretName
	}
}

func (s *ShootTarget) nodeAgentMaxDelay() time.Duration {
	if s.NodeAgentReconciliationMaxDelay == 0 {
		return defaultNodeAgentMaxDelay
	}
	return s.NodeAgentReconciliationMaxDelay
}

func (s *ShootTarget) validate(namespace string) error {
	if namespace == "" {
		return fmt.Errorf("namespace is required for a shoot's resource manager: the shoot's control-plane namespace")
	}
	if s.CASecretName == "" {
		return fmt.Errorf("shoot target: the cluster CA secret name is required")
	}
	for _, n := range []struct{ what, name string }{
		{"generic kubeconfig", s.GenericKubeconfigSecretName}, {"access", s.AccessSecretName},
		{"cluster CA", s.CASecretName},
	} {
		if n.name == "" {
			continue
		}
		if errs := validation.IsDNS1123Subdomain(n.name); len(errs) > 0 {
			return fmt.Errorf("shoot target: %s secret name %q is invalid: %s", n.what, n.name, strings.Join(errs, "; "))
		}
	}
	return nil
}

// MustBootstrap says whether the shoot's GRM has to start with the bootstrap kubeconfig, as
// gardenlet decides it (mustBootstrapGardenerResourceManager in
// pkg/component/shared/resourcemanager.go at v1.120.0), from the live access Secret and the live
// ManagedResource ShootManagedResourceName (nil when missing) at now: not while it is scaled to
// zero; otherwise when the access Secret has no renew timestamp or one in the past (no token, or
// one its token requestor failed to renew), when the ManagedResource with its ClusterRoleBinding
// is missing, or when that ManagedResource failed because the ServiceAccount lost its rights. The
// reason says which.
//
// One difference on purpose: gardenlet also bootstraps when the access Secret does not exist yet,
// because within one reconciliation it deploys with the bootstrap kubeconfig, waits for the token
// and deploys again. A plan cannot wait in between, so the engine deploys a new shoot's GRM with
// its token path at once and bootstraps only once a plan has seen the access Secret without a
// token (the daemon's watch sees it at once): where a token requestor answers before that (the
// local control plane's stand-in), the first apply converges; elsewhere the plan after it
// bootstraps, and the one after the token switches back, deleting the bootstrap as superseded.
func MustBootstrap(replicas int32, access, managed *unstructured.Unstructured, now time.Time) (bool, string, error) {
	switch {
	case replicas == 0:
		return false, "", nil
	case access == nil:
		return false, "", nil
	}
	renew, ok := access.GetAnnotations()[annotationTokenRenew]
	if !ok {
		return true, "its token requestor has not written a token yet", nil
	}
	at, err := time.Parse(time.RFC3339, renew)
	if err != nil {
		return false, "", fmt.Errorf("access secret %s: renew timestamp %q: %w", access.GetName(), renew, err)
	}
	if now.After(at) {
		return true, fmt.Sprintf("its token was due for renewal at %s and was not renewed", renew), nil
	}
	if managed == nil {
		return true, fmt.Sprintf("the ManagedResource %s with its ClusterRoleBinding does not exist yet", ShootManagedResourceName), nil
	}
	conditions, _, _ := unstructured.NestedSlice(managed.Object, "status", "conditions")
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] != "ResourcesApplied" || cond["status"] != "False" {
			continue
		}
		msg, _ := cond["message"].(string)
		if strings.Contains(msg, `forbidden: User "system:serviceaccount:kube-system:gardener-resource-manager" cannot`) || strings.Contains(msg, ": Unauthorized") {
			return true, "its ServiceAccount lost its access to the shoot", nil
		}
	}
	return false, "", nil
}

// defaultPriorityClass is gardener-garden-system-critical for the runtime GRM (Gardener's "Priority
// Classes" docs/development/priority-classes.md) and gardener-system-400 for a shoot's
// (DefaultResourceManager in botanist/resource_manager.go).
func defaultPriorityClass(shoot bool) string {
	if shoot {
		return priorityclasses.System400
	}
	return priorityclasses.GardenSystemCritical
}

// bootstrapVersions matches the bootstrap kubeconfig and its certificate: the access Secret
// supersedes both once the GRM no longer bootstraps, so that they go with the reason superseded.
var bootstrapVersions = regexp.MustCompile("^" + regexp.QuoteMeta(BootstrapKubeconfigSecretName) + "(-certificate)?$")

// accessSecret is the GRM's token-requestor Secret: the token of kube-system/gardener-resource-
// manager in the shoot, valid 24 hours (newShootAccessSecret in resource_manager.go).
func accessSecret(v Values) *corev1.Secret {
	s := shootaccess.Access{Namespace: v.Namespace, Component: Name, AccessSecretName: v.Shoot.AccessSecretName}.Secret()
	s.Annotations[annotationTokenExpiration] = AccessTokenExpiration
	return s
}

// shootRBAC is the ServiceAccount of a shoot's GRM and its rights in the seed, all in the
// control-plane namespace (ensureRBAC with a watched namespace in resource_manager.go): its
// ManagedResources and their Secrets, creating ConfigMaps and events, its leader election Lease,
// and reading Machines for the CSR approver. Its rights in the shoot come from the shoot's
// ClusterRoleBinding.
func shootRBAC(v Values) []runtime.Object {
	meta := metav1.ObjectMeta{Name: Name, Namespace: v.Namespace, Labels: labels(v)}
	readWrite := []string{"get", "list", "watch", "update", "patch"}
	return []runtime.Object{
		serviceAccount(v),
		&rbacv1.Role{
			ObjectMeta: meta,
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"resources.gardener.cloud"}, Resources: []string{"managedresources", "managedresources/status"}, Verbs: readWrite},
				{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: readWrite},
				{APIGroups: []string{""}, Resources: []string{"configmaps", "events"}, Verbs: []string{"create"}},
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{Name}, Verbs: []string{"get", "watch", "update", "patch"}},
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
				{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{Name}, Verbs: []string{"get", "watch", "update"}},
				{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machines"}, Verbs: []string{"get", "list", "watch"}},
			},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: meta,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: v.Namespace}},
		},
	}
}

// shootPodLabels open the paths a shoot's GRM needs beyond DNS and the seed's API server: the
// shoot's kube-apiserver Service in the same namespace (getNetworkPolicyLabels in
// resource_manager.go).
func shootPodLabels() map[string]string {
	return map[string]string{
		kubeapiserver.ToServiceLabel(kubeapiserver.ServiceName(""), kubeapiserver.Port): "allowed",
	}
}

// Volume names and mount paths of a shoot's GRM (resource_manager.go).
const (
	rootCAVolume      = "root-ca"
	rootCADir         = "/etc/gardener-resource-manager-root-ca"
	bootstrapVolume   = "kubeconfig-bootstrap"
	genericVolumeName = "kubeconfig"
	bundleKey         = "bundle.crt"
	kubeconfigKey     = "kubeconfig"
	tokenKey          = "token"
	// defaultVolumeMode is 0644, the mode Gardener gives the GRM's volumes (420).
	defaultVolumeMode = int32(0o644)
)

// bootstrapServer is where the bootstrap kubeconfig reaches the shoot's API server: its Service in
// the same namespace (ComputeInClusterAPIServerAddress(true) in pkg/gardenlet/operation/shoot).
const bootstrapServer = "https://kube-apiserver"

// bootstrapKubeconfig is the Secret with the bootstrap kubeconfig: the client certificate
// BootstrapCertificateSecretName for the shoot's API server, trusting the cluster CA, all named
// after the control-plane namespace (reconcileGardenerResourceManagerBootstrapKubeconfigSecret in
// pkg/component/shared/resourcemanager.go). The certificate and key reach it as generated-secret
// markers, which the engine fills in; Gardener's secrets manager writes certificate and kubeconfig
// into one Secret.
func bootstrapKubeconfig(v Values) (*corev1.Secret, error) {
	s := v.Shoot
	ref := func(secret, key string) string { return render.GeneratedRef(v.Namespace, secret, key, true) }
	kubeconfig, err := kube.CertificateKubeconfig(v.Namespace, bootstrapServer, ref(s.CASecretName, render.DataKeyCACert),
		ref(BootstrapCertificateSecretName, render.DataKeyCert), ref(BootstrapCertificateSecretName, render.DataKeyKey))
	if err != nil {
		return nil, fmt.Errorf("bootstrap kubeconfig: %w", err)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: BootstrapKubeconfigSecretName, Namespace: v.Namespace, Labels: labels(v)},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{kubeconfigKey: kubeconfig},
	}, nil
}

// shootVolumes are the volumes of a shoot's GRM besides the runtime's: the cluster CA as the root
// CA, and where the generic kubeconfig would be, either the generic kubeconfig with the GRM's token
// or, while it bootstraps, the bootstrap kubeconfig. The engine's CA Secret holds the CA's key
// too; only its certificate is mounted, under the name of Gardener's bundle.
func shootVolumes(s *ShootTarget) ([]corev1.Volume, []corev1.VolumeMount) {
	volumes := []corev1.Volume{{Name: rootCAVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName:  s.CASecretName,
		Items:       []corev1.KeyToPath{{Key: render.DataKeyCACert, Path: bundleKey}},
		DefaultMode: ptr.To(defaultVolumeMode),
	}}}}
	mounts := []corev1.VolumeMount{{Name: rootCAVolume, MountPath: rootCADir, ReadOnly: true}}
	if s.Bootstrap {
		volumes = append(volumes, corev1.Volume{Name: bootstrapVolume, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName:  BootstrapKubeconfigSecretName,
			DefaultMode: ptr.To(defaultVolumeMode),
		}}})
		return volumes, append(mounts, corev1.VolumeMount{Name: bootstrapVolume, MountPath: GenericKubeconfigDir, ReadOnly: true})
	}
	secret := func(name, key string) corev1.VolumeProjection {
		return corev1.VolumeProjection{Secret: &corev1.SecretProjection{
			LocalObjectReference: corev1.LocalObjectReference{Name: name},
			Items:                []corev1.KeyToPath{{Key: key, Path: key}},
			Optional:             ptr.To(false),
		}}
	}
	volumes = append(volumes, corev1.Volume{Name: genericVolumeName, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To(defaultVolumeMode),
		Sources:     []corev1.VolumeProjection{secret(s.GenericKubeconfigSecretName, kubeconfigKey), secret(s.AccessSecretName, tokenKey)},
	}}})
	return volumes, append(mounts, corev1.VolumeMount{Name: genericVolumeName, MountPath: GenericKubeconfigDir, ReadOnly: true})
}
