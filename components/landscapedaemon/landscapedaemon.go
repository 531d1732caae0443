// Package landscapedaemon renders the landscape_daemon component: `gardener daemon` deployed into
// the garden runtime cluster, so that a landscape can run its own controller (docs/daemon.md): a
// ServiceAccount with RBAC limited by name to its leader election Lease, status and landscape
// ConfigMaps and state, and as given for the objects it manages; a Role for approvers, which the
// daemon does not have; the landscape's files as a ConfigMap mounted at /landscape; and a
// Deployment of leader-electing replicas with authenticated metrics and health probes.
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
	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/state"
)

// Ports of the daemon: Prometheus metrics (HTTPS, for clients the API server authenticates and
// authorizes) and the health probes.
const (
	MetricsPort = 8443
	ProbePort   = 8081
)

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is where the daemon runs (the garden runtime cluster).
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of the daemon, its Lease, landscape and status ConfigMaps and approvals.
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
	// VariablesSecret names a Secret whose keys set input variables as sensitive values
	// (GARDENER_SENSITIVE_VAR_<key>, read by the kubelet): secrets stay out of the Deployment.
	VariablesSecret string `json:"variables_secret"`
	// ShardBySeed runs the daemon sharded (--shard-by-seed); SeedShards are its seed shards
	// (instance addresses of seed blocks), whose status ConfigMaps the component renders and
	// whose objects the Roles name.
	ShardBySeed bool     `json:"shard_by_seed"`
	SeedShards  []string `json:"seed_shards"`
	// Approvers may approve the daemon's destructive plans; MetricsReaders may scrape /metrics.
	Approvers      []Subject `json:"approvers"`
	MetricsReaders []Subject `json:"metrics_readers"`
	// Landscape is the name of the landscape the daemon runs (render.Input.Landscape): it names
	// the state's head Secret and lock Lease, which the daemon's Role names.
	Landscape string `json:"-"`
}

// Rule is one RBAC policy rule.
type Rule struct {
	APIGroups []string `json:"api_groups"`
	Resources []string `json:"resources"`
	Verbs     []string `json:"verbs"`
}

// Subject is an RBAC subject: a user, a group or a service account.
type Subject struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// Type is the landscape_daemon component type as the catalog registers it: its schema (schema.go)
// and its render function.
var Type = component.Define(typeSchema, renderDaemon)

// renderDaemon renders the daemon of the landscape being rendered.
func renderDaemon(in render.Input, v Values) (*render.Output, error) {
	v.Landscape = in.Landscape
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs}, nil
}

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
	if v.Landscape == "" {
		return fmt.Errorf("landscape daemon %s: the landscape's name is unknown", v.Name)
	}
	if len(v.SeedShards) > 0 && !v.ShardBySeed {
		return fmt.Errorf("landscape daemon %s: seed_shards names the shards of a sharded daemon; set shard_by_seed = true", v.Name)
	}
	for _, s := range v.SeedShards {
		if a, err := address.Parse(s); err != nil || a.Kind != schema.KindSeed || a.IsPart() {
			return fmt.Errorf("landscape daemon %s: seed_shards: %q is not the address of a seed block instance, such as seed.eu1 or seed.all[\"eu1\"]", v.Name, s)
		}
	}
	for _, s := range append(slices.Clone(v.Approvers), v.MetricsReaders...) {
		if (s.Kind == rbacv1.ServiceAccountKind) != (s.Namespace != "") {
			return fmt.Errorf("landscape daemon %s: %s %s: a namespace is required for a ServiceAccount and only for one", v.Name, s.Kind, s.Name)
		}
	}
	return nil
}

// approvalSuffix names the approval ConfigMap after the status ConfigMap, as the daemon does
// (engine/daemon.ApprovalSuffix; a test keeps them equal without this package importing the
// daemon).
const approvalSuffix = "-approval"

// names are the objects the daemon's rights are limited to. The status, approvals, state heads
// and locks are those of every shard, the garden shard's (an unsharded daemon's) first.
type names struct {
	landscape, lease       string
	status, approval       []string
	stateHeads, stateLocks []string
}

func (v Values) names() names {
	n := names{landscape: v.Name + "-landscape", lease: v.Name}
	shards := append([]string{state.GardenShard}, v.SeedShards...)
	for _, shard := range shards {
		// As the daemon names them (daemon.StatusName): <status-name>-<shard slug>.
		status := v.Name + "-status"
		if shard != state.GardenShard {
			status += "-" + state.ShardSlug(shard)
		}
		n.status = append(n.status, status)
		n.approval = append(n.approval, status+approvalSuffix)
		n.stateHeads = append(n.stateHeads, state.ShardHeadName(v.Landscape, shard))
		n.stateLocks = append(n.stateLocks, state.ShardLockName(v.Landscape, shard))
	}
	return n
}

// Objects renders the daemon.
func Objects(v Values) ([]render.Object, error) {
	if err := v.resolve(); err != nil {
		return nil, err
	}
	n := v.names()
	labels := map[string]string{"app.kubernetes.io/name": "gardener-daemon", "app.kubernetes.io/instance": v.Name}
	meta := metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name, Labels: labels}
	stateMeta := metav1.ObjectMeta{Namespace: v.StateNamespace, Name: v.Name + "-state", Labels: labels}
	approverMeta := metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name + "-approver", Labels: labels}
	self := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: v.Namespace, Name: v.Name}}
	files := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: v.Namespace, Name: n.landscape, Labels: labels}, Data: v.Files}
	// The status ConfigMaps (one per shard, sharded) are rendered (empty; the daemon writes
	// their data), so that the daemon needs no right to create ConfigMaps: it could otherwise
	// create its own approvals.
	var statuses []runtime.Object
	for _, name := range n.status {
		statuses = append(statuses, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: v.Namespace, Name: name, Labels: labels}})
	}
	// The Leases a daemon writes: its leader election Lease; sharded, the elections of the seed
	// shards and the replicas' announcements (<name>-replica-<hash of the pod's identity>), whose
	// names no rule can know beforehand, and which it lists: every Lease of its namespace.
	leases := rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{n.lease}, Verbs: []string{"get", "update", "patch"}}
	if v.ShardBySeed {
		leases = rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "list", "update", "patch", "delete"}}
	}
	objs := []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)},
		// Its own bookkeeping, in its namespace only and on its own objects by name: the leader
		// election Lease, the status ConfigMap, the landscape's files (which it applies as part
		// of the landscape), reading (never writing) the approval, and Events. RBAC cannot
		// limit create by name: creating Leases (leader election makes its Lease) and Events is
		// granted as such, ConfigMaps not at all.
		&rbacv1.Role{ObjectMeta: meta, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
			leases,
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: append(slices.Clone(n.status), n.landscape), Verbs: []string{"get", "update", "patch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: n.approval, Verbs: []string{"get"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: meta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: v.Name},
			Subjects: self},
		// The kubernetes state backend (state/kubernetes.go): the head Secret and the lock
		// Lease have names RBAC can know, so writing the head and the lock is limited to them
		// (the head is watched by name, too). The further chunks of a large state are named
		// after a random write ID, so that a writer that dies half-way never damages the set a
		// reader follows: reading, listing (old chunks are found by label) and deleting Secrets
		// cannot be limited by name, which is why the state lives in a namespace of its own.
		&rbacv1.Role{ObjectMeta: stateMeta, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "create", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: n.stateHeads, Verbs: []string{"watch", "update", "patch"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: n.stateLocks, Verbs: []string{"get", "update", "patch", "delete"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: stateMeta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: stateMeta.Name},
			Subjects: self},
		// Approving is creating or changing the approval ConfigMap, which the daemon may only
		// read; approvers may also read the status to find the plan's hash. Create cannot be
		// limited by name: approvers may create other ConfigMaps in the namespace, but change
		// none of the daemon's.
		&rbacv1.Role{ObjectMeta: approverMeta, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: n.approval, Verbs: []string{"get", "update", "patch", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: n.status, Verbs: []string{"get"}},
		}},
		// /metrics authenticates its clients with TokenReviews and authorizes them with
		// SubjectAccessReviews, which the built-in system:auth-delegator grants.
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(v, "auth-delegator"), Labels: labels},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
			Subjects: self},
		// What a client needs to scrape /metrics.
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(v, "metrics-reader"), Labels: labels},
			Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}},
		files,
	}
	objs = append(objs, statuses...)
	objs = append(objs,
		&corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{
			Selector: labels,
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort), Protocol: corev1.ProtocolTCP}},
		}},
		deployment(v, meta, labels),
	)
	if len(v.Approvers) > 0 {
		objs = append(objs, &rbacv1.RoleBinding{ObjectMeta: approverMeta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: approverMeta.Name},
			Subjects: subjects(v.Approvers)})
	}
	if len(v.MetricsReaders) > 0 {
		name := clusterRoleName(v, "metrics-reader")
		objs = append(objs, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects: subjects(v.MetricsReaders)})
	}
	switch {
	case v.ClusterAdmin:
		objs = append(objs, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(v, ""), Labels: labels},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: self})
	case len(v.ClusterRules) > 0:
		var rules []rbacv1.PolicyRule
		for _, r := range v.ClusterRules {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs})
		}
		objs = append(objs,
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(v, ""), Labels: labels}, Rules: rules},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterRoleName(v, ""), Labels: labels},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRoleName(v, "")},
				Subjects: self})
	}
	if v.Replicas > 1 {
		objs = append(objs, disruption.Budget(v.Namespace, v.Name, labels))
	}
	return kube.Typed(v.Cluster.Name, objs...)
}

// clusterRoleName names the daemon's cluster-wide RBAC objects, suffix "" for the rights on
// what the landscape manages.
func clusterRoleName(v Values, suffix string) string {
	name := "gardener.cloud:" + v.Namespace + ":" + v.Name
	if suffix != "" {
		name += ":" + suffix
	}
	return name
}

func subjects(in []Subject) []rbacv1.Subject {
	out := make([]rbacv1.Subject, 0, len(in))
	for _, s := range in {
		sub := rbacv1.Subject{Kind: s.Kind, Name: s.Name, Namespace: s.Namespace}
		if s.Kind != rbacv1.ServiceAccountKind {
			sub.APIGroup = rbacv1.GroupName
		}
		out = append(out, sub)
	}
	return out
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
	if v.ShardBySeed {
		args = append(args, "--shard-by-seed")
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
	var envFrom []corev1.EnvFromSource
	if v.VariablesSecret != "" {
		// The kubelet reads the Secret: its values never appear in the Deployment, and the
		// daemon needs no right to read it.
		envFrom = append(envFrom, corev1.EnvFromSource{Prefix: schema.SensitiveVariableEnvPrefix,
			SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: v.VariablesSecret}}})
	}
	if v.KubeconfigSecret != "" {
		volumes = append(volumes, corev1.Volume{Name: "kubeconfigs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: v.KubeconfigSecret}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "kubeconfigs", MountPath: "/kubeconfigs", ReadOnly: true})
		// The daemon runs confined; the mounted kubeconfigs are the operator's, not the
		// landscape's, and cluster blocks may name them (docs/security.md).
		args = append(args, "--kubeconfig-dir=/kubeconfigs")
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
					Name: "gardener", Image: v.Image, Args: args, Env: env, EnvFrom: envFrom, VolumeMounts: mounts,
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
