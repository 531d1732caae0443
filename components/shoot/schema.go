package shoot

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/shootsystem"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the composite for a Gardener Shoot (core.gardener.cloud/v1beta1, Gardener's
// docs/api-reference/core.md): an end-user cluster whose control plane Gardener runs on a seed.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindShoot,
		Type: string(schema.KindShoot),
		Description: "A shoot: a Kubernetes cluster for end users, declared as a Shoot in a project of the virtual garden. " +
			"Gardener runs its control plane on a seed and its worker nodes on the chosen infrastructure.",
		// Every shoot's control plane lives in a namespace of its own on its seed
		// (shoot--<project>--<name>) and creates no CustomResourceDefinitions: nothing of one
		// shoot is needed by another.
		Independent: true,
		Body: schema.Body{
			Attributes: shootAttributes(),
			Blocks: []schema.Block{
				shootKubernetes(),
				shootNetworking(),
				{
					Name: "provider", Required: true,
					Description: "The infrastructure the shoot's nodes run on.",
					Body: schema.Body{Attributes: []schema.Attribute{
						// Gardener's Provider in docs/api-reference/core.md shoot provider type immutable
						{Name: "type", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The infrastructure provider type, such as aws or local; it must match the cloud profile."},
						{Name: "infrastructure_config", Type: cty.DynamicPseudoType, Description: "Provider-specific settings of the shoot's infrastructure (networks, subnets), as an object."},
						{Name: "control_plane_config", Type: cty.DynamicPseudoType, Description: "Provider-specific settings of the control-plane components the provider extension adds, as an object."},
						{Name: "ssh_access_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether SSH to the worker nodes is possible at all; turning it off also removes bastions and key pairs."},
					}},
				},
				{
					Name: "dns_provider",
					// Gardener's "DNS Record" docs/extensions/resources/dnsrecord.md: the external record with the
					// shoot owner's own DNS provider.
					Description: "The DNS provider of the shoot's own dns_domain, which creates its external record api.<dns_domain>; a shoot under the landscape's default_domain uses that domain's provider instead.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "type", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The kind of DNS service, such as aws-route53 or local."},
						attr.SecretRef("Name of the Secret in the project's namespace with the credentials for this DNS service."),
					}},
				},
				shootWorkers(),
				shootMaintenance(),
				{
					Name:        "hibernation",
					Description: "Hibernation scales the shoot's nodes and control plane to zero while keeping its state, to save cost.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "enabled", Type: cty.Bool, Default: cty.False, Description: "Whether the shoot is hibernated now. With schedules, gardener-controller-manager flips the Shoot at their triggers and the landscape's value is written to the Shoot only when the shoot is created and when the value changes here (a hibernation or wake-up by hand)."},
						},
						Blocks: []schema.Block{{
							Name: "schedules", Nesting: schema.NestingList,
							Description: "A recurring schedule that hibernates the shoot at start and wakes it at end; set at least one of the two. gardener-controller-manager carries it out; plans predict its triggers.",
							Body: schema.Body{Attributes: []schema.Attribute{
								{Name: "start", Type: cty.String, Checks: attr.Checks(schema.Cron()), Description: "A cron expression for when the shoot goes to sleep, such as \"0 20 * * 1-5\"."},
								{Name: "end", Type: cty.String, Checks: attr.Checks(schema.Cron()), Description: "A cron expression for when the shoot wakes up, such as \"0 7 * * 1-5\"."},
								{Name: "location", Type: cty.String, Checks: attr.Checks(schema.TimeZone()), Description: "The IANA time zone in which start and end are read, such as Europe/Berlin; UTC when unset."},
							}},
						}},
					},
				},
				{
					Name:        "control_plane",
					Description: "General settings of the shoot's control plane.",
					Body: schema.Body{Blocks: []schema.Block{{
						// Gardener's "Shoot High Availability"
						// docs/usage/high-availability/shoot_high_availability.md only non-HA -> node/zone is
						// allowed; any other change is refused
						Name:        "high_availability",
						Description: "Runs the control plane with replicas that survive the loss of a node or a zone; it can be added later but never removed or changed.",
						Body: schema.Body{Attributes: []schema.Attribute{
							{Name: "failure_tolerance", Type: cty.String, Required: true, AllowedValues: []string{"node", "zone"}, Description: "What the control plane must survive: the loss of a node, or of a whole zone (which needs a seed with at least three zones)."},
						}},
					}}},
				},
				{
					Name: "extensions", Nesting: schema.NestingList, Labels: []string{"type"},
					Description: "A Gardener extension to enable (or, for one enabled globally, disable) for this shoot, labelled with its type such as shoot-dns-service.",
					Body: schema.Body{Attributes: []schema.Attribute{
						attr.ProviderConfig("Settings for the extension, as an object in the form the extension defines."),
						{Name: "disabled", Type: cty.Bool, Default: cty.False, Description: "Whether an extension that is on for every shoot by default is switched off for this one."},
					}},
				},
				{
					Name: "tolerations", Nesting: schema.NestingList, Labels: []string{"key"},
					Description: "Tolerates a seed taint with this key, so the shoot may be scheduled onto a seed carrying it.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "value", Type: cty.String, Description: "The taint value tolerated; any value when unset."},
					}},
				},
				{
					Name:        "system_components",
					Description: "Settings of system components Gardener runs inside the shoot.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "core_dns_autoscaling_mode", Type: cty.String, Default: cty.StringVal("horizontal"), AllowedValues: []string{"horizontal", "cluster-proportional"}, Description: "How CoreDNS scales: by its CPU load (horizontal) or by the number of nodes and cores (cluster-proportional)."},
						{Name: "node_local_dns_enabled", Type: cty.Bool, Default: cty.False, Description: "Whether every node runs a DNS cache; changing it rolls all nodes."},
					}},
				},
				shootAddons(),
			},
		},
		Rules: []schema.Rule{
			// A shoot with workers needs exactly one (checked when it renders); a workerless
			// shoot has no infrastructure and takes none.
			schema.AtMostOneOf("credentials_binding", "secret_binding"),
			schema.DisjointNetworks("networking.nodes", "networking.pods", "networking.services"),
			// Gardener's "Gardener Scheduler" docs/concepts/scheduler.md, Gardener's "Deploy Gardenlet
			// Manually" docs/deployment/deploy_gardenlet_manually.md: seed and shoot networks must be
			// disjoint because of the VPN between them.
			schema.DisjointFromReferenced("seed",
				[]schema.Path{"networking.nodes", "networking.pods", "networking.services"},
				[]schema.Path{"networks.nodes", "networks.pods", "networks.services"},
				"the VPN between seed and shoot needs disjoint networks."),
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The shoot's name, the label of the shoot block."},
			{Name: "namespace", Type: cty.String, Description: "The project namespace garden-<project> in the virtual garden that holds the Shoot."},
			{Name: "technical_id", Type: cty.String, Description: "The shoot--<project>--<name> identifier, which names the control-plane namespace in the seed."},
			{Name: "api_endpoint", Type: cty.String, Description: "The URL of the shoot's API server: https://api.<domain>, served by the seed's Istio ingress gateway."},
			{Name: "ca_bundle", Type: cty.String, Description: "The PEM CA certificate the shoot's API server is signed by, for kubeconfigs of the shoot's users."},
		},
	}
}

func shootAttributes() []schema.Attribute {
	return []schema.Attribute{
		// A shoot's name becomes part of namespaces and DNS names, so it is a DNS label; with
		// for_each, name = each.key names the shoots after their keys.
		{Name: "name", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The Shoot's name; the instance name (the block label, with -<key> under for_each or count) when unset."},
		// An object cannot move between namespaces, so a new project means a new Shoot.
		{Name: "project", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The Gardener project the shoot belongs to; its Shoot lives in the project's namespace."},
		{Name: "seed", Type: cty.DynamicPseudoType, References: schema.RefSeed, Description: "The seed that runs the control plane; gardener-scheduler picks one when unset, and changing it migrates the control plane."},
		{Name: "cloud_profile", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The cloud profile listing the machine types, images, regions and Kubernetes versions the shoot may use."},
		{Name: "cloud_profile_object", Type: cty.DynamicPseudoType, Description: "The cloud profile as the landscape declares it, component.cloud_profile.<name>.object, which the shoot's extensions Cluster embeds as gardenlet embeds the CloudProfile (provider extensions read its provider_config, such as machine image mappings); its name must be cloud_profile. Unset, the Cluster carries the profile's name only."},
		{Name: "cloud_profile_kind", Type: cty.String, Default: cty.StringVal("CloudProfile"), AllowedValues: []string{"CloudProfile", "NamespacedCloudProfile"}, Description: "Whether cloud_profile names a cluster-wide CloudProfile or a NamespacedCloudProfile in the project."},
		// Gardener's Shoot in docs/api-reference/core.md region immutable
		{Name: "region", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The region of the cloud profile the shoot's infrastructure is created in."},
		{Name: "credentials_binding", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The CredentialsBinding in the project that grants access to the infrastructure account; a shoot with workers sets exactly one of credentials_binding and secret_binding, a workerless shoot neither."},
		// Gardener's Shoot in docs/api-reference/core.md secretBindingName immutable
		{Name: "secret_binding", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.ObjectName()), Description: "The older SecretBinding in the project that grants access to the infrastructure account; a shoot with workers sets exactly one of credentials_binding and secret_binding, a workerless shoot neither."},
		// Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md: the end of a
		// quota lifetime, which users may set to at most twice it.
		{Name: "expiration_timestamp", Type: cty.String, Checks: attr.Checks(schema.Timestamp()), Description: "When the shoot's life ends, as an RFC 3339 time such as 2026-12-24T18:00:00Z, instead of the cluster lifetime of a Quota its binding references: written to the Shoot's expiration-timestamp annotation, after which gardener-controller-manager deletes the Shoot. gardener-apiserver refuses a changed end later than now plus that lifetime. Ignored for shoots without such a Quota."},
		// Gardener's "Shoot Cluster Purposes" docs/usage/shoot/shoot_purposes.md purposes; default
		// evaluation
		{Name: "purpose", Type: cty.String, Default: cty.StringVal("evaluation"), AllowedValues: []string{"evaluation", "development", "testing", "production", "infrastructure"}, Description: "What the cluster is for, which changes how Gardener sets it up (testing gets no monitoring, infrastructure only in the garden project)."},
		// Gardener's DNS in docs/api-reference/core.md dns.domain immutable
		{Name: "dns_domain", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.DNSName()), Description: "The external domain of the shoot, under which its API server is reachable as api.<domain>; Gardener assigns one when unset."},
		// Gardener's "Configuration" docs/operations/configuration.md: the internal-domain and
		// default-domain Secrets of the garden.
		{Name: "internal_domain", Type: dnsDomain, Description: "The landscape's internal domain and its DNS provider (domain, provider_type, and secret_ref naming the internal-domain Secret in the virtual garden's garden namespace): the shoot's API server gets the record api.<name>.<project>.<domain>, pointing at the seed's load balancer, which the control plane's kubeconfigs use. Without it the shoot gets no DNS records."},
		{Name: "default_domain", Type: dnsDomain, Description: "A default domain of the landscape and its DNS provider (secret_ref names the default-domain Secret in the virtual garden's garden namespace): a shoot without dns_domain gets <name>.<project>.<domain>, and its external record is created with this provider. The domain of a shoot cannot change, so a shoot that exists without it keeps its domain only with dns_domain set to it."},
		// Gardener's "ControllerRegistration" docs/extensions/registration.md: when an Extension is
		// reconciled and deleted is its registration's.
		{Name: "extension_lifecycles", Type: cty.Map(attr.ExtensionLifecycle), Description: "The lifecycles of Extension types as their registrations declare them, such as component.extension.dns.extension_lifecycles; an Extension of a type not listed is reconciled after the kube-apiserver and deleted before it, Gardener's default. Types marked globally_enabled are added to the shoot unless an extensions block disables them (on a workerless shoot only where workerless_supported)."},
		// Gardener's Shoot in docs/api-reference/core.md exposureClassName immutable
		{Name: "exposure_class", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.ObjectName()), Description: "The ExposureClass deciding how the shoot's API server is exposed, for example only on an internal network."},
		// Gardener's "ExposureClasses" docs/usage/networking/exposureclasses.md: gardenlet exposes the
		// API server through the gateway of the class's handler.
		{Name: "exposure_class_handler", Type: cty.String, Checks: attr.Checks(schema.NotEmpty()), Description: "The handler of exposure_class, such as component.exposure_class.internal.handler: the API server is exposed through the seed's Istio gateway of that handler, which the seed must declare in an exposure_class_handler block. Required with exposure_class."},
	}
}

func shootKubernetes() schema.Block {
	return schema.Block{
		Name: "kubernetes", Required: true,
		Description: "The Kubernetes version of the shoot and settings of its control-plane components.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				{Name: "version", Type: cty.String, Required: true, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The Kubernetes version of the control plane; it must be offered by the cloud profile."},
				// Gardener's "Accessing Shoot Clusters" docs/usage/shoot/shoot_access.md not available from
				// 1.27 on
				{Name: "enable_static_token_kubeconfig", Type: cty.Bool, Description: "Whether Gardener issues a kubeconfig with a static token; only Kubernetes versions before 1.27 support it."},
				{Name: "vertical_pod_autoscaler_enabled", Type: cty.Bool, Description: "Whether Gardener runs a VPA for the shoot's workloads; a shoot that becomes a seed needs it."},
			},
			Blocks: []schema.Block{
				{
					Name:        "kube_api_server",
					Description: "Settings of the shoot's kube-apiserver.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "audit_policy_config_map", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a ConfigMap in the project namespace holding the audit policy; edits to it take effect at the next reconcile."},
							{Name: "api_audiences", Type: attr.StringList, Description: "Audiences a service account token must be bound to; Gardener uses kubernetes when unset."},
							{Name: "event_ttl", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long the API server keeps events; one hour when unset."},
							{Name: "enable_anonymous_authentication", Type: cty.Bool, Description: "Whether unauthenticated requests are served as the anonymous user."},
							{Name: "runtime_config", Type: cty.Map(cty.Bool), Description: "API groups and versions to serve (true) or not (false), keyed like group/version."},
							{Name: "max_token_expiration", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "The longest validity of a service account token; Gardener requires between 720h and 2160h."},
							{Name: "structured_authentication_config_map", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a ConfigMap in the project namespace with a structured authentication configuration (Kubernetes 1.30 and later)."},
							{Name: "structured_authorization_config_map", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a ConfigMap in the project namespace with a structured authorization configuration (Kubernetes 1.30 and later)."},
							{Name: "encrypted_resources", Type: attr.StringList, Description: "Resources, as resource.group, that are encrypted in etcd in addition to Secrets."},
							attr.FeatureGates("the shoot's kube-apiserver"),
						},
						Blocks: []schema.Block{{
							Name: "admission_plugins", Nesting: schema.NestingList, Labels: []string{"name"},
							Description: "An admission plugin to enable, configure or disable in addition to those Gardener manages, labelled with the plugin's name.",
							Body: schema.Body{Attributes: []schema.Attribute{
								{Name: "config", Type: cty.DynamicPseudoType, Description: "The plugin's configuration, as an object."},
								{Name: "disabled", Type: cty.Bool, Default: cty.False, Description: "Whether the plugin is switched off instead of on."},
								{Name: "kubeconfig_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a Secret in the project namespace with a kubeconfig the plugin uses to reach an external webhook."},
							}},
						}},
					},
				},
				{
					Name:        "kube_controller_manager",
					Description: "Settings of the shoot's kube-controller-manager.",
					Body: schema.Body{Attributes: []schema.Attribute{
						// Gardener's KubeControllerManagerConfig in docs/api-reference/core.md nodeCIDRMaskSize
						// immutable
						{Name: "node_cidr_mask_size", Type: cty.Number, Immutable: true, Checks: attr.Checks(schema.Positive(), schema.Range(16, 28)), Description: "Prefix length of each node's pod range, which with the pod network bounds the number of nodes; 24 when unset."},
						{Name: "node_monitor_grace_period", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long a node may be silent before it is marked unhealthy."},
						attr.FeatureGates("the shoot's kube-controller-manager"),
					}},
				},
				{
					Name:        "kube_scheduler",
					Description: "Settings of the shoot's kube-scheduler.",
					Body: schema.Body{Attributes: []schema.Attribute{
						// Gardener's KubeSchedulerConfig in docs/api-reference/core.md profile default balanced
						{Name: "profile", Type: cty.String, Default: cty.StringVal("balanced"), AllowedValues: []string{"balanced", "bin-packing"}, Description: "Whether pods are spread over nodes (balanced) or packed onto as few as possible (bin-packing)."},
						attr.FeatureGates("the shoot's kube-scheduler"),
					}},
				},
				{
					Name:        "kube_proxy",
					Description: "Settings of kube-proxy on the shoot's nodes.",
					Body: schema.Body{Attributes: []schema.Attribute{
						attr.Enabled(true, "Whether kube-proxy runs at all; some networking extensions route Services themselves and allow turning it off."),
						// Gardener's Provider in docs/api-reference/core.md only iptables and ipvs are supported
						{Name: "mode", Type: cty.String, Default: cty.StringVal(shootsystem.ModeIPTables), AllowedValues: []string{shootsystem.ModeIPTables, shootsystem.ModeIPVS}, Description: "How kube-proxy implements Services."},
						attr.FeatureGates("kube-proxy"),
					}},
				},
			},
		},
	}
}

func shootNetworking() schema.Block {
	return schema.Block{
		Name:        "networking",
		Description: "The shoot's networking plugin and networks, which must not overlap the seed's.",
		Body: schema.Body{Attributes: []schema.Attribute{
			// Gardener's Networking in docs/api-reference/core.md networking type immutable
			{Name: "type", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The networking extension that provides the CNI, such as calico or cilium."},
			// Gardener's Networking in docs/api-reference/core.md pods immutable
			{Name: "pods", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The pod network; the seed's shoot default when unset."},
			{Name: "nodes", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "The node network; it can grow but must keep containing the existing nodes."},
			// Gardener's Networking in docs/api-reference/core.md services immutable
			{Name: "services", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The service network; the seed's shoot default when unset."},
			// Gardener's Networking in docs/api-reference/core.md ipFamilies immutable, default IPv4
			attr.IPFamilies("The IP protocol versions of the shoot's networks."),
			attr.ProviderConfig("Settings specific to the networking extension, as an object."),
		}},
	}
}

func shootWorkers() schema.Block {
	return schema.Block{
		Name: "workers", Nesting: schema.NestingList, Labels: []string{"name"},
		Description: "A worker pool: a group of nodes of one machine type, scaled between minimum and maximum and spread over its zones; a shoot without pools has no nodes.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				{Name: "machine_type", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The machine type of the nodes, as offered by the cloud profile; changing it replaces every node."},
				{Name: "architecture", Type: cty.String, Default: cty.StringVal("amd64"), AllowedValues: []string{"amd64", "arm64"}, Description: "The CPU architecture of the machines."},
				{Name: "minimum", Type: cty.Number, Required: true, Checks: attr.Checks(schema.NonNegative()), Description: "The fewest nodes the pool has, divided over its zones."},
				{Name: "maximum", Type: cty.Number, Required: true, Checks: attr.Checks(schema.Positive()), Description: "The most nodes the cluster autoscaler may create, divided over the pool's zones."},
				{Name: "max_surge", Type: cty.String, Checks: attr.Checks(schema.IntOrPercent()), Description: "How many nodes, or what percentage, a rolling update may add above the desired count."},
				{Name: "max_unavailable", Type: cty.String, Checks: attr.Checks(schema.IntOrPercent()), Description: "How many nodes, or what percentage, may be unavailable during a rolling update."},
				{Name: "zones", Type: attr.StringList, Description: "The availability zones the pool is spread over."},
				{Name: "labels", Type: cty.Map(cty.String), Description: "Labels put on every node of the pool."},
				{Name: "annotations", Type: cty.Map(cty.String), Description: "Annotations put on every node of the pool."},
				{Name: "kubernetes_version", Type: cty.String, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The kubelet version of this pool, at most two minor versions behind the control plane; the control plane's version when unset."},
				{Name: "system_components_allowed", Type: cty.Bool, Default: cty.True, Description: "Whether Gardener may schedule its system components onto this pool."},
				attr.ProviderConfig("Provider-specific settings of the pool's machines, as an object."),
			},
			Blocks: []schema.Block{
				{
					Name:        "machine_image",
					Description: "The operating system image of the nodes; the cloud profile's default when unset.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "name", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The image name as the cloud profile lists it, such as gardenlinux."},
						{Name: "version", Type: cty.String, Description: "The image version; the newest the cloud profile offers when unset."},
					}},
				},
				{
					Name:        "volume",
					Description: "The root disk of each node.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "type", Type: cty.String, Description: "The volume type as the cloud profile lists it."},
						{Name: "size", Type: cty.String, Required: true, Checks: attr.Checks(schema.Quantity()), Description: "The size of the disk, such as 50Gi."},
					}},
				},
				{
					Name: "taints", Nesting: schema.NestingList, Labels: []string{"key"},
					Description: "A taint put on every node of the pool, so that only tolerating pods run there.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "value", Type: cty.String, Description: "The taint's value."},
						{Name: "effect", Type: cty.String, Required: true, AllowedValues: []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}, Description: "What happens to pods that do not tolerate the taint."},
					}},
				},
				{
					Name:        "cri",
					Description: "The container runtime of the nodes.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "name", Type: cty.String, Default: cty.StringVal("containerd"), AllowedValues: []string{"containerd"}, Description: "The container runtime; Gardener supports containerd."},
					}},
				},
			},
		},
	}
}

func shootMaintenance() schema.Block {
	return schema.Block{
		Name:        "maintenance",
		Description: "When and how Gardener maintains the shoot: version updates and disruptive operations happen in a daily window.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				{Name: "confine_spec_update_rollout", Type: cty.Bool, Default: cty.False, Description: "Whether changes to the shoot are held back until the next maintenance window (except hibernation)."},
			},
			Blocks: []schema.Block{
				{
					Name:        "auto_update",
					Description: "Which versions gardener-controller-manager updates by itself during maintenance; the landscape's versions are a floor the Shoot never goes below.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "kubernetes_version", Type: cty.Bool, Default: cty.True, Description: "Whether the Kubernetes patch version is raised to the newest of the same minor."},
						{Name: "machine_image_version", Type: cty.Bool, Default: cty.True, Description: "Whether node images are updated to the newest version the cloud profile allows."},
					}},
				},
				{
					Name:        "time_window",
					Description: "The daily maintenance window, between 30 minutes and 6 hours long; Gardener picks one when unset.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "begin", Type: cty.String, Required: true, Checks: attr.Checks(schema.TimeWindow()), Description: "Start of the window."},
						{Name: "end", Type: cty.String, Required: true, Checks: attr.Checks(schema.TimeWindow()), Description: "End of the window."},
					}},
				},
			},
		},
	}
}

func shootAddons() schema.Block {
	return schema.Block{
		Name:        "addons",
		Description: "Optional add-ons Gardener can install into the shoot; both are deprecated in Gardener and kept for existing shoots.",
		Body: schema.Body{Blocks: []schema.Block{
			{
				Name:        "kubernetes_dashboard",
				Description: "The Kubernetes dashboard web UI.",
				Body: schema.Body{Attributes: []schema.Attribute{
					attr.Enabled(false, "Whether the dashboard is installed."),
					{Name: "authentication_mode", Type: cty.String, Description: "How users authenticate to the dashboard."},
				}},
			},
			{
				Name:        "nginx_ingress",
				Description: "An nginx ingress controller with a wildcard DNS record below the shoot's domain; a shoot that becomes a seed must not use it.",
				Body: schema.Body{Attributes: []schema.Attribute{
					attr.Enabled(false, "Whether the ingress controller is installed."),
					{Name: "load_balancer_source_ranges", Type: attr.StringList, Checks: attr.Checks(schema.CIDRList()), Description: "Client networks allowed to reach the ingress load balancer; everyone when unset."},
					{Name: "config", Type: cty.Map(cty.String), Description: "Entries for the controller's configuration ConfigMap."},
					attr.ExternalTrafficPolicy("Whether the load balancer sends traffic to any node (Cluster) or only to nodes running the controller (Local)."),
				}},
			},
		}},
	}
}

// dnsDomain is a domain of the landscape with the DNS provider that serves it.
var dnsDomain = cty.Object(map[string]cty.Type{"domain": cty.String, "provider_type": cty.String, "secret_ref": cty.String})
