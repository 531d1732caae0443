package kinds

import "strings"

// core is the core group ("v1"). Immutable fields follow the update validation of
// kubernetes/pkg/apis/core/validation as of Kubernetes 1.37.
var core = Group{
	Name:    "",
	Builtin: true,
	Kinds: []Rules{
		{
			Kind: "Namespace", Scope: Cluster, Apply: Namespaces, Readiness: NamespaceActive,
			Protected: holdsControlPlaneOrProject,
		},
		{Kind: "Node", Scope: Cluster},
		{Kind: "PersistentVolume", Scope: Cluster},
		{Kind: "ComponentStatus", Scope: Cluster},
		{Kind: "ResourceQuota", Apply: Quotas},
		{Kind: "LimitRange", Apply: Quotas},
		{Kind: "ServiceAccount", Apply: Identities},
		{
			Kind: "Secret", Apply: Configuration, SecretData: true,
			Immutable: []ImmutableField{
				{Path: ".data", When: LiveImmutable},
				{Path: ".immutable", When: LiveImmutable},
				{Path: ".type"},
			},
		},
		{
			Kind: "ConfigMap", Apply: Configuration,
			Immutable: []ImmutableField{
				{Path: ".data", When: LiveImmutable},
				{Path: ".binaryData", When: LiveImmutable},
				{Path: ".immutable", When: LiveImmutable},
			},
		},
		{
			Kind: "PersistentVolumeClaim", Apply: Volumes, Readiness: PVCBound,
			// Deleting a claim deletes the volume's data with a Delete reclaim policy.
			Protected: always,
			Immutable: []ImmutableField{
				{Path: ".spec", Except: []string{".spec.resources.requests", ".spec.volumeAttributesClassName"}},
			},
		},
		{
			Kind: "Service", Apply: Services, Readiness: ServiceReady,
			// The cluster IP may be left to the server to allocate; only a change of an
			// allocated one is refused.
			Immutable: []ImmutableField{
				{Path: ".spec.clusterIP", When: BothSet},
				{Path: ".spec.clusterIPs[0]", When: BothSet},
			},
		},
		{Kind: "Endpoints"},
		{Kind: "Pod", Readiness: PodReady},
	},
}

// holdsControlPlaneOrProject protects the Namespaces of control planes (shoot--*, garden) and of
// projects (garden-*, Gardener's "APIServer Admission Plugins"
// docs/concepts/apiserver-admission-plugins.md), which hold the project's credentials: deleting
// one deletes everything in it.
func holdsControlPlaneOrProject(name string) bool {
	return strings.HasPrefix(name, "shoot--") || name == "garden" || strings.HasPrefix(name, "garden-")
}
