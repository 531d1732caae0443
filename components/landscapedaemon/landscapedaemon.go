// Package landscapedaemon renders the landscape_daemon component: `gardener daemon` deployed into
// the garden runtime cluster, so that a landscape can run its own controller (docs/cli.md,
// "gardener daemon"): a ServiceAccount with RBAC for its leader election Lease, status ConfigMap
// and Events and for the objects it manages, the landscape's files as a ConfigMap mounted at
// /landscape, and a Deployment of leader-electing replicas with metrics and health probes.
package landscapedaemon

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/disruption"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Ports of the daemon: Prometheus metrics and the health probes.
const (
	MetricsPort = 8080
	ProbePort   = 8081
)

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is where the daemon runs (the garden runtime cluster).
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of the daemon, its Lease and status ConfigMap.
	Namespace string `json:"namespace"`
	// Name of the Deployment and the objects around it.
	Name string `json:"name"`
	// Image is the gardener image (the repository's Dockerfile builds it).
	Image string `json:"image"`
	// Replicas: one acts, the others stand by to take over.
	Replicas int `json:"replicas"`
	// Policy, Resync: the daemon's --policy and --resync; "" for its defaults.
	Policy string `json:"policy"`
	Resync string `json:"resync"`
	// Files are the landscape's files by name (HCL and what it reads), put into a ConfigMap.
	Files map[string]string `json:"files"`
	// KubeconfigSecret names a Secret with kubeconfigs for the landscape's other clusters,
	// mounted at /kubeconfigs; cluster blocks refer to them by path.
	KubeconfigSecret string `json:"kubeconfig_secret"`
	// ClusterRules are the permissions the daemon needs on the objects the landscape manages
	// in this cluster; ClusterAdmin grants all instead.
	ClusterRules []Rule `json:"cluster_rules"`
	ClusterAdmin bool   `json:"cluster_admin"`
	// StateNamespace is where the landscape keeps its state (its state block's namespace); ""
	// means Namespace. The daemon gets the rights the kubernetes state backend needs there.
	StateNamespace string `json:"state_namespace"`
	// Variables set the landscape's input variables in the daemon (GARDENER_VAR_<name>), such
	// as in_cluster = "true" for cluster blocks that use the Pod's service account there.
	Variables map[string]string `json:"variables"`
}

// Rule is one RBAC policy rule.
type Rule struct {
	APIGroups []string `json:"api_groups"`
	Resources []string `json:"resources"`
	Verbs     []string `json:"verbs"`
}

// Type is the landscape_daemon component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// resolve applies the default that depends on another value, the state namespace, and checks
// the values.
func (v *Values) resolve() error {
	if v.StateNamespace == "" {
		v.StateNamespace = v.Namespace
	}
	if v.Image == "" {
		return fmt.Errorf("landscape daemon %s: image is required", v.Name)
	}
	if len(v.Files) == 0 {
		return fmt.Errorf("landscape daemon %s: files holds no landscape", v.Name)
	}
	if v.ClusterAdmin && len(v.ClusterRules) > 0 {
		return fmt.Errorf("landscape daemon %s: cluster_admin grants everything; drop cluster_rules or cluster_admin", v.Name)
	}
	// A Deployment counts replicas in 32 bits: a larger number would wrap around to another.
	if v.Replicas > math.MaxInt32 {
		return fmt.Errorf("landscape daemon %s: replicas %d is more than a Deployment can run (%d)", v.Name, v.Replicas, math.MaxInt32)
	}
	return nil
}

// Objects renders the daemon.
func Objects(v Values) ([]render.Object, error) {
	if err := v.resolve(); err != nil {
		return nil, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "gardener-daemon", "app.kubernetes.io/instance": v.Name}
	meta := metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name, Labels: labels}
	stateMeta := metav1.ObjectMeta{Namespace: v.StateNamespace, Name: v.Name + "-state", Labels: labels}
	files := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name + "-landscape", Labels: labels}, Data: v.Files}
	objs := []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)},
		// Its own bookkeeping, in its namespace only: the leader election Lease, the status
		// ConfigMap (with approvals), Events on it.
		&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: meta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: v.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: v.Name}}},
		// The kubernetes state backend: the state's Secrets (a head and chunks, listed by label
		// to collect old chunks, the head watched) and the state lock's Lease.
		&rbacv1.Role{ObjectMeta: stateMeta, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update", "patch", "delete"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: stateMeta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: stateMeta.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: v.Name}}},
		files,
		&corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort), Protocol: corev1.ProtocolTCP}},
		}},
		deployment(v, meta, labels),
	}
	clusterRoleName := "gardener.cloud:" + v.Namespace + ":" + v.Name
	switch {
	case v.ClusterAdmin:
		objs = append(objs, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName, Labels: labels},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: v.Name}}})
	case len(v.ClusterRules) > 0:
		var rules []rbacv1.PolicyRule
		for _, r := range v.ClusterRules {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs})
		}
		objs = append(objs,
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName, Labels: labels}, Rules: rules},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName, Labels: labels},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRoleName},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: v.Name}}})
	}
	if v.Replicas > 1 {
		objs = append(objs, disruption.Budget(v.Namespace, v.Name, labels))
	}
	return kube.Typed(v.Cluster.Name, objs...)
}

// deployment runs the daemon: leader-electing replicas spread over nodes, non-root with a
// read-only root file system (snapshots of the landscape and discovery caches go to /tmp).
func deployment(v Values, meta metav1.ObjectMeta, labels map[string]string) *appsv1.Deployment {
	args := []string{"daemon", "--landscape=/landscape", "--status-namespace=" + v.Namespace, "--leader-election-id=" + v.Name,
		"--status-name=" + v.Name + "-status", "--metrics-bind-address=:" + strconv.Itoa(MetricsPort), "--health-probe-bind-address=:" + strconv.Itoa(ProbePort)}
	if v.Policy != "" {
		args = append(args, "--policy="+v.Policy)
	}
	if v.Resync != "" {
		args = append(args, "--resync="+v.Resync)
	}
	volumes := []corev1.Volume{
		{Name: "landscape", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: v.Name + "-landscape"}}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	mounts := []corev1.VolumeMount{{Name: "landscape", MountPath: "/landscape", ReadOnly: true}, {Name: "tmp", MountPath: "/tmp"}}
	env := []corev1.EnvVar{{Name: "HOME", Value: "/tmp"}}
	for _, name := range slices.Sorted(maps.Keys(v.Variables)) {
		env = append(env, corev1.EnvVar{Name: schema.VariableEnvPrefix + name, Value: v.Variables[name]})
	}
	if v.KubeconfigSecret != "" {
		volumes = append(volumes, corev1.Volume{Name: "kubeconfigs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: v.KubeconfigSecret}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "kubeconfigs", MountPath: "/kubeconfigs", ReadOnly: true})
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(ProbePort)}}, PeriodSeconds: 10}
	}
	// A changed landscape reaches the pods through the mounted ConfigMap, which the daemon
	// watches, so its contents are not part of the pod template and do not restart pods.
	return &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{
		Replicas:             ptr.To(int32(v.Replicas)), // #nosec G115 -- resolve refuses more replicas than int32 holds
		RevisionHistoryLimit: ptr.To(int32(2)),
		Selector:             &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{
				ServiceAccountName: v.Name,
				SecurityContext:    kube.NonRootPod(65532),
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway,
					LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
				}},
				// A leader that is stopped finishes its cycle's writes first (--shutdown-grace).
				TerminationGracePeriodSeconds: ptr.To(int64(330)),
				Containers: []corev1.Container{{
					Name: "gardener", Image: v.Image, Args: args, Env: env, VolumeMounts: mounts,
					Ports: []corev1.ContainerPort{
						{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
						{Name: "probes", ContainerPort: ProbePort, Protocol: corev1.ProtocolTCP},
					},
					LivenessProbe: probe("/healthz"), ReadinessProbe: probe("/readyz"),
					SecurityContext: kube.UnprivilegedReadOnly(),
				}},
				Volumes: volumes,
			},
		},
	}}
}
