package gardenercontrollermanager

import (
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Ports of the health probe and metrics servers. Gardener's documentation shows profiling on 2718
// in an older example (Gardener's "Profiling" docs/monitoring/profiling.md); 2718 and 2719 are
// Gardener's defaults for the two servers.
const (
	HealthProbePort = 2718
	MetricsPort     = 2719
)

// Type is the gardener_controller_manager component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders the objects, and publishes the project controllers' settings for the
// projects' predictions (projectcontroller).
func renderValues(_ render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: Outputs(v)}, nil
}

// Outputs are the component's outputs: the settings of the project controllers.
func Outputs(v Values) map[string]cty.Value {
	return map[string]cty.Value{projectcontroller.OutputName: v.Settings().Value()}
}

// resolved are the controller manager's values with their Common resolved.
type resolved gardenercontrolplane.Component[Values]

// validate checks the controller manager's own values.
func validate(v *Values) error {
	for _, d := range []struct {
		name  string
		value string
	}{
		{"bastion max lifetime", v.BastionMaxLifetime}, {"event ttl", v.EventTTL}, {"seed monitor period", v.SeedMonitorPeriod},
		{"backup buckets condition threshold", v.BackupBucketsConditionThreshold}, {"project stale sync period", v.StaleSyncPeriod},
	} {
		if d.value == "" {
			continue
		}
		if p, err := time.ParseDuration(d.value); err != nil || p <= 0 {
			return fmt.Errorf("%s %q is not a positive duration such as 1h", d.name, d.value)
		}
	}
	if _, err := v.ShootLoops().Durations(); err != nil {
		return err
	}
	for _, d := range []struct {
		value int
		name  string
	}{
		{v.MinimumLifetimeDays, "project minimum lifetime days"},
		{v.StaleGracePeriodDays, "project stale grace period days"},
		{v.StaleExpirationTimeDays, "project stale expiration time days"},
	} {
		if d.value < 0 {
			return fmt.Errorf("%s %d is negative", d.name, d.value)
		}
	}
	for i, q := range v.Quotas {
		if len(q.Hard) == 0 {
			return fmt.Errorf("project quota %d has no hard limits", i+1)
		}
	}
	return nil
}

// Objects renders the runtime cluster objects followed by the virtual garden objects.
func Objects(v Values) ([]render.Object, error) {
	c, err := gardenercontrolplane.ResolveComponent(v, Name, validate)
	if err != nil {
		return nil, err
	}
	r := resolved(c)
	bootstrapper, bootstrappers := seedBootstrapper()
	return r.ControllerObjects(gardenercontrolplane.Controller{
		Image:         images.GardenerControllerManager,
		PriorityClass: priorityclasses.GardenSystem200, // Gardener's docs/development/priority-classes.md
		HealthPort:    HealthProbePort,
		MetricsPort:   MetricsPort,
		CPU:           "100m",
		Memory:        "100Mi",
	}, r.config(), rules(), bootstrapper, bootstrappers)
}

// SeedBootstrapperRole lets gardenlets authenticated by a bootstrap token (group
// system:bootstrappers) request their client certificate: the controller manager auto-approves a
// gardenlet's CSR only if its requester may create certificatesigningrequests/seedclient, which
// this role grants (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md).
const SeedBootstrapperRole = "gardener.cloud:system:seed-bootstrapper"

// seedBootstrapper is SeedBootstrapperRole and its binding to the group of bootstrap tokens.
func seedBootstrapper() (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: SeedBootstrapperRole},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"create", "get"}},
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests/seedclient"}, Verbs: []string{"create"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: SeedBootstrapperRole},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: SeedBootstrapperRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:bootstrappers"}},
	}
	return role, binding
}

// rules grant what the controllers of Gardener's docs/concepts/controller-manager.md do in the
// virtual garden: everything on the Gardener API groups; namespaces, replicated Secrets,
// ResourceQuotas and Events of projects and seeds; the project RBAC it creates (bind and escalate,
// since it grants roles it need not hold); approving gardenlets' client certificate requests after
// checking their requester's permission (Gardener's docs/concepts/controller-manager.md); Leases of
// seeds and of its leader election.
func rules() []rbacv1.PolicyRule {
	all := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{
			"core.gardener.cloud", "operations.gardener.cloud", "security.gardener.cloud", "seedmanagement.gardener.cloud", "settings.gardener.cloud",
		}, Resources: []string{"*"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "events", "namespaces", "resourcequotas", "secrets", "serviceaccounts"}, Verbs: all},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: all},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterrolebindings", "clusterroles", "rolebindings", "roles"}, Verbs: append(all, "bind", "escalate")},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: read},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests/approval"}, Verbs: []string{"update"}},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"kubernetes.io/kube-apiserver-client"}, Verbs: []string{"approve"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: all},
	}
}
