package kinds

// gardenerCore is core.gardener.cloud, the Gardener API of the virtual garden.
//
// Its immutable fields come from Gardener's API reference (docs/api-reference/core.md); see
// ImmutableField. A field without condition refuses any change, adding and removing it included
// (the server compares old and new as a whole). BothSet is used where the field may legitimately
// appear later or disappear: Gardener fills it in when it is unset (a default, a generated name, a
// value taken from the seed), so a landscape that leaves it out must not be told that the
// filled-in value is about to be changed; or the reference says "once set". Only a change from
// one value to another is certain to be refused there.
//
// Left out on purpose, here and in the other Gardener groups: status fields (never applied); "the spec is immutable once the deletion
// timestamp is set" (Gardener's Shoot in docs/api-reference/core.md, ControllerInstallation in
// docs/api-reference/core.md, extension kinds), which concerns objects being deleted, not
// replacements; ControllerRegistration and operator Extension .spec.resources[].primary (Gardener's
// ControllerResource in docs/api-reference/core.md, "ControllerRegistration"
// docs/extensions/registration.md), whose list the stand-in serves as an atomic list, so an item
// matched by index after a reordering would look like a change of primary; the Shoot's HA and
// workerless transitions (Gardener's "Shoot High Availability"
// docs/usage/high-availability/shoot_high_availability.md, "Workerless Shoots"
// docs/usage/shoot/shoot_workerless.md), which are rules about values, not fields.
//
// Deleting a Shoot or Project needs the deletion confirmation (gardener-apiserver's
// DeletionConfirmation admission plugin, plugin/pkg/global/deletionconfirmation/admission.go in
// gardener/gardener at v1.120.0).
// gardenerFinalizer is gardenlet's finalizer on the Seeds and Shoots it reports on (GardenerName
// in pkg/apis/core/v1beta1/types_common.go at Gardener v1.120.0).
const gardenerFinalizer = "gardener"

var gardenerCore = Group{
	Name: "core.gardener.cloud",
	Kinds: []Rules{
		{
			// Resource Gardener's Shoot in docs/api-reference/core.md; ShootSpec Gardener's
			// ShootSpec in docs/api-reference/core.md.
			// gardenlet adds the finalizer "gardener" as the first write of a reconcile and removes
			// it once the Shoot's deletion succeeded (reconcileShoot and removeFinalizerFromShoot
			// in pkg/gardenlet/controller/shoot/shoot/reconciler.go at Gardener v1.120.0).
			Kind: "Shoot", Readiness: ShootReady, ConfirmDeletion: true, ReportFinalizer: gardenerFinalizer,
			Irreplaceable: &Irreplaceable{Loses: "delete the cluster", Instead: "declare a new shoot"},
			Immutable: []ImmutableField{
				{Path: ".spec.region"},        // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
				{Path: ".spec.provider.type"}, // Provider Gardener's Provider in docs/api-reference/core.md
				// The CNI type: required for a Shoot with workers; a workerless Shoot has none and
				// cannot get workers later (Gardener's docs/usage/shoot/shoot_workerless.md), so
				// adding or removing it is refused as well.
				{Path: ".spec.networking.type"}, // Networking Gardener's Networking in docs/api-reference/core.md
				// Pods and services CIDRs default to the seed's shootDefaults (Gardener's
				// SeedNetworks in docs/api-reference/core.md, "Deploy Gardenlet Manually"
				// docs/deployment/deploy_gardenlet_manually.md) when the landscape leaves them out;
				// both "cannot be changed afterwards" (Gardener's "Shoot Networking Configurations"
				// docs/usage/networking/shoot_networking.md).
				{Path: ".spec.networking.pods", When: BothSet},     // Gardener's Networking in docs/api-reference/core.md
				{Path: ".spec.networking.services", When: BothSet}, // Gardener's Networking in docs/api-reference/core.md
				// Defaults to ["IPv4"] (Gardener's Networking in docs/api-reference/core.md): a
				// landscape that stops setting it gets the default back.
				{Path: ".spec.networking.ipFamilies", When: BothSet}, // Gardener's Networking in docs/api-reference/core.md
				// The DNS admission plugin assigns a default domain to Shoots without one
				// (Gardener's "APIServer Admission Plugins"
				// docs/concepts/apiserver-admission-plugins.md, "DNS Record"
				// docs/extensions/resources/dnsrecord.md).
				{Path: ".spec.dns.domain", When: BothSet}, // DNS Gardener's DNS in docs/api-reference/core.md
				// Mutually exclusive with credentialsBindingName (Gardener's Shoot in
				// docs/api-reference/core.md): a Shoot moving from a SecretBinding to a
				// CredentialsBinding drops it, which an operator expects Gardener to allow (the
				// reference is silent); replacing one binding by another is refused.
				{Path: ".spec.secretBindingName", When: BothSet}, // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
				{Path: ".spec.exposureClassName"},                // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
				{Path: ".spec.schedulerName"},                    // Gardener's Shoot in docs/api-reference/core.md, ShootSpec in docs/api-reference/core.md
				// Defaults to 24 (Gardener's KubeControllerManagerConfig in
				// docs/api-reference/core.md, docs/usage/networking/shoot_networking.md).
				{Path: ".spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize", When: BothSet}, // Gardener's KubeControllerManagerConfig in docs/api-reference/core.md
				// High availability can be added to a control plane, but once set neither
				// removed nor switched between node and zone (Gardener's
				// docs/usage/high-availability/shoot_high_availability.md).
				{Path: ".spec.controlPlane", When: WasSet}, // its only field is highAvailability
			},
		},
		{
			// Resource Gardener's Seed in docs/api-reference/core.md; SeedSpec Gardener's SeedSpec
			// in docs/api-reference/core.md; SeedNetworks Gardener's SeedNetworks in
			// docs/api-reference/core.md.
			// gardenlet's seed reconciler keeps the finalizer "gardener" from the start of its
			// reconcile to the end of the seed's deletion (pkg/gardenlet/controller/seed/seed).
			Kind: "Seed", Scope: Cluster, Readiness: SeedReady, ReportFinalizer: gardenerFinalizer,
			Irreplaceable: &Irreplaceable{Loses: "delete the seed with the shoot control planes it hosts", Instead: "declare a new seed"},
			Immutable: []ImmutableField{
				{Path: ".spec.networks.pods"},     // Gardener's SeedNetworks in docs/api-reference/core.md
				{Path: ".spec.networks.services"}, // Gardener's SeedNetworks in docs/api-reference/core.md
				// Optional (Gardener's SeedNetworks in docs/api-reference/core.md): a seed may learn
				// its node network later.
				{Path: ".spec.networks.nodes", When: BothSet},      // Gardener's SeedNetworks in docs/api-reference/core.md
				{Path: ".spec.networks.ipFamilies", When: BothSet}, // default ["IPv4"], Gardener's SeedNetworks in docs/api-reference/core.md
				// Changing the object store's provider of an existing backup; adding backup to a
				// seed without one adds .spec.backup as a whole, which this rule does not match.
				{Path: ".spec.backup.provider"}, // SeedBackup Gardener's SeedBackup in docs/api-reference/core.md
				// Optional (Gardener's SeedBackup in docs/api-reference/core.md); an operator expects
				// the bucket in the seed's own region without it.
				{Path: ".spec.backup.region", When: BothSet}, // Gardener's SeedBackup in docs/api-reference/core.md
				// The reference calls the whole ingress immutable (Gardener's Seed in
				// docs/api-reference/core.md, SeedSpec in docs/api-reference/core.md) but its type
				// narrows it to the domain, "once set" (Gardener's Ingress in
				// docs/api-reference/core.md); the ingress controller's settings stay mutable, as
				// operators expect.
				{Path: ".spec.ingress.domain", When: BothSet}, // Gardener's Ingress in docs/api-reference/core.md
			},
		},
		{
			// A Project's deletion deletes its namespace with every binding and Secret in
			// it. Gardener generates the namespace when it is unset (Gardener's Project in
			// docs/api-reference/core.md) and records the creator (Gardener's Project in
			// docs/api-reference/core.md).
			Kind: "Project", Scope: Cluster, Readiness: ProjectReady, ConfirmDeletion: true,
			Protected:     always,
			Irreplaceable: &Irreplaceable{Loses: "delete its namespace with every shoot and secret in it", Instead: "declare a new project"},
			Immutable: []ImmutableField{
				{Path: ".spec.namespace", When: BothSet}, // Gardener's Project in docs/api-reference/core.md, ProjectSpec in docs/api-reference/core.md
				{Path: ".spec.createdBy", When: BothSet}, // Gardener's Project in docs/api-reference/core.md, ProjectSpec in docs/api-reference/core.md
			},
		},
		{
			// Fields at the top level (Gardener's SecretBinding in docs/api-reference/core.md).
			// An InternalSecret is a Secret of the Gardener API, for what only Gardener reads (the
			// shoot's client CA, from which the adminkubeconfig subresource signs certificates):
			// its data is as secret as a Secret's.
			Kind: "InternalSecret", Apply: Configuration, SecretData: true,
		},
		{
			Kind: "SecretBinding",
			Immutable: []ImmutableField{
				{Path: ".secretRef"}, // Gardener's SecretBinding in docs/api-reference/core.md
				{Path: ".quotas"},    // Gardener's SecretBinding in docs/api-reference/core.md
				// Optional (Gardener's SecretBinding in docs/api-reference/core.md): bindings
				// created without it may get it once.
				{Path: ".provider", When: BothSet}, // Gardener's SecretBinding in docs/api-reference/core.md
			},
		},
		{
			Kind:      "Quota",
			Immutable: []ImmutableField{{Path: ".spec.scope"}}, // Gardener's Quota in docs/api-reference/core.md, QuotaSpec in docs/api-reference/core.md
		},
		{
			// Fields at the top level.
			Kind: "ExposureClass", Scope: Cluster,
			Immutable: []ImmutableField{
				{Path: ".handler"},    // Gardener's ExposureClass in docs/api-reference/core.md
				{Path: ".scheduling"}, // Gardener's ExposureClass in docs/api-reference/core.md
			},
		},
		{Kind: "CloudProfile", Scope: Cluster},
		{Kind: "ControllerRegistration", Scope: Cluster},
		{Kind: "ControllerDeployment", Scope: Cluster},
		{
			Kind: "ControllerInstallation", Scope: Cluster, Readiness: ControllerInstallationReady,
			Immutable: []ImmutableField{
				{Path: ".spec.registrationRef.name"}, // Gardener's ControllerInstallation in docs/api-reference/core.md, ControllerInstallationSpec in docs/api-reference/core.md
				{Path: ".spec.seedRef.name"},         // Gardener's ControllerInstallation in docs/api-reference/core.md, ControllerInstallationSpec in docs/api-reference/core.md
			},
		},
		{
			// Deleting a BackupBucket deletes the object store bucket and every backup in it. The
			// seed is assigned once (optional, Gardener's BackupBucket in
			// docs/api-reference/core.md).
			Kind: "BackupBucket", Scope: Cluster, Readiness: LastOperationSucceeded,
			Protected:     always,
			Irreplaceable: &Irreplaceable{Loses: "delete the bucket with every backup in it"},
			Immutable: []ImmutableField{
				{Path: ".spec.provider"},                // Gardener's BackupBucket in docs/api-reference/core.md, BackupBucketSpec in docs/api-reference/core.md
				{Path: ".spec.seedName", When: BothSet}, // Gardener's BackupBucket in docs/api-reference/core.md, BackupBucketSpec in docs/api-reference/core.md
			},
		},
		{Kind: "BackupEntry", Readiness: LastOperationSucceeded, Protected: always},
	},
}
