package garden

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Log levels the Gardener control-plane components accept (Gardener's
// GardenerAdmissionControllerConfig in docs/api-reference/operator.md,
// GardenerControllerManagerConfig in docs/api-reference/operator.md, GardenerDashboardConfig in
// docs/api-reference/operator.md).
var gardenerLogLevels = []string{"info", "debug", "error"}

func gardenerLogLevel(component string) schema.Attribute {
	return schema.Attribute{
		Name: "log_level", Type: cty.String, Default: cty.StringVal("info"), AllowedValues: gardenerLogLevels,
		Description: "How verbosely " + component + " logs.",
	}
}

// typeSchema is the composite for gardener-operator's Garden (operator.gardener.cloud/v1alpha1,
// Gardener's docs/api-reference/operator.md): the runtime cluster's settings, the virtual garden
// and the Gardener control plane that runs against it.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindGarden,
		Type: string(schema.KindGarden),
		Description: "The garden: gardener-operator in a runtime cluster, the virtual garden API server it hosts, " +
			"and the Gardener control plane (gardener-apiserver, admission controller, controller manager, scheduler, " +
			"optionally the dashboard) serving that API. Gardener allows one garden per runtime cluster.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The runtime cluster that hosts gardener-operator, the virtual garden and the Gardener control plane."),
				{
					Name: "virtual_garden", Type: cty.DynamicPseudoType, References: schema.RefCluster,
					Description: "The cluster block through which the engine reaches the virtual garden API, to create the virtual garden's own RBAC, APIService registrations " +
						"and webhook configurations there. Without it only the runtime cluster's components are rendered.",
				},
				{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of the image vector by image name (see `gardener components garden`): \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
				{
					Name: "admission_webhooks", Type: cty.Bool, Default: cty.True,
					Description: "Whether the garden's components register their admission webhooks (gardener-resource-manager, VPA, gardener-admission-controller). " +
						"Turn it off only where nothing can serve them, such as the local control plane, whose pods never run: a webhook nobody serves blocks the API requests it intercepts.",
				},
			},
			Blocks: []schema.Block{
				gardenRuntimeCluster(),
				{
					Name: "observability",
					Description: "The garden's monitoring and logging in the runtime cluster (Gardener's docs/concepts/operator.md): prometheus-operator with the garden and long-term Prometheus, " +
						"the garden Alertmanager, kube-state-metrics, Plutono on plutono-garden.<first ingress domain> and Vali. Shipping logs to Vali (fluent-bit) is not rendered yet.",
					Body: schema.Body{Attributes: append([]schema.Attribute{
						attr.Enabled(true, "Whether the observability components are deployed."),
						{Name: "longterm", Type: cty.Bool, Default: cty.True, Description: "Whether the long-term Prometheus, which keeps selected garden metrics for months, is deployed."},
						{Name: "alerting", Type: cty.Bool, Default: cty.True, Description: "Whether the garden Alertmanager is deployed; AlertmanagerConfigs labelled alertmanager=garden route its alerts."},
					}, attr.ObservabilityStorage("10Gi")...)},
				},
				gardenVirtualCluster(),
				{
					Name: "dns_provider", Nesting: schema.NestingList, Labels: []string{"name"},
					Description: "A DNS provider the garden may use for the domains it manages; repeat the block for several providers.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "type", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The kind of DNS service, such as aws-route53 or local."},
						attr.SecretRef("Name of the Secret in the runtime cluster's garden namespace with the credentials for this DNS service."),
						attr.ProviderConfig("Settings specific to this DNS provider type."),
					}},
				},
			},
		},
		Rules: []schema.Rule{
			schema.DisjointNetworks("runtime_cluster.networking.nodes", "runtime_cluster.networking.pods", "runtime_cluster.networking.services"),
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The garden's name, the label of the garden block."},
			{Name: "virtual_kubeconfig", Type: cty.String, Sensitive: true, Description: "A kubeconfig with administrative access to the virtual garden API."},
			{Name: "virtual_cluster", Type: attr.ClusterRef, Description: "The virtual garden as a cluster, usable wherever a block expects a cluster reference."},
			{Name: "runtime_cluster", Type: attr.ClusterRef, Description: "The runtime cluster, so that a seed in the same cluster can leave out the system components the garden already runs there."},
			{Name: "virtual_endpoint", Type: cty.String, Description: "The URL of the virtual garden API: https://api.<first DNS domain>."},
			{Name: "ca_bundle", Type: cty.String, Description: "The PEM CA certificate the virtual garden's API servers are signed by, for kubeconfigs of seeds and users."},
			{Name: "generic_kubeconfig_secret_name", Type: cty.String, Description: "The Secret in the runtime cluster's garden namespace with the generic token kubeconfig that garden components combine with their access tokens."},
			{Name: "ingress_domain", Type: cty.String, Description: "The first ingress domain of the runtime cluster, under which garden components such as the dashboard are exposed."},
			{Name: "observability_enabled", Type: cty.Bool, Description: "Whether the garden runs its observability stack, whose prometheus-operator a seed in the runtime cluster shares."},
			projectcontroller.Output(),
			{Name: "gardener_controller_manager", Type: gardenercontrollermanager.ShootLoopsType, Description: "The settings of gardener-controller-manager's shoot loops (hibernation trigger deadline, maintenance restarts, quota sync period, retry periods), from which seeds and shoots predict when it hibernates, maintains, deletes and retries shoots."},
		},
	}
}

func gardenRuntimeCluster() schema.Block {
	return schema.Block{
		Name: "runtime_cluster", Required: true,
		Description: "Facts about the runtime cluster that gardener-operator needs to place the garden's components in it.",
		Body: schema.Body{Blocks: []schema.Block{
			{
				Name: "networking", Required: true,
				Description: "The runtime cluster's own networks, which shoot and seed networks must not overlap.",
				Body: schema.Body{Attributes: []schema.Attribute{
					// Gardener's RuntimeNetworking in docs/api-reference/operator.md runtime pods immutable
					{Name: "pods", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The pod network of the runtime cluster."},
					// Gardener's RuntimeNetworking in docs/api-reference/operator.md runtime services immutable
					{Name: "services", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The service network of the runtime cluster."},
					// Gardener's RuntimeNetworking in docs/api-reference/operator.md runtime nodes immutable
					{Name: "nodes", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The node network of the runtime cluster, if it has a dedicated one."},
					{Name: "block_cidrs", Type: attr.StringList, Checks: attr.Checks(schema.CIDRList()), Description: "Networks that garden components must never be able to reach."},
				}},
			},
			{
				Name:        "provider",
				Description: "Where the runtime cluster runs, so that components can be spread across its zones.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "region", Type: cty.String, Description: "The region the runtime cluster runs in."},
					{Name: "zones", Type: attr.StringList, Description: "The availability zones of the runtime cluster's nodes; with two or more, highly available components spread over them."},
				}},
			},
			{
				Name: "ingress", Required: true,
				Description: "How garden components with a web endpoint (dashboard, discovery server, observability) are reached from outside.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "domains", Type: attr.StringList, Required: true, Checks: attr.Checks(schema.NotEmpty(), schema.DNSNameList()), Description: "Wildcard ingress domains pointing at the runtime cluster's ingress controller; the first is the primary one."},
					// Gardener's IngressController in docs/api-reference/core.md only nginx is supported
					{Name: "controller_kind", Type: cty.String, Default: cty.StringVal("nginx"), AllowedValues: []string{"nginx"}, Description: "The ingress controller Gardener deploys and manages for these domains."},
				}},
			},
			{
				Name:        "settings",
				Description: "Switches for optional behaviour of the runtime cluster's system components.",
				Body: schema.Body{
					Attributes: []schema.Attribute{
						{Name: "vertical_pod_autoscaler_enabled", Type: cty.Bool, Default: cty.True, Description: "Whether gardener-operator deploys its own VPA; turn it off only if the cluster already runs one, because the garden does not work without a VPA."},
						{Name: "topology_aware_routing_enabled", Type: cty.Bool, Default: cty.False, Description: "Whether the virtual garden's etcd and API server Services prefer endpoints in the caller's zone."},
						{Name: "volume_minimum_size", Type: cty.String, Checks: attr.Checks(schema.Quantity()), Description: "The smallest size a persistent volume in the runtime cluster may have, for providers with a minimum."},
					},
					Blocks: []schema.Block{{
						Name:        "load_balancer_services",
						Description: "Settings merged into every LoadBalancer Service that garden components create.",
						Body: schema.Body{Attributes: []schema.Attribute{
							{Name: "annotations", Type: cty.Map(cty.String), Description: "Annotations added to each LoadBalancer Service, for example to choose a load balancer type."},
						}},
					}},
				},
			},
		}},
	}
}

func gardenVirtualCluster() schema.Block {
	return schema.Block{
		Name: "virtual_cluster", Required: true,
		Description: "The virtual garden: the Kubernetes API that hosts Gardener's resources (projects, seeds, shoots) and its control plane.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				// Gardener's DNS in docs/api-reference/operator.md only the first domain is immutable, which a
				// whole-attribute flag cannot express; the planner must treat a change of the first element as
				// a replacement.
				{Name: "dns_domains", Type: attr.StringList, Required: true, Checks: attr.Checks(schema.NotEmpty(), schema.DNSNameList()), Description: "Domains under which the virtual garden API is served as api.<domain> and gardener.<domain>; the first one goes into kubeconfigs and can never change."},
				// Gardener's docs/concepts/operator.md HA cannot be removed once set
				{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether the virtual garden's etcd and API servers run with several replicas spread over nodes and zones; once on, it cannot be turned off."},
			},
			Blocks: []schema.Block{
				{
					Name: "networking", Required: true,
					Description: "Networks of the virtual garden.",
					Body: schema.Body{Attributes: []schema.Attribute{
						// Gardener's Networking in docs/api-reference/operator.md virtual services immutable;
						// Gardener's docs/concepts/operator.md mandatory
						{Name: "services", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.CIDR()), Description: "The IPv4 range from which the virtual API server allocates Service cluster IPs."},
					}},
				},
				{
					Name: "kubernetes", Required: true,
					Description: "The Kubernetes version and settings of the virtual garden's control plane.",
					Body: schema.Body{
						Attributes: []schema.Attribute{
							{Name: "version", Type: cty.String, Required: true, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The Kubernetes version of the virtual garden's API server and controller manager."},
						},
						Blocks: []schema.Block{
							{
								Name:        "kube_api_server",
								Description: "Settings of the virtual garden's kube-apiserver.",
								Body: schema.Body{Attributes: []schema.Attribute{
									{Name: "audit_policy_config_map", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a ConfigMap in the runtime cluster's garden namespace holding the audit policy."},
									{Name: "event_ttl", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How long the API server keeps events."},
									{Name: "encrypted_resources", Type: attr.StringList, Description: "Resources, as resource.group, that are encrypted in etcd in addition to Secrets."},
									attr.FeatureGates("the virtual kube-apiserver"),
								}},
							},
							{
								Name:        "kube_controller_manager",
								Description: "Settings of the virtual garden's kube-controller-manager.",
								Body: schema.Body{Attributes: []schema.Attribute{
									{Name: "certificate_signing_duration", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "The longest validity of certificates signed for CSRs, such as gardenlet client certificates."},
									attr.FeatureGates("the virtual kube-controller-manager"),
								}},
							},
						},
					},
				},
				gardenEtcd(),
				{
					Name:        "maintenance",
					Description: "When gardener-operator may perform disruptive maintenance of the virtual garden.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "time_window_begin", Type: cty.String, Required: true, Checks: attr.Checks(schema.TimeWindow()), Description: "Start of the daily maintenance window."},
						{Name: "time_window_end", Type: cty.String, Required: true, Checks: attr.Checks(schema.TimeWindow()), Description: "End of the daily maintenance window, between 30 minutes and 6 hours after its start."},
					}},
				},
				gardenGardener(),
			},
		},
	}
}

func gardenEtcd() schema.Block {
	storage := func(which string) []schema.Attribute {
		return []schema.Attribute{
			{Name: "storage_capacity", Type: cty.String, Checks: attr.Checks(schema.Quantity()), Description: "Size of the volume of the " + which + " etcd."},
			{Name: "storage_class", Type: cty.String, Description: "Storage class of the volume of the " + which + " etcd; the runtime cluster's default class when unset."},
		}
	}
	return schema.Block{
		Name:        "etcd",
		Description: "The two etcd clusters behind the virtual garden: main for all resources, events for Kubernetes events.",
		Body: schema.Body{Blocks: []schema.Block{
			{
				Name:        "main",
				Description: "The etcd that stores every resource of the virtual garden except events.",
				Body: schema.Body{
					Attributes: storage("main"),
					Blocks: []schema.Block{{
						Name:        "backup",
						Description: "Where the main etcd stores its snapshots; the bucket lives outside the garden and survives it.",
						Body: schema.Body{Attributes: []schema.Attribute{
							// Gardener's Backup in docs/api-reference/operator.md backup provider immutable
							{Name: "provider", Type: cty.String, Required: true, Immutable: true, Description: "The object store provider type, such as aws or local."},
							{Name: "bucket_name", Type: cty.String, Description: "An existing bucket to write to; without it gardener-operator creates and manages a bucket itself."},
							attr.SecretRef("Name of the Secret in the runtime cluster's garden namespace with credentials for the object store."),
							attr.ProviderConfig("Settings specific to the backup provider, passed to the backup bucket."),
						}},
					}},
				},
			},
			{
				Name:        "events",
				Description: "The etcd that stores the virtual garden's events.",
				Body:        schema.Body{Attributes: storage("events")},
			},
		}},
	}
}

func gardenGardener() schema.Block {
	return schema.Block{
		Name:        "gardener",
		Description: "Settings of the Gardener control-plane components that serve and act on the virtual garden API.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				{Name: "version", Type: cty.String, Description: "The Gardener version whose images the control plane runs (a tag of the image vector's Gardener images); the catalog's default version when unset."},
				// Gardener's Gardener in docs/api-reference/operator.md clusterIdentity immutable
				{Name: "cluster_identity", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "A name identifying this garden to the landscape's seeds and shoots; the garden block's label is used when unset."},
			},
			Blocks: []schema.Block{
				{
					Name:        "api_server",
					Description: "Settings of gardener-apiserver, which serves Gardener's resources through the virtual garden.",
					Body: schema.Body{Attributes: []schema.Attribute{
						{Name: "audit_policy_config_map", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Name of a ConfigMap in the runtime cluster's garden namespace holding the audit policy."},
						{Name: "encrypted_resources", Type: attr.StringList, Description: "Gardener resources, as resource.group, encrypted in etcd in addition to those always encrypted."},
						{Name: "watch_cache_default_size", Type: cty.Number, Checks: attr.Checks(schema.NonNegative()), Description: "Default watch cache size per resource; 0 turns the watch cache off."},
						{
							Name: "register_api_services", Type: cty.Bool, Default: cty.True,
							Description: "Whether the Gardener API groups are registered with the virtual kube-apiserver as APIServices served by gardener-apiserver. " +
								"Turn it off only where the Gardener API is served otherwise, such as the local control plane's stand-in CRDs.",
						},
						attr.FeatureGates("gardener-apiserver"),
					}},
				},
				{
					Name:        "admission_controller",
					Description: "Settings of gardener-admission-controller, which validates requests to the virtual garden.",
					Body: schema.Body{Attributes: []schema.Attribute{
						gardenerLogLevel("gardener-admission-controller"),
						{Name: "resource_size_mode", Type: cty.String, Default: cty.StringVal("block"), AllowedValues: []string{"block", "log"}, Description: "Whether an oversized resource is rejected (block) or only logged (log)."},
					}},
				},
				{
					Name: "controller_manager",
					Description: "Settings of gardener-controller-manager, which maintains projects, seeds and shoots in the virtual garden. " +
						"The project controllers' settings are the garden's output project_controller, which project blocks read to predict what the controllers do; " +
						"the shoot loops' settings are its output gardener_controller_manager, which seeds hand to their shoots to predict what the loops do.",
					Body: schema.Body{
						Attributes: append(append([]schema.Attribute{
							gardenerLogLevel("gardener-controller-manager"),
							attr.FeatureGates("gardener-controller-manager"),
						}, projectcontroller.Attributes()...), shootLoopAttributes()...),
						Blocks: []schema.Block{projectcontroller.QuotaBlock()},
					},
				},
				{
					Name:        "scheduler",
					Description: "Settings of gardener-scheduler, which assigns shoots without a seed to one.",
					Body: schema.Body{Attributes: []schema.Attribute{
						gardenerLogLevel("gardener-scheduler"),
						attr.FeatureGates("gardener-scheduler"),
					}},
				},
				{
					Name:        "dashboard",
					Description: "The optional Gardener dashboard, a web UI for the virtual garden.",
					Body: schema.Body{Attributes: []schema.Attribute{
						attr.Enabled(false, "Whether the dashboard is deployed."),
						{Name: "enable_token_login", Type: cty.Bool, Default: cty.True, Description: "Whether users may log in with a bearer token; without it, OIDC must be configured."},
						{Name: "log_level", Type: cty.String, Default: cty.StringVal("info"), AllowedValues: []string{"trace", "debug", "info", "warn", "error"}, Description: "How verbosely the dashboard logs."},
					}},
				},
			},
		},
	}
}

// shootLoopAttributes are gardener_controller_manager's shoot loop settings without their
// defaults: what the block leaves out keeps the component's.
func shootLoopAttributes() []schema.Attribute {
	attrs := gardenercontrollermanager.ShootLoopAttributes()
	for i := range attrs {
		def := attrs[i].Default
		var text string
		if def.Type() == cty.String {
			text = def.AsString()
		} else {
			text = fmt.Sprint(def.True())
		}
		attrs[i].Description += " Default: " + text + "."
		attrs[i].Default = cty.NilVal
	}
	return attrs
}
