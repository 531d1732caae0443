package landscapedaemon

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type that deploys `gardener daemon` (docs/cli.md), so that a
// landscape runs its own controller in the garden runtime cluster.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "landscape_daemon",
		Description: "The gardener daemon in the garden runtime cluster: leader-electing replicas that plan and apply the landscape continuously, " +
			"with a ServiceAccount and RBAC limited to their own Lease, status ConfigMap, landscape ConfigMap, state Secrets and Events (and, as given, for the objects they manage), " +
			"a Role for approvers, the landscape's files in a ConfigMap mounted at /landscape, the status ConfigMap, a metrics Service (HTTPS, authenticated and authorized) and a PodDisruptionBudget.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The cluster the daemon runs in, usually the garden runtime cluster."),
				{Name: "namespace", Type: cty.String, Default: cty.StringVal("gardener-daemon"), Checks: attr.Checks(schema.DNSLabel()),
					Description: "The namespace of the daemon, its Lease, its landscape ConfigMap <name>-landscape, its status ConfigMap <name>-status and approvals <name>-status-approval: " +
						"a namespace of its own, which must exist before the first apply (the state's namespace must, too), so that the daemon's and the approvers' rights are rights there only."},
				{Name: "name", Type: cty.String, Default: cty.StringVal("gardener-daemon"), Checks: attr.Checks(schema.DNSLabel()), Description: "The name of the Deployment, its ServiceAccount, RBAC, Lease and Service."},
				{Name: "image", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The gardener image, as the repository's Dockerfile builds it, such as registry.example.com/gardener:v0.2.0."},
				{Name: "replicas", Type: cty.Number, Default: cty.NumberIntVal(2), Checks: attr.Checks(schema.Positive()), Description: "Leader-electing replicas: one acts, the others take over when it stops."},
				{Name: "policy", Type: cty.String, Default: cty.StringVal("approve-destructive"), AllowedValues: []string{"auto", "approve-destructive", "plan-only"}, Description: "What the daemon applies by itself: every plan, plans that delete and replace nothing (others wait for gardener approve), or nothing."},
				{Name: "resync", Type: cty.String, Checks: attr.Checks(schema.Duration()), Description: "How often the landscape is planned without a trigger; 10m when unset."},
				{Name: "files", Type: cty.Map(cty.String), Required: true, Description: "The landscape's files by name, such as { \"main.hcl\" = file(\"main.hcl\") }; they become a ConfigMap mounted at /landscape. The landscape must keep its state in a cluster."},
				{Name: "kubeconfig_secret", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "A Secret in the namespace with kubeconfigs of the landscape's other clusters, mounted at /kubeconfigs for their cluster blocks."},
				{Name: "state_namespace", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the landscape's state (its state block's namespace), where the daemon may read and write the state's Secrets and lock Lease; the daemon's namespace when unset."},
				{Name: "variables", Type: cty.Map(cty.String), Description: "Input variables of the landscape as the daemon sets them (environment variables GARDENER_VAR_<name>), such as { in_cluster = \"true\" }; visible in the Deployment, so never for secrets (variables_secret is for those)."},
				{Name: "variables_secret", Type: cty.String, Checks: attr.Checks(schema.ObjectName()),
					Description: "A Secret in the namespace whose keys set input variables of the same names (environment variables GARDENER_SENSITIVE_VAR_<key>, which the kubelet reads from the Secret): " +
						"their values are sensitive and never shown. The pods read it when they start."},
				{Name: "shard_by_seed", Type: cty.Bool, Default: cty.False,
					Description: "Run the daemon with --shard-by-seed: a shard per seed and the garden shard, each with a leader of its own among the replicas, a state and a state lock of its own and a status ConfigMap of its own (docs/daemon.md, Sharding). " +
						"The Role then grants what sharding needs: every Lease of the namespace (the seed shards' elections and the replicas' announcements, whose names follow the pods), and by name the status, approval, state head and lock of each shard in seed_shards."},
				{Name: "seed_shards", Type: attr.StringList,
					Description: "The seed shards, by the instance addresses of their seed blocks (seed.eu1, seed.all[\"eu1\"]), with shard_by_seed: the component renders their status ConfigMaps <name>-status-<shard> and names their status, approvals, state head Secrets and lock Leases in the Roles. " +
						"The daemon may create no ConfigMap (it could create its approvals) and RBAC names no object by pattern, so a seed shard not listed can neither publish its status nor write its state; list every seed block instance of the landscape."},
				{Name: "cluster_admin", Type: cty.Bool, Default: cty.False, Description: "Bind the daemon to cluster-admin in this cluster instead of listing cluster_rules; a garden landscape manages most kinds of its runtime cluster. The daemon can then write anything, its approvals included."},
			},
			Blocks: []schema.Block{{
				Name: "cluster_rules", Nesting: schema.NestingList,
				Description: "A permission the daemon needs in this cluster for the objects the landscape manages (least privilege: list exactly what it renders).",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "api_groups", Type: attr.StringList, Required: true, Description: "API groups; \"\" is the core group."},
					{Name: "resources", Type: attr.StringList, Required: true, Description: "Resources, such as configmaps."},
					{Name: "verbs", Type: attr.StringList, Required: true, Description: "Verbs, such as get, list, watch, create, update, patch, delete."},
				}},
			}, {
				Name: "approvers", Nesting: schema.NestingList,
				Description: "Who may approve the daemon's destructive plans (gardener approve): bound to the Role <name>-approver, which may create the approval ConfigMap <name>-status-approval and nothing the daemon needs.",
				Body:        subjectBody(),
			}, {
				Name: "metrics_readers", Nesting: schema.NestingList,
				Description: "Who may scrape the daemon's /metrics (such as Prometheus's ServiceAccount): bound to the ClusterRole gardener.cloud:<namespace>:<name>:metrics-reader (GET /metrics).",
				Body:        subjectBody(),
			}},
		},
	}
}

// subjectBody is an RBAC subject: a user, a group or a service account.
func subjectBody() schema.Body {
	return schema.Body{Attributes: []schema.Attribute{
		{Name: "kind", Type: cty.String, Required: true, AllowedValues: []string{"User", "Group", "ServiceAccount"}, Description: "User, Group or ServiceAccount."},
		{Name: "name", Type: cty.String, Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The user's, group's or service account's name."},
		{Name: "namespace", Type: cty.String, Checks: attr.Checks(schema.DNSLabel()), Description: "The service account's namespace; required for a ServiceAccount."},
	}}
}
