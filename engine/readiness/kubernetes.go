package readiness

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Rules for the non-workload Kubernetes kinds whose readiness gates what comes after them: a
// custom resource can only be applied once its CRD is Established, an aggregated API is usable once
// its APIService is Available.

// crdReady: Established=True and NamesAccepted not False. A NamesAccepted=False CRD conflicts with
// another CRD's names and stays so until one of them changes, hence terminal.
func crdReady(obj *unstructured.Unstructured, _ Options) Status {
	conds := conditions(obj)
	if c, ok := findCondition(conds, "NamesAccepted"); ok && c.Status == "False" {
		return terminal(c.describe())
	}
	return readyUnless(requireTrue(conds, "Established"))
}

// apiServiceReady: Available=True; the message says which backend is failing (for example
// `failing or missing response from https://10.0.0.1:443/...`).
func apiServiceReady(obj *unstructured.Unstructured, _ Options) Status {
	return readyUnless(requireTrue(conditions(obj), "Available"))
}

// serviceReady: a Service is ready once it exists, except a LoadBalancer Service when the caller
// needs its address (Options.RequireLoadBalancerAddress): then it waits for an ingress IP or
// hostname.
func serviceReady(obj *unstructured.Unstructured, opts Options) Status {
	if !opts.RequireLoadBalancerAddress || stringField(obj, "spec", "type") != "LoadBalancer" {
		return ready()
	}
	ingress, _, _ := unstructured.NestedSlice(obj.Object, "status", "loadBalancer", "ingress")
	for _, in := range ingress {
		m, _ := in.(map[string]any)
		ip, _ := m["ip"].(string)
		hostname, _ := m["hostname"].(string)
		if ip != "" || hostname != "" {
			return ready()
		}
	}
	return notReady("no load balancer address assigned yet")
}

// pvcReady: Bound. A Lost claim has lost its volume for good (terminal); any other phase is
// reported as it is (Pending usually means no volume could be provisioned or bound yet).
func pvcReady(obj *unstructured.Unstructured, _ Options) Status {
	switch phase := stringField(obj, "status", "phase"); phase {
	case "Bound":
		return ready()
	case "Lost":
		return terminal("claim Lost its volume")
	default:
		return notReady("claim is " + orDefault(phase, "Pending"))
	}
}

// namespaceReady: phase Active (a Terminating namespace refuses new objects).
func namespaceReady(obj *unstructured.Unstructured, _ Options) Status {
	if phase := stringField(obj, "status", "phase"); phase != "" && phase != "Active" {
		return notReady("namespace is " + phase)
	}
	return ready()
}

// podReady: Ready=True, or a Pod that ran to completion (Succeeded). A Failed Pod is not restarted
// and is terminal. The reason names the containers that are waiting and why (ImagePullBackOff,
// CrashLoopBackOff, ...), the usual answer to "why is it not ready".
func podReady(obj *unstructured.Unstructured, _ Options) Status {
	switch phase := stringField(obj, "status", "phase"); phase {
	case "Succeeded":
		return ready()
	case "Failed":
		return terminal(withDetail("pod Failed", stringField(obj, "status", "message")))
	}
	conds := conditions(obj)
	if c, ok := findCondition(conds, "Ready"); ok && c.Status == "True" {
		return ready()
	}
	reason := "pod is " + orDefault(stringField(obj, "status", "phase"), "Pending")
	if waiting := waitingContainers(obj); waiting != "" {
		return notReady(reason + ": " + waiting)
	}
	if c, ok := findCondition(conds, "PodScheduled"); ok && c.Status == "False" {
		return notReady(withDetail(reason, "unschedulable: "+c.detail()))
	}
	if c, ok := findCondition(conds, "Ready"); ok {
		return notReady(withDetail(reason, c.detail()))
	}
	return notReady(reason)
}

// waitingContainers describes containers (init containers first) stuck in a waiting state, sorted
// by name within each list.
func waitingContainers(obj *unstructured.Unstructured) string {
	var out []string
	for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
		statuses, _, _ := unstructured.NestedSlice(obj.Object, "status", list)
		var part []string
		for _, s := range statuses {
			m, ok := s.(map[string]any)
			if !ok {
				continue
			}
			name, _ := m["name"].(string)
			reason, _, _ := unstructured.NestedString(m, "state", "waiting", "reason")
			if reason == "" {
				continue
			}
			msg, _, _ := unstructured.NestedString(m, "state", "waiting", "message")
			part = append(part, withDetail(fmt.Sprintf("container %s %s", name, reason), msg))
		}
		sort.Strings(part)
		out = append(out, part...)
	}
	return strings.Join(out, ", ")
}
