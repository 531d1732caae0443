package landscapedaemon

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/state"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// defaults are the schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster": rendertest.Cluster("runtime"),
	"image":   cty.StringVal("registry.example.com/gardener:v0.2.0"),
	"files":   cty.MapVal(map[string]cty.Value{"main.hcl": cty.StringVal("landscape \"l\" {}\n")}),
}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rule := cty.ObjectVal(map[string]cty.Value{
		"api_groups": cty.ListVal([]cty.Value{cty.StringVal("")}),
		"resources":  cty.ListVal([]cty.Value{cty.StringVal("configmaps"), cty.StringVal("namespaces")}),
		"verbs":      cty.ListVal([]cty.Value{cty.StringVal("get"), cty.StringVal("list"), cty.StringVal("watch"), cty.StringVal("patch"), cty.StringVal("delete")}),
	})
	subject := func(kind, name, namespace string) cty.Value {
		ns := cty.NullVal(cty.String)
		if namespace != "" {
			ns = cty.StringVal(namespace)
		}
		return cty.ObjectVal(map[string]cty.Value{"kind": cty.StringVal(kind), "name": cty.StringVal(name), "namespace": ns})
	}
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "landscape_daemon", Landscape: "prod"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"rules-single-replica": rendertest.Config(defaults, map[string]cty.Value{
			"replicas": cty.NumberIntVal(1), "policy": cty.StringVal("auto"), "resync": cty.StringVal("5m"),
			"kubeconfig_secret": cty.StringVal("landscape-kubeconfigs"),
			"state_namespace":   cty.StringVal("landscape-state"),
			"variables":         cty.MapVal(map[string]cty.Value{"in_cluster": cty.StringVal("true"), "env": cty.StringVal("prod")}),
			"cluster_rules":     cty.ListVal([]cty.Value{rule}),
			"variables_secret":  cty.StringVal("landscape-secrets"),
			"approvers":         cty.ListVal([]cty.Value{subject("Group", "landscape-operators", ""), subject("User", "alice@example.com", "")}),
			"metrics_readers":   cty.ListVal([]cty.Value{subject("ServiceAccount", "prometheus", "monitoring")}),
		}),
		"sharded": rendertest.Config(defaults, map[string]cty.Value{
			"shard_by_seed": cty.True,
			"seed_shards":   cty.ListVal([]cty.Value{cty.StringVal("seed.eu1"), cty.StringVal(`seed.all["eu2"]`)}),
			"approvers":     cty.ListVal([]cty.Value{subject("Group", "landscape-operators", "")}),
		}),
	})
}

func objects(t *testing.T, v Values) map[string]*unstructured.Unstructured {
	t.Helper()
	v.Cluster, v.Landscape = decode.Cluster{Name: "runtime"}, "prod"
	objs, err := Objects(v)
	require.NoError(t, err)
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		out[o.Object.GetKind()+"/"+o.Object.GetName()] = o.Object
	}
	return out
}

func TestDaemonDeployment(t *testing.T) {
	objs := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}}))
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["Deployment/gardener-daemon"].Object, &d))
	assert.Equal(t, int32(2), *d.Spec.Replicas, "one acts, one stands by")
	c := d.Spec.Template.Spec.Containers[0]
	assert.Contains(t, c.Args, "--landscape=/landscape")
	assert.Contains(t, c.Args, "--leader-election-id=gardener-daemon")
	assert.Contains(t, c.Args, "--status-namespace=gardener-daemon", "a namespace of its own")
	assert.Contains(t, c.Args, "--metrics-bind-address=:8443")
	assert.True(t, *d.Spec.Template.Spec.SecurityContext.RunAsNonRoot)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.Contains(t, objs, "PodDisruptionBudget/gardener-daemon")
	assert.Contains(t, objs, "ConfigMap/gardener-daemon-landscape")
	assert.Equal(t, "gardener-daemon", objs["Role/gardener-daemon-state"].GetNamespace(), "the state backend's rights, in the daemon's namespace by default")
	assert.NotContains(t, objs, "ClusterRoleBinding/gardener.cloud:gardener-daemon:gardener-daemon", "no cluster-wide rights unless asked for")
	assert.Contains(t, objs, "ConfigMap/gardener-daemon-status", "rendered, so that the daemon needs no right to create ConfigMaps")

	admin := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}, ClusterAdmin: true}))
	var crb rbacv1.ClusterRoleBinding
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(admin["ClusterRoleBinding/gardener.cloud:gardener-daemon:gardener-daemon"].Object, &crb))
	assert.Equal(t, "cluster-admin", crb.RoleRef.Name)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		v    Values
		want string
	}{
		{values(Values{Files: map[string]string{"a": "b"}}), "image is required"},
		{values(Values{Image: "i"}), "files holds no landscape"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, ClusterAdmin: true, ClusterRules: []Rule{{Verbs: []string{"get"}}}}), "drop cluster_rules or cluster_admin"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, Replicas: 1<<32 + 2}), "replicas 4294967298 is more than a Deployment can run"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, Approvers: []Subject{{Kind: "ServiceAccount", Name: "ci"}}}), "ServiceAccount ci: a namespace is required"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, MetricsReaders: []Subject{{Kind: "Group", Name: "g", Namespace: "x"}}}), "Group g: a namespace is required for a ServiceAccount and only for one"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, SeedShards: []string{"seed.eu1"}}), "seed_shards names the shards of a sharded daemon; set shard_by_seed = true"},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, ShardBySeed: true, SeedShards: []string{"eu1"}}), `seed_shards: "eu1" is not the address of a seed block instance`},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, ShardBySeed: true, SeedShards: []string{"shoot.dev"}}), `"shoot.dev" is not the address of a seed block instance`},
		{values(Values{Image: "i", Files: map[string]string{"a": "b"}, ShardBySeed: true, SeedShards: []string{"seed.eu1.gardenlet"}}), `"seed.eu1.gardenlet" is not the address of a seed block instance`},
	} {
		tc.v.Landscape = "prod"
		_, err := Objects(tc.v)
		assert.ErrorContains(t, err, tc.want)
	}
}

func role(t *testing.T, objs map[string]*unstructured.Unstructured, name string) rbacv1.Role {
	t.Helper()
	var r rbacv1.Role
	require.Contains(t, objs, "Role/"+name)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["Role/"+name].Object, &r))
	return r
}

// allows reports whether rules grant verb on a resource of the core or coordination group named
// name ("" for a request that names none, such as create).
func allows(rules []rbacv1.PolicyRule, resource, verb, name string) bool {
	for _, r := range rules {
		if !slices.Contains(r.Resources, resource) || !slices.Contains(r.Verbs, verb) {
			continue
		}
		if len(r.ResourceNames) == 0 || (name != "" && slices.Contains(r.ResourceNames, name)) {
			return true
		}
	}
	return false
}

// The daemon's rights on ConfigMaps, Secrets and Leases name the objects they are for, except
// what RBAC cannot limit by name (create) and the state's chunks, whose names no rule can know;
// the approval is the approvers' to write, never the daemon's.
func TestRightsAreLimitedByName(t *testing.T) {
	objs := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}, Approvers: []Subject{{Kind: "Group", Name: "ops"}}}))
	own := role(t, objs, "gardener-daemon")
	stateRole := role(t, objs, "gardener-daemon-state")
	approver := role(t, objs, "gardener-daemon-approver")
	tests := []struct {
		name                      string
		rules                     []rbacv1.PolicyRule
		resource, verb, resource2 string
		want                      bool
	}{
		{"the daemon writes its status", own.Rules, "configmaps", "update", "gardener-daemon-status", true},
		{"and its landscape's files", own.Rules, "configmaps", "patch", "gardener-daemon-landscape", true},
		{"but no other ConfigMap", own.Rules, "configmaps", "update", "other", false},
		{"and creates none", own.Rules, "configmaps", "create", "", false},
		{"it reads the approval", own.Rules, "configmaps", "get", "gardener-daemon-status-approval", true},
		{"it cannot approve", own.Rules, "configmaps", "update", "gardener-daemon-status-approval", false},
		{"nor delete an approval", own.Rules, "configmaps", "delete", "gardener-daemon-status-approval", false},
		{"it renews its leader election Lease", own.Rules, "leases", "update", "gardener-daemon", true},
		{"and no other Lease", own.Rules, "leases", "update", "other", false},
		{"it writes the state's head", stateRole.Rules, "secrets", "update", "gardener-state-prod", true},
		{"and watches it by name", stateRole.Rules, "secrets", "watch", "gardener-state-prod", true},
		{"but overwrites no other Secret", stateRole.Rules, "secrets", "update", "kubeconfigs", false},
		{"nor watches one", stateRole.Rules, "secrets", "watch", "kubeconfigs", false},
		{"it reads chunks, whose names carry a random write ID", stateRole.Rules, "secrets", "get", "gardener-state-prod-1a2b3c4d-1", true},
		{"it takes the state lock", stateRole.Rules, "leases", "update", "gardener-lock-prod", true},
		{"and no other Lease there", stateRole.Rules, "leases", "update", "gardener-daemon", false},
		{"approvers create the approval", approver.Rules, "configmaps", "create", "", true},
		{"and replace an earlier one", approver.Rules, "configmaps", "update", "gardener-daemon-status-approval", true},
		{"and read the status for the plan's hash", approver.Rules, "configmaps", "get", "gardener-daemon-status", true},
		{"but do not write the status", approver.Rules, "configmaps", "update", "gardener-daemon-status", false},
		{"nor the landscape", approver.Rules, "configmaps", "update", "gardener-daemon-landscape", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, allows(tt.rules, tt.resource, tt.verb, tt.resource2))
		})
	}
	var binding rbacv1.RoleBinding
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["RoleBinding/gardener-daemon-approver"].Object, &binding))
	assert.Equal(t, []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "Group", Name: "ops"}}, binding.Subjects)
	for _, s := range binding.Subjects {
		assert.NotEqual(t, rbacv1.ServiceAccountKind, s.Kind, "the daemon is no approver")
	}
	assert.Equal(t, daemon.ApprovalSuffix, approvalSuffix, "the approval is named as the daemon reads it")
	assert.Equal(t, state.HeadName("prod"), "gardener-state-prod")
}

// A sharded daemon (shard_by_seed) gets what its shards need: every Lease of its namespace (the
// seed shards' elections and the replicas' announcements, named after the pods), and by name the
// status, approval, state head and lock of every shard in seed_shards, whose status ConfigMaps
// the component renders; it still creates no ConfigMap and writes no approval.
func TestShardedRightsAreLimitedByName(t *testing.T) {
	seeds := []string{"seed.eu1", `seed.all["eu2"]`}
	objs := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}, ShardBySeed: true, SeedShards: seeds,
		Approvers: []Subject{{Kind: "Group", Name: "ops"}}}))
	own := role(t, objs, "gardener-daemon")
	stateRole := role(t, objs, "gardener-daemon-state")
	approver := role(t, objs, "gardener-daemon-approver")
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["Deployment/gardener-daemon"].Object, &d))
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, "--shard-by-seed")
	type right struct {
		name                  string
		rules                 []rbacv1.PolicyRule
		resource, verb, name2 string
		want                  bool
	}
	tests := []right{
		{"the daemon lists the replicas' announcements", own.Rules, "leases", "list", "", true},
		{"and renews its own", own.Rules, "leases", "update", "gardener-daemon-replica-0a1b2c3d4e5f", true},
		{"it creates no ConfigMap", own.Rules, "configmaps", "create", "", false},
		{"nor writes another", own.Rules, "configmaps", "update", "other", false},
		{"the garden shard's status is the unsharded one", own.Rules, "configmaps", "update", "gardener-daemon-status", true},
		{"the garden shard's state is the landscape's", stateRole.Rules, "secrets", "update", "gardener-state-prod", true},
	}
	for _, seed := range seeds {
		status := daemon.StatusName("gardener-daemon-status", seed)
		require.Contains(t, objs, "ConfigMap/"+status, "rendered, so that the daemon needs no right to create ConfigMaps")
		tests = append(tests,
			right{seed + ": the shard's election", own.Rules, "leases", "update", daemon.ShardLeaseName("gardener-daemon", seed), true},
			right{seed + ": the daemon writes the shard's status", own.Rules, "configmaps", "update", status, true},
			right{seed + ": and reads its approval", own.Rules, "configmaps", "get", status + approvalSuffix, true},
			right{seed + ": but cannot approve", own.Rules, "configmaps", "update", status + approvalSuffix, false},
			right{seed + ": it writes the shard's state head", stateRole.Rules, "secrets", "update", state.ShardHeadName("prod", seed), true},
			right{seed + ": and watches it", stateRole.Rules, "secrets", "watch", state.ShardHeadName("prod", seed), true},
			right{seed + ": and takes its lock", stateRole.Rules, "leases", "update", state.ShardLockName("prod", seed), true},
			right{seed + ": approvers approve the shard's plans", approver.Rules, "configmaps", "update", status + approvalSuffix, true},
			right{seed + ": and read its status", approver.Rules, "configmaps", "get", status, true},
			right{seed + ": but do not write it", approver.Rules, "configmaps", "update", status, false},
		)
	}
	tests = append(tests,
		right{"no other Secret is overwritten", stateRole.Rules, "secrets", "update", "kubeconfigs", false},
		right{"nor another Lease of the state's namespace", stateRole.Rules, "leases", "update", "other", false},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, allows(tt.rules, tt.resource, tt.verb, tt.name2))
		})
	}
}

// /metrics is served over HTTPS to whom the API server authenticates and authorizes: the daemon
// may ask it (system:auth-delegator), and readers get GET /metrics.
func TestMetricsNeedAuthorization(t *testing.T) {
	objs := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"},
		MetricsReaders: []Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: "monitoring"}}}))
	var delegator rbacv1.ClusterRoleBinding
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["ClusterRoleBinding/gardener.cloud:gardener-daemon:gardener-daemon:auth-delegator"].Object, &delegator))
	assert.Equal(t, "system:auth-delegator", delegator.RoleRef.Name)
	var reader rbacv1.ClusterRole
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["ClusterRole/gardener.cloud:gardener-daemon:gardener-daemon:metrics-reader"].Object, &reader))
	assert.Equal(t, []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}, reader.Rules)
	var readers rbacv1.ClusterRoleBinding
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["ClusterRoleBinding/gardener.cloud:gardener-daemon:gardener-daemon:metrics-reader"].Object, &readers))
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: "monitoring"}}, readers.Subjects)
}

// Variables from a Secret reach the daemon through the kubelet, as sensitive variables: their
// values are not in the Deployment.
func TestVariablesFromASecret(t *testing.T) {
	objs := objects(t, values(Values{Image: "img", Files: map[string]string{"main.hcl": "x"}, VariablesSecret: "landscape-secrets",
		Variables: map[string]string{"in_cluster": "true"}}))
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs["Deployment/gardener-daemon"].Object, &d))
	c := d.Spec.Template.Spec.Containers[0]
	require.Len(t, c.EnvFrom, 1)
	assert.Equal(t, "GARDENER_SENSITIVE_VAR_", c.EnvFrom[0].Prefix)
	assert.Equal(t, "landscape-secrets", c.EnvFrom[0].SecretRef.Name)
	assert.Contains(t, c.Env, corev1.EnvVar{Name: "GARDENER_VAR_in_cluster", Value: "true"})
}
