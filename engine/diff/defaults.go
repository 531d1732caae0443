package diff

import (
	"strings"
)

// The API server defaults a built-in object after merging an apply: a field the apply removes
// comes back with its default. That matters most inside atomic values, which an apply replaces
// as a whole (an env var's fieldRef loses the apiVersion the server defaulted, a NetworkPolicy
// port its protocol, a webhook rule its scope) and would otherwise look changed on every plan.
// The defaulting functions are not part of the client libraries, so the defaults that matter are
// listed here by OpenAPI type and field, from kubernetes/pkg/apis/*/v1/defaults.go. Custom
// resources carry their defaults in the schema (the default keyword), which structured-merge-diff
// exposes as StructField.Default and which the comparer uses as well.

// defaultValue yields a field's default from the (merged) object that contains it.
type defaultValue func(parent map[string]any) (any, bool)

func always(v any) defaultValue {
	return func(map[string]any) (any, bool) { return v, true }
}

const k8s = "io.k8s.api."

// builtinDefaults maps OpenAPI type names to their defaulted fields.
var builtinDefaults = map[string]map[string]defaultValue{
	k8s + "core.v1.ObjectFieldSelector":           {"apiVersion": always("v1")},
	k8s + "core.v1.ServiceAccountTokenProjection": {"expirationSeconds": always(int64(3600))},
	k8s + "core.v1.Container": {
		"imagePullPolicy":          imagePullPolicy,
		"terminationMessagePath":   always("/dev/termination-log"),
		"terminationMessagePolicy": always("File"),
	},
	k8s + "core.v1.ContainerPort": {"protocol": always("TCP")},
	k8s + "core.v1.ServicePort": {
		"protocol":   always("TCP"),
		"targetPort": func(p map[string]any) (any, bool) { v, ok := p["port"]; return v, ok },
	},
	k8s + "core.v1.PodSpec": {
		"restartPolicy":                 always("Always"),
		"dnsPolicy":                     always("ClusterFirst"),
		"schedulerName":                 always("default-scheduler"),
		"terminationGracePeriodSeconds": always(int64(30)),
		"securityContext":               always(map[string]any{}),
	},
	k8s + "core.v1.Probe": {
		"timeoutSeconds":   always(int64(1)),
		"periodSeconds":    always(int64(10)),
		"successThreshold": always(int64(1)),
		"failureThreshold": always(int64(3)),
	},
	k8s + "core.v1.HTTPGetAction":             {"scheme": always("HTTP")},
	k8s + "core.v1.ConfigMapVolumeSource":     {"defaultMode": always(int64(420))},
	k8s + "core.v1.SecretVolumeSource":        {"defaultMode": always(int64(420))},
	k8s + "core.v1.ProjectedVolumeSource":     {"defaultMode": always(int64(420))},
	k8s + "core.v1.DownwardAPIVolumeSource":   {"defaultMode": always(int64(420))},
	k8s + "core.v1.ServiceSpec":               {"sessionAffinity": always("None"), "type": always("ClusterIP")},
	k8s + "core.v1.PersistentVolumeClaimSpec": {"volumeMode": always("Filesystem")},
	// StatefulSet volume claim templates, an atomic list, get their type and a pending status.
	k8s + "core.v1.PersistentVolumeClaim": {
		"apiVersion": always("v1"), "kind": always("PersistentVolumeClaim"),
		"status": always(map[string]any{"phase": "Pending"}),
	},
	k8s + "apps.v1.DeploymentSpec": {
		"revisionHistoryLimit": always(int64(10)), "progressDeadlineSeconds": always(int64(600)),
		"strategy": always(map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}}),
	},
	k8s + "apps.v1.DeploymentStrategy": {
		"type": always("RollingUpdate"),
		"rollingUpdate": func(s map[string]any) (any, bool) {
			if t, _ := s["type"].(string); t != "" && t != "RollingUpdate" {
				return nil, false
			}
			return map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}, true
		},
	},
	k8s + "apps.v1.RollingUpdateDeployment":             {"maxSurge": always("25%"), "maxUnavailable": always("25%")},
	k8s + "apps.v1.StatefulSetSpec":                     {"podManagementPolicy": always("OrderedReady"), "revisionHistoryLimit": always(int64(10))},
	k8s + "apps.v1.DaemonSetSpec":                       {"revisionHistoryLimit": always(int64(10))},
	k8s + "networking.v1.NetworkPolicyPort":             {"protocol": always("TCP")},
	k8s + "admissionregistration.v1.RuleWithOperations": {"scope": always("*")},
	k8s + "admissionregistration.v1.ValidatingWebhook": {
		"failurePolicy": always("Fail"), "matchPolicy": always("Equivalent"), "timeoutSeconds": always(int64(10)),
		"namespaceSelector": always(map[string]any{}), "objectSelector": always(map[string]any{}),
	},
	k8s + "admissionregistration.v1.MutatingWebhook": {
		"failurePolicy": always("Fail"), "matchPolicy": always("Equivalent"), "timeoutSeconds": always(int64(10)),
		"namespaceSelector": always(map[string]any{}), "objectSelector": always(map[string]any{}),
		"reinvocationPolicy": always("Never"),
	},
	k8s + "rbac.v1.Subject":  {"apiGroup": subjectAPIGroup},
	k8s + "batch.v1.JobSpec": {"backoffLimit": always(int64(6)), "completionMode": always("NonIndexed"), "suspend": always(false)},
}

// imagePullPolicy defaults to Always for the latest tag (or none) and IfNotPresent otherwise.
func imagePullPolicy(c map[string]any) (any, bool) {
	image, _ := c["image"].(string)
	if image == "" {
		return nil, false
	}
	name := image
	if at := strings.IndexByte(name, '@'); at >= 0 {
		return "IfNotPresent", true // pinned by digest
	}
	slash := strings.LastIndexByte(name, '/')
	colon := strings.LastIndexByte(name, ':')
	if colon <= slash || name[colon+1:] == "latest" {
		return "Always", true
	}
	return "IfNotPresent", true
}

// subjectAPIGroup defaults users and groups to the RBAC group.
func subjectAPIGroup(s map[string]any) (any, bool) {
	switch s["kind"] {
	case "User", "Group":
		return "rbac.authorization.k8s.io", true
	}
	return nil, false
}
