package seed

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the composite for a Gardener Seed (core.gardener.cloud/v1beta1, Gardener's
// docs/api-reference/core.md): a cluster registered with the garden to host shoot control planes,
// with gardenlet running in it.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindSeed,
		Type: string(schema.KindSeed),
		Description: "A seed: a cluster registered with the garden that hosts the control planes of shoots. " +
			"By default the engine is the seed's gardenlet: it deploys the seed's system components, registers the Seed, deploys the control planes of the shoots on it and reports their status, and no gardenlet runs. " +
			"With managed_by = \"gardenlet\" the block deploys only gardenlet with the seed's configuration, which registers the Seed and does all of that itself.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("garden", schema.RefGarden, "The garden this seed registers with."),
				attr.Reference("cluster", schema.RefCluster, "The cluster that becomes the seed."),
				{
					Name: "managed_by", Type: cty.String, Default: cty.StringVal(ManagedByEngine), Checks: attr.Checks(schema.OneOf(ManagedByEngine, ManagedByGardenlet)),
					Description: "Who reconciles the seed and the control planes of its shoots: \"engine\" (the engine deploys what gardenlet's seed and shoot flows would and reports as gardenlet; no gardenlet runs) or \"gardenlet\" " +
						"(the engine deploys only gardenlet with the seed's configuration, as Gardener's \"Deploy a gardenlet Manually\" docs/deployment/deploy_gardenlet_manually.md describes; gardenlet registers and owns the Seed, and the shoots on it are gardenlet's). " +
						"Never both: two controllers would reconcile the same objects.",
				},
				{Name: "extensions", Type: attr.StringList, Description: "Extension types (such as provider-local or networking-calico) to install on this seed even before a shoot needs them."},
				{
					Name: "admission_webhooks", Type: cty.Bool, Default: cty.True,
					Description: "Whether the seed's own system components register their admission webhooks (gardener-resource-manager, VPA), where the seed is not the garden's runtime cluster. " +
						"Turn it off only where nothing can serve them, such as the local control plane, whose pods never run: a webhook nobody serves blocks the API requests it intercepts.",
				},
			},
			Blocks: []schema.Block{
				{
					Name: "provider", Required: true,
					Description: "The infrastructure the seed cluster runs on, which decides the shoots it can host.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "type", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The infrastructure provider type of the seed cluster, such as aws or local."},
						{Name: "region", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The region the seed cluster runs in."},
						{Name: "zones", Type: attr.StringList, Description: "The availability zones of the seed's nodes; zone-redundant shoot control planes need at least three."},
						attr.ProviderConfig("Settings specific to the seed's provider type."),
					}},
				},
				{
					Name: "networks", Required: true,
					Description: "The seed cluster's networks, which shoot networks must not overlap because of the VPN between them.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							// Gardener's SeedNetworks in docs/api-reference/core.md seed nodes immutable
							{Name: "nodes", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The node network of the seed cluster."},
							// Gardener's SeedNetworks in docs/api-reference/core.md seed pods immutable
							{Name: "pods", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The pod network of the seed cluster."},
							// Gardener's SeedNetworks in docs/api-reference/core.md seed services immutable
							{Name: "services", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The service network of the seed cluster."},
							{Name: "block_cidrs", Type: attr.StringList, Checks: attr.Checks(schema.CIDRList()), Description: "Networks that shoot control-plane components in the seed must never reach."},
							// Gardener's SeedNetworks in docs/api-reference/core.md seed ipFamilies immutable
							attr.IPFamilies("The IP protocol versions of the seed's networks."),
						},
						Blocks: []schema.Block{{
							Name:        "shoot_defaults",
							Description: "Networks given to shoots on this seed that do not choose their own.",
							Body: schema.Body{Attributes: []schema.Attribute{
								{Name: "pods", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "Default pod network for shoots."},
								{Name: "services", Type: cty.String, Checks: attr.Checks(schema.CIDR()), Description: "Default service network for shoots."},
							}},
						}},
					},
				},
				{
					// Gardener's SeedSpec in docs/api-reference/core.md seed ingress immutable; Gardener's Ingress
					// in docs/api-reference/core.md domain immutable once set
					Name: "ingress", Required: true,
					Description: "The ingress controller of the seed, through which observability components of the seed and its shoots are reached.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "domain", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.DNSName()), Description: "The wildcard domain pointing at the seed's ingress controller; ingress hosts are created below it."},
						// Gardener's IngressController in docs/api-reference/core.md only nginx is supported
						{Name: "controller_kind", Type: cty.String, Default: cty.StringVal("nginx"), AllowedValues: []string{"nginx"}, Immutable: true, Description: "The ingress controller Gardener deploys into the seed."},
						attr.ProviderConfig("Settings specific to the ingress controller."),
					}},
				},
				{
					// Gardener's "DNS Record" docs/extensions/resources/dnsrecord.md a seed with ingress needs a
					// DNS provider
					Name: "dns", Required: true,
					Description: "DNS settings of the seed; Gardener uses them to create the wildcard record of the ingress domain.",
					Body: schema.Body{Blocks: []schema.Block{{
						Name: "provider", Required: true,
						Description: "The DNS service that hosts the ingress domain.",
						Body: schema.Body{Attributes: []schema.Attribute{
							{Name: "type", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The kind of DNS service, such as aws-route53 or local."},
							attr.SecretRef("Name of the Secret in the virtual garden's garden namespace with the credentials for this DNS service."),
						}},
					}}},
				},
				{
					Name:        "backup",
					Description: "The object store for etcd backups of the seed's shoots; without it shoots on this seed get no backups and cannot migrate to another seed.",
					Body: schema.Body{Attributes: []schema.Attribute{
						// Gardener's SeedBackup in docs/api-reference/core.md seed backup provider immutable
						{Name: "provider", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The object store provider type, such as aws or local."},
						// Gardener's SeedBackup in docs/api-reference/core.md seed backup region immutable
						{Name: "region", Type: cty.String, Immutable: true, Description: "The region of the backup bucket; the seed's region when unset."},
						attr.SecretRef("Name of the Secret in the virtual garden's garden namespace with credentials allowed to manage buckets and objects."),
						attr.ProviderConfig("Settings specific to the backup provider, passed to the backup bucket."),
						// Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md: the Backup
						// Buckets Check's conditionThreshold.
						{Name: "condition_threshold", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long the seed's BackupBucketsReady is Progressing before it turns False when a backup bucket has an error, as gardener-controller-manager's conditionThreshold for it (give it that setting, backup_buckets_condition_threshold of the gardener_controller_manager component); False at once when unset."},
					}},
				},
				{
					// Gardener's "ExposureClasses" docs/usage/networking/exposureclasses.md: gardenlet realises an
					// ExposureClass's handler with a dedicated ingress gateway per handler (and per zone,
					// Gardener's "Istio" docs/operations/istio.md).
					Name: "exposure_class_handler", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "How this seed exposes the API servers of shoots whose ExposureClass names this handler: an Istio ingress gateway of its own behind its own load balancer, with one more per zone on a multi-zone seed.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "load_balancer_annotations", Type: cty.Map(cty.String), Description: "Annotations of the handler's load balancer Service, for example to put it on an internal network."},
						{Name: "ingress_namespace", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the handler's ingress gateway; istio-ingress-handler-<name> when unset."},
						{Name: "ingress_labels", Type: cty.Map(cty.String), Description: "Labels of the handler's gateway pods, which shoot API servers' Gateways select; app=istio-ingressgateway, gardener.cloud/role=exposureclass-handler and handler.exposureclass.gardener.cloud/name=<name> when unset."},
					}},
				},
				{
					Name: "taints", Nesting: schema.NestingList, Labels: []string{"key"},
					Description: "A taint on the seed; only shoots that tolerate it are scheduled here.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "value", Type: cty.String, Description: "The value of the taint, if the key alone is not enough."},
					}},
				},
				seedSettings(),
				{
					Name: "observability",
					// Gardener's "Logging And Monitoring" docs/extensions/logging-and-monitoring.md, "Alerting"
					// docs/monitoring/alerting.md-21479: gardenlet's seed monitoring and logging.
					Description: "The seed's monitoring and logging in its garden namespace: prometheus-operator, the cache, seed and aggregate Prometheus, alertmanager-seed, kube-state-metrics and Plutono, and Vali with logging. " +
						"A seed in the garden's runtime cluster shares the garden's prometheus-operator, Plutono, kube-state-metrics and Vali. The shoots of a seed with observability get their own Prometheus and Plutono unless their purpose is testing.",
					Body: schema.Body{Attributes: append([]schema.Attribute{
						attr.Enabled(true, "Whether the observability components are deployed; in the garden's runtime cluster only if the garden's are."),
						{Name: "logging_enabled", Type: cty.Bool, Default: cty.False, Description: "Whether Vali stores the logs of the seed's and its shoots' components (gardenlet's logging.enabled)."},
						{Name: "alerting", Type: cty.Bool, Default: cty.True, Description: "Whether alertmanager-seed is deployed and the aggregate Prometheus alerts to it."},
					}, attr.ObservabilityStorage("100Gi")...)},
				},
			},
		},
		Rules: []schema.Rule{
			// Shoots get these defaults, so they must be disjoint from the seed's own networks
			// (Gardener's "Deploy Gardenlet Manually" docs/deployment/deploy_gardenlet_manually.md).
			schema.DisjointNetworks("networks.nodes", "networks.pods", "networks.services", "networks.shoot_defaults.pods", "networks.shoot_defaults.services"),
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The seed's name, the label of the seed block."},
			{Name: "managed_by", Type: cty.String, Description: "Who reconciles the seed and its shoots' control planes: engine or gardenlet."},
			{Name: "namespace", Type: cty.String, Description: "The namespace seed-<name> that Gardener creates for this seed in the virtual garden."},
			{Name: "cluster", Type: attr.ClusterRef, Description: "The seed cluster, where the control planes of the seed's shoots run."},
			{Name: "virtual_cluster", Type: attr.ClusterRef, Description: "The virtual garden the seed is registered in, where its shoots' Shoot objects live."},
			{Name: "provider_type", Type: cty.String, Description: "The seed's infrastructure provider type."},
			{Name: "region", Type: cty.String, Description: "The seed's region."},
			{Name: "zones", Type: cty.List(cty.String), Description: "The seed's zones; control planes of shoots tolerating a zone failure spread over three of them."},
			{Name: "ingress_domain", Type: cty.String, Description: "The seed's ingress domain."},
			{Name: "networks", Type: cty.Object(map[string]cty.Type{"pods": cty.String, "services": cty.String, "nodes": cty.String, "shoot_pods": cty.String, "shoot_services": cty.String, "block_cidrs": cty.List(cty.String), "ip_families": cty.List(cty.String)}), Description: "The seed's networks and the defaults it gives shoots without networks of their own (shoot_pods, shoot_services; empty when unset); block_cidrs and ip_families are those its shoots' control-plane namespaces get their NetworkPolicies with (ip_families IPv4 where the seed names none, and where the seed is the garden runtime cluster, whose NetworkPolicy controller gardener-operator runs with IPv4)."},
			{Name: "backup_provider", Type: cty.String, Description: "The provider of the seed's backup bucket; empty when the seed has no backup, and then its shoots' etcds are not backed up."},
			{Name: "backup_region", Type: cty.String, Description: "The region of the seed's backup bucket; empty without backup."},
			{Name: "observability", Type: cty.Object(map[string]cty.Type{"enabled": cty.Bool, "logging_enabled": cty.Bool}), Description: "Whether the seed runs its observability stack and stores logs; its shoots' control planes get their monitoring (and with logging their Vali) only if it does."},
			{Name: "exposure_class_handlers", Type: cty.Map(cty.Object(map[string]cty.Type{"namespace": cty.String, "labels": cty.Map(cty.String)})), Description: "The seed's exposure class handlers by name: the namespace and pod labels of each handler's Istio ingress gateway, through which shoots of an ExposureClass with that handler are exposed."},
			{Name: "object", Type: cty.DynamicPseudoType, Description: "The Seed as the block registers it in the virtual garden, which the extensions Cluster of each of the seed's shoots embeds."},
			{Name: "gardener_controller_manager", Type: gardenercontrollermanager.ShootLoopsType, Description: "The garden's gardener-controller-manager shoot loop settings (its output of the same name), from which the seed's shoots predict when it hibernates, maintains, deletes and retries them."},
		},
	}
}

func seedSettings() schema.Block {
	return schema.Block{
		Name:        "settings",
		Description: "Switches for optional behaviour of the seed's system components.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				{Name: "excess_capacity_reservation_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether placeholder pods keep spare capacity free so that new shoot control planes start without waiting for nodes."},
				{Name: "scheduling_visible", Type: cty.Bool, Default: cty.True, Description: "Whether gardener-scheduler may place shoots here; shoots can still name an invisible seed explicitly."},
				{Name: "vertical_pod_autoscaler_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether gardenlet deploys its own VPA; turn it off only if the cluster already runs one, because the seed does not work without a VPA."},
				{Name: "topology_aware_routing_enabled", Type: cty.Bool, Default: cty.False, Description: "Whether control-plane Services of zone-redundant shoots prefer endpoints in the caller's zone; useful only for seeds with several zones."},
			},
			Blocks: []schema.Block{
				{
					Name:        "load_balancer_services",
					Description: "Settings for the LoadBalancer Services of the seed, such as its Istio ingress gateways.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "annotations", Type: cty.Map(cty.String), Description: "Annotations added to each LoadBalancer Service, for example to choose a load balancer type."},
							attr.ExternalTrafficPolicy("Whether load balancers send traffic to any node (Cluster) or only to nodes running a target pod (Local)."),
							{Name: "proxy_protocol_allowed", Type: cty.Bool, Default: cty.False, Description: "Whether load balancers may speak the PROXY protocol to the gateways."},
						},
						Blocks: []schema.Block{{
							Name: "zones", Nesting: schema.NestingList, Labels: []string{"name"},
							Description: "Overrides for the load balancer of one zone of a multi-zone seed; the label must be one of the provider's zones.",
							Body: schema.Body{Attributes: []schema.Attribute{
								{Name: "annotations", Type: cty.Map(cty.String), Description: "Annotations added to this zone's LoadBalancer Service."},
								{Name: "external_traffic_policy", Type: cty.String, AllowedValues: []string{"Cluster", "Local"}, Description: "The traffic policy of this zone's load balancer, overriding the seed-wide one."},
							}},
						}},
					},
				},
				{
					Name:        "dependency_watchdog",
					Description: "The dependency-watchdog, which helps shoot control planes recover after an outage.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "weeder_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether crash-looping control-plane pods are restarted as soon as what they depend on is back."},
						{Name: "prober_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether controllers of a shoot are scaled down while its API server is unreachable from outside, to avoid acting on stale data."},
					}},
				},
			},
		},
	}
}
