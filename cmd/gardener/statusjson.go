package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// statusJSONFormat is the version of `gardener status --json`'s document.
var statusJSONFormat = formatversion.Version{Major: 1, Minor: 1}

// statusJSON is `gardener status --json`: the status ConfigMap's fields under snake_case names,
// the fields that hold one item a line as lists, and the last plan as the plan JSON it is
// (docs/plan-format.md). Fields the daemon left empty are left out.
type statusJSON struct {
	FormatVersion formatversion.Version `json:"format_version"`
	Landscape     string                `json:"landscape,omitempty"`
	Policy        string                `json:"policy,omitempty"`
	Phase         string                `json:"phase,omitempty"`
	Message       string                `json:"message,omitempty"`
	Fingerprint   string                `json:"fingerprint,omitempty"`
	// Scope are the instances a targeted cycle planned (format 1.1); absent for a full cycle.
	Scope               []string `json:"scope,omitempty"`
	LastPlanTime        string   `json:"last_plan_time,omitempty"`
	LastPlanHash        string   `json:"last_plan_hash,omitempty"`
	LastPlanSummary     string   `json:"last_plan_summary,omitempty"`
	LastApplyTime       string   `json:"last_apply_time,omitempty"`
	LastSuccessfulApply string   `json:"last_successful_apply,omitempty"`
	LastApplyResult     []string `json:"last_apply_result,omitempty"`
	NextScheduledChange string   `json:"next_scheduled_change,omitempty"`
	Conditions          []string `json:"conditions,omitempty"`
	DriftedObjects      []string `json:"drifted_objects,omitempty"`
	// Components are "ADDRESS: applied" or "ADDRESS: what stopped it", one a component.
	Components []string `json:"components,omitempty"`
	Errors     string   `json:"errors,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	// ApprovedPlanHash is the plan hash the approval ConfigMap names, when the reader may read it.
	ApprovedPlanHash string `json:"approved_plan_hash,omitempty"`
	// LastPlan is the last plan's JSON; LastPlanNote says why it is missing (too large).
	LastPlan     json.RawMessage `json:"last_plan,omitempty"`
	LastPlanNote string          `json:"last_plan_note,omitempty"`
}

// writeStatusJSON writes the status ConfigMap's data and the approved plan hash as statusJSON.
func writeStatusJSON(w io.Writer, data map[string]string, approved string) error {
	lines := func(key string) []string {
		v := strings.TrimRight(data[key], "\n")
		if v == "" {
			return nil
		}
		return strings.Split(v, "\n")
	}
	out := statusJSON{
		FormatVersion: statusJSONFormat,
		Landscape:     data["landscape"], Policy: data["policy"], Phase: data["phase"], Message: data["message"],
		Fingerprint: data["fingerprint"], Scope: lines("scope"),
		LastPlanTime: data["last-plan-time"], LastPlanHash: data["last-plan-hash"], LastPlanSummary: data["last-plan-summary"],
		LastApplyTime: data["last-apply-time"], LastSuccessfulApply: data["last-successful-apply"],
		LastApplyResult: lines("last-apply-result"), NextScheduledChange: data["next-scheduled-change"],
		Conditions: lines("conditions"), DriftedObjects: lines("drifted-objects"), Components: lines("components"),
		Errors: data["errors"], Warnings: lines("warnings"), ApprovedPlanHash: approved,
	}
	if plan := data["last-plan.json"]; plan != "" {
		if json.Valid([]byte(plan)) {
			out.LastPlan = json.RawMessage(plan)
		} else {
			out.LastPlanNote = plan
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
