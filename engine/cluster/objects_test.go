package cluster_test

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindSpec builds objects of one kind for the bulk tests.
type kindSpec struct {
	gvr  schema.GroupVersionResource
	kind string
	body func(i int, namespace string) map[string]interface{}
}

// bulkKinds are eight kinds a Gardener landscape uses in bulk, with bodies that need nothing
// else to exist (no pods: Deployments have zero replicas, Services are headless).
var bulkKinds = []kindSpec{
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ConfigMap", func(i int, _ string) map[string]interface{} {
		return map[string]interface{}{"data": map[string]interface{}{"key": "value-" + strconv.Itoa(i)}}
	}},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, "Secret", func(i int, _ string) map[string]interface{} {
		return map[string]interface{}{"type": "Opaque", "data": map[string]interface{}{"key": "dmFsdWU="}}
	}},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, "Service", func(i int, _ string) map[string]interface{} {
		return map[string]interface{}{"spec": map[string]interface{}{
			"clusterIP": "None",
			"selector":  map[string]interface{}{"app": "app-" + strconv.Itoa(i)},
			"ports":     []interface{}{map[string]interface{}{"port": int64(80)}},
		}}
	}},
	{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, "ServiceAccount", func(int, string) map[string]interface{} {
		return map[string]interface{}{}
	}},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, "Role", func(int, string) map[string]interface{} {
		return map[string]interface{}{"rules": []interface{}{map[string]interface{}{
			"apiGroups": []interface{}{""}, "resources": []interface{}{"configmaps"}, "verbs": []interface{}{"get"},
		}}}
	}},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, "RoleBinding", func(i int, namespace string) map[string]interface{} {
		return map[string]interface{}{
			"roleRef":  map[string]interface{}{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "role-" + strconv.Itoa(i)},
			"subjects": []interface{}{map[string]interface{}{"kind": "ServiceAccount", "name": "serviceaccount-" + strconv.Itoa(i), "namespace": namespace}},
		}
	}},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "Deployment", func(i int, _ string) map[string]interface{} {
		labels := map[string]interface{}{"app": "app-" + strconv.Itoa(i)}
		return map[string]interface{}{"spec": map[string]interface{}{
			"replicas": int64(0),
			"selector": map[string]interface{}{"matchLabels": labels},
			"template": map[string]interface{}{
				"metadata": map[string]interface{}{"labels": labels},
				"spec":     map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "app", "image": "registry.local/app:1"}}},
			},
		}}
	}},
	{schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, "PodDisruptionBudget", func(i int, _ string) map[string]interface{} {
		return map[string]interface{}{"spec": map[string]interface{}{
			"maxUnavailable": int64(1),
			"selector":       map[string]interface{}{"matchLabels": map[string]interface{}{"app": "app-" + strconv.Itoa(i)}},
		}}
	}},
}

// bulkObjects builds objects from..to-1 of every bulk kind, spread over namespaces, carrying the
// inventory label of landscape.
func bulkObjects(landscape string, namespaces []string, from, to int) []created {
	var out []created
	for _, k := range bulkKinds {
		for i := from; i < to; i++ {
			ns := namespaces[i%len(namespaces)]
			u := &unstructured.Unstructured{Object: k.body(i, ns)}
			u.SetGroupVersionKind(k.gvr.GroupVersion().WithKind(k.kind))
			u.SetNamespace(ns)
			u.SetName(strings.ToLower(k.kind) + "-" + strconv.Itoa(i))
			u.SetLabels(map[string]string{inventoryLabel: landscape})
			out = append(out, created{gvr: k.gvr, obj: u})
		}
	}
	return out
}
