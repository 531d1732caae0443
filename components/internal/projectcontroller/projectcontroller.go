// Package projectcontroller holds the settings of gardener-controller-manager's project
// controllers once: the project controller's ResourceQuota templates and the stale controller's
// days (ProjectControllerConfiguration in pkg/controllermanager/apis/config/v1alpha1/types.go at
// Gardener v1.120.0). The blocks that configure gardener-controller-manager (the garden block's
// virtual_cluster.gardener.controller_manager and the gardener_controller_manager component)
// declare them with Attributes and QuotaBlock, render them into the controller manager's
// configuration with Settings.Config and publish them as the output project_controller; the project
// component reads that output to predict what the controllers will do, so that its predictions
// follow the settings the controller manager runs with instead of a copy of them.
package projectcontroller

import (
	"time"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Values are the settings as the configuring blocks decode them: attributes prefixed with
// project_ among the controller manager's other settings.
type Values struct {
	MinimumLifetimeDays     int    `json:"project_minimum_lifetime_days"`
	StaleGracePeriodDays    int    `json:"project_stale_grace_period_days"`
	StaleExpirationTimeDays int    `json:"project_stale_expiration_time_days"`
	StaleSyncPeriod         string `json:"project_stale_sync_period"`
	// Quotas are the project_quota blocks in order: the first whose selector matches a
	// Project's labels applies.
	Quotas []Quota `json:"project_quota"`
}

// Quota is a ResourceQuota template for the project namespaces of the Projects it selects
// (QuotaConfiguration in pkg/controllermanager/apis/config/v1alpha1/types.go at v1.120.0).
type Quota struct {
	Hard        map[string]string `json:"hard"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	// ProjectSelector are labels a Project must carry; empty matches every Project.
	ProjectSelector map[string]string `json:"project_selector"`
}

// Settings are the values as the output project_controller carries them, without the prefix.
type Settings struct {
	MinimumLifetimeDays     int     `json:"minimum_lifetime_days"`
	StaleGracePeriodDays    int     `json:"stale_grace_period_days"`
	StaleExpirationTimeDays int     `json:"stale_expiration_time_days"`
	StaleSyncPeriod         string  `json:"stale_sync_period"`
	Quotas                  []Quota `json:"quotas"`
}

// Settings are the values as the output carries them.
func (v Values) Settings() Settings {
	return Settings{
		MinimumLifetimeDays: v.MinimumLifetimeDays, StaleGracePeriodDays: v.StaleGracePeriodDays,
		StaleExpirationTimeDays: v.StaleExpirationTimeDays, StaleSyncPeriod: v.StaleSyncPeriod, Quotas: v.Quotas,
	}
}

// Defaults are gardener-controller-manager's own defaults (SetDefaults_ProjectControllerConfiguration
// in pkg/controllermanager/apis/config/v1alpha1/defaults.go at v1.120.0), which the attributes
// declare; a project that names no controller manager's settings is predicted with them.
var Defaults = Settings{MinimumLifetimeDays: 30, StaleGracePeriodDays: 14, StaleExpirationTimeDays: 90, StaleSyncPeriod: "12h"}

// Attributes are the settings' attributes of a block that configures gardener-controller-manager.
func Attributes() []schema.Attribute {
	days := func(name string, def int, what string) schema.Attribute {
		return schema.Attribute{Name: name, Type: cty.Number, Default: cty.NumberIntVal(int64(def)), Checks: attr.Checks(schema.NonNegative()), Description: what}
	}
	return []schema.Attribute{
		days("project_minimum_lifetime_days", Defaults.MinimumLifetimeDays, "Projects younger than this, or with activity within it, are never stale (minimumLifetimeDays)."),
		days("project_stale_grace_period_days", Defaults.StaleGracePeriodDays, "A stale project gets its auto-delete time only once it has been stale this long (staleGracePeriodDays)."),
		days("project_stale_expiration_time_days", Defaults.StaleExpirationTimeDays, "A stale project is deleted this long after it became stale (staleExpirationTimeDays)."),
		{Name: "project_stale_sync_period", Type: cty.String, Default: cty.StringVal(Defaults.StaleSyncPeriod), Checks: attr.Checks(schema.Duration()), Description: "How often the stale controller checks each project (staleSyncPeriod); staleness is found, and stale projects are deleted, up to this long after their time."},
	}
}

// QuotaBlock is the project_quota block of a block that configures gardener-controller-manager.
func QuotaBlock() schema.Block {
	return schema.Block{
		Name: "project_quota", Nesting: schema.NestingList,
		Description: "A ResourceQuota named gardener that gardener-controller-manager's project controller keeps in the namespace of every project it selects; the first block whose project_selector matches a Project's labels applies. " +
			"Limits the quota already has (raised by hand) are kept, limits the template does not list are removed.",
		Body: schema.Body{Attributes: []schema.Attribute{
			{Name: "hard", Type: cty.Map(cty.String), Required: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The quota's limits, such as { \"count/shoots.core.gardener.cloud\" = \"100\" }."},
			{Name: "labels", Type: cty.Map(cty.String), Description: "Labels of the ResourceQuota, merged with those it has."},
			{Name: "annotations", Type: cty.Map(cty.String), Description: "Annotations of the ResourceQuota, merged with those it has."},
			{Name: "project_selector", Type: cty.Map(cty.String), Description: "Labels a Project must carry for this quota (a project block's labels); every project when unset."},
		}},
	}
}

// OutputName is the output that publishes the settings.
const OutputName = "project_controller"

var quotaType = cty.Object(map[string]cty.Type{
	"hard": cty.Map(cty.String), "labels": cty.Map(cty.String), "annotations": cty.Map(cty.String), "project_selector": cty.Map(cty.String),
})

// OutputType is the type of the output project_controller.
var OutputType = cty.Object(map[string]cty.Type{
	"minimum_lifetime_days": cty.Number, "stale_grace_period_days": cty.Number, "stale_expiration_time_days": cty.Number,
	"stale_sync_period": cty.String, "quotas": cty.List(quotaType),
})

// Output describes the output project_controller for a configuring block's schema.
func Output() schema.Output {
	return schema.Output{Name: OutputName, Type: OutputType, Description: "The settings gardener-controller-manager's project and stale controllers run with; " +
		"give them to project blocks (project_controller = <this>.project_controller) so that their plans predict what the controllers do."}
}

// Value is the output's value.
func (s Settings) Value() cty.Value {
	stringMap := func(m map[string]string) cty.Value {
		if len(m) == 0 {
			return cty.MapValEmpty(cty.String)
		}
		vals := map[string]cty.Value{}
		for k, v := range m {
			vals[k] = cty.StringVal(v)
		}
		return cty.MapVal(vals)
	}
	quotas := cty.ListValEmpty(quotaType)
	if len(s.Quotas) > 0 {
		var list []cty.Value
		for _, q := range s.Quotas {
			list = append(list, cty.ObjectVal(map[string]cty.Value{
				"hard": stringMap(q.Hard), "labels": stringMap(q.Labels), "annotations": stringMap(q.Annotations), "project_selector": stringMap(q.ProjectSelector),
			}))
		}
		quotas = cty.ListVal(list)
	}
	return cty.ObjectVal(map[string]cty.Value{
		"minimum_lifetime_days":      cty.NumberIntVal(int64(s.MinimumLifetimeDays)),
		"stale_grace_period_days":    cty.NumberIntVal(int64(s.StaleGracePeriodDays)),
		"stale_expiration_time_days": cty.NumberIntVal(int64(s.StaleExpirationTimeDays)),
		"stale_sync_period":          cty.StringVal(s.StaleSyncPeriod),
		"quotas":                     quotas,
	})
}

// Config is the controllers.project section of the ControllerManagerConfiguration.
func (s Settings) Config(concurrentSyncs int) map[string]any {
	project := map[string]any{
		"concurrentSyncs":         concurrentSyncs,
		"minimumLifetimeDays":     s.MinimumLifetimeDays,
		"staleGracePeriodDays":    s.StaleGracePeriodDays,
		"staleExpirationTimeDays": s.StaleExpirationTimeDays,
		"staleSyncPeriod":         s.StaleSyncPeriod,
	}
	if len(s.Quotas) == 0 {
		return project
	}
	quotas := make([]any, 0, len(s.Quotas))
	for _, q := range s.Quotas {
		config := map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "spec": map[string]any{"hard": kube.AnyMap(q.Hard)}}
		if meta := quotaMetadata(q); len(meta) > 0 {
			config["metadata"] = meta
		}
		selector := map[string]any{}
		if len(q.ProjectSelector) > 0 {
			selector["matchLabels"] = kube.AnyMap(q.ProjectSelector)
		}
		quotas = append(quotas, map[string]any{"config": config, "projectSelector": selector})
	}
	project["quotas"] = quotas
	return project
}

func quotaMetadata(q Quota) map[string]any {
	meta := map[string]any{}
	if len(q.Labels) > 0 {
		meta["labels"] = kube.AnyMap(q.Labels)
	}
	if len(q.Annotations) > 0 {
		meta["annotations"] = kube.AnyMap(q.Annotations)
	}
	return meta
}

// QuotaFor is the template the project controller applies to a Project with these labels: the
// first whose selector matches them (quotaConfigurationForProject in
// pkg/controllermanager/controller/project/project/reconciler.go at v1.120.0); nil when none does.
func (s Settings) QuotaFor(projectLabels map[string]string) *Quota {
	for i, q := range s.Quotas {
		if labels.SelectorFromSet(q.ProjectSelector).Matches(labels.Set(projectLabels)) {
			return &s.Quotas[i]
		}
	}
	return nil
}

// Days converts a number of days to a duration.
func Days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

// SyncPeriod is the stale controller's period, the default one when it does not parse (the
// schema checked it).
func (s Settings) SyncPeriod() time.Duration {
	d, err := time.ParseDuration(s.StaleSyncPeriod)
	if err != nil || d <= 0 {
		d, _ = time.ParseDuration(Defaults.StaleSyncPeriod)
	}
	return d
}
