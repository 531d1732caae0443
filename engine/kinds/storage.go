package kinds

// storage holds StorageClasses, before the claims that name them, and the CSI objects
// (kubernetes/pkg/apis/storage/validation as of Kubernetes 1.37).
var storage = Group{
	Name:    "storage.k8s.io",
	Builtin: true,
	Kinds: []Rules{
		{
			Kind: "StorageClass", Scope: Cluster, Apply: Classes,
			Immutable: []ImmutableField{
				{Path: ".provisioner"},
				{Path: ".parameters"},
				{Path: ".reclaimPolicy"},
				{Path: ".volumeBindingMode"},
			},
		},
		{Kind: "CSIDriver", Scope: Cluster},
		{Kind: "CSINode", Scope: Cluster},
		{Kind: "VolumeAttachment", Scope: Cluster},
		{Kind: "VolumeAttributesClass", Scope: Cluster},
	},
}
