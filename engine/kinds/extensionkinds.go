package kinds

// The kinds of extensions.gardener.cloud by which ControllerRegistrations register extension
// types and Gardener decides what a Seed or Shoot requires of them (Gardener's "Extensions"
// docs/api-reference/extensions.md, ControllerResource in docs/api-reference/core.md): the
// extension component's port of gardener-controller-manager's installation rule and the
// admission checks of what a landscape registers name them alike.
const (
	BackupBucketKind          = "BackupBucket"
	BackupEntryKind           = "BackupEntry"
	ContainerRuntimeKind      = "ContainerRuntime"
	ControlPlaneKind          = "ControlPlane"
	DNSRecordKind             = "DNSRecord"
	ExtensionKind             = "Extension"
	InfrastructureKind        = "Infrastructure"
	NetworkKind               = "Network"
	OperatingSystemConfigKind = "OperatingSystemConfig"
	WorkerKind                = "Worker"
)
