package rendering

import (
	"encoding/base64"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The binding kinds whose referenced Secret a copy takes (Gardener's "Security"
// docs/api-reference/security.md for CredentialsBinding; SecretBinding in
// core.gardener.cloud/v1beta1).
var bindings = map[string]struct {
	gvr schema.GroupVersionResource
	// ref is the path of the binding's Secret reference (name, namespace).
	ref []string
}{
	"CredentialsBinding": {schema.GroupVersionResource{Group: "security.gardener.cloud", Version: "v1alpha1", Resource: "credentialsbindings"}, []string{"credentialsRef"}},
	"SecretBinding":      {schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "secretbindings"}, []string{"secretRef"}},
}

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// minSecretLength is the shortest copied value the plan hides outside the copy itself.
const minSecretLength = 8

// copyPart renders a part that copies a Secret (render.CopySpec): the source as the landscape
// renders it, or else as it is live; its values become secrets of the plan.
func (r *Renderer) copyPart(child *Rendered, c *render.CopySpec, clusters map[string]cty.Value) error {
	if c.FromSelector != "" {
		return r.copySelected(child, c, clusters)
	}
	if c.Cluster == "" || c.Namespace == "" || c.Name == "" || c.FromCluster == "" {
		return fmt.Errorf("a Secret copy needs its cluster, namespace, name and source cluster")
	}
	ns, name := c.FromNamespace, c.FromName
	if c.BindingKind != "" {
		b, ok := bindings[c.BindingKind]
		if !ok {
			return fmt.Errorf("a Secret copy cannot follow a %s; it follows a CredentialsBinding or a SecretBinding", c.BindingKind)
		}
		if r.Placeholders {
			child.Objects = []render.Object{{Cluster: c.Cluster, Object: copiedSecret(c, nil)}}
			return nil
		}
		binding, err := r.find(clusters, c.FromCluster, b.gvr, b.gvr.Group, c.BindingKind, c.BindingNamespace, c.BindingName)
		if err != nil {
			return err
		}
		if binding == nil {
			return fmt.Errorf("binding: %s %s/%s is neither declared in the landscape nor in cluster %s", c.BindingKind, c.BindingNamespace, c.BindingName, c.FromCluster)
		}
		ref, _, _ := unstructured.NestedStringMap(binding.Object, b.ref...)
		ns, name = ref["namespace"], ref["name"]
		if ns == "" {
			ns = c.BindingNamespace
		}
		if kind := ref["kind"]; kind != "" && kind != "Secret" {
			return fmt.Errorf("binding: %s %s/%s refers to a %s; only Secrets are copied", c.BindingKind, c.BindingNamespace, c.BindingName, kind)
		}
		if name == "" {
			return fmt.Errorf("binding: %s %s/%s names no Secret", c.BindingKind, c.BindingNamespace, c.BindingName)
		}
	}
	if r.Placeholders {
		child.Objects = []render.Object{{Cluster: c.Cluster, Object: copiedSecret(c, nil)}}
		return nil
	}
	source, err := r.find(clusters, c.FromCluster, secretsGVR, "", "Secret", ns, name)
	if err != nil {
		return err
	}
	if source == nil {
		return fmt.Errorf("source Secret %s/%s is neither declared in the landscape nor in cluster %s", ns, name, c.FromCluster)
	}
	out := copiedSecret(c, source)
	hideValues(child, out)
	child.Objects = []render.Object{{Cluster: c.Cluster, Object: out}}
	return nil
}

// hideValues makes a copy's values secrets of the plan (the Secret's own data is never shown
// anyway). Short values, such as a region or "true" beside the credentials, would hide every
// field that contains them, so only values of minSecretLength characters or more count.
func hideValues(child *Rendered, out *unstructured.Unstructured) {
	hide := func(s string) {
		if len(s) >= minSecretLength {
			child.Secrets = append(child.Secrets, s)
		}
	}
	for _, field := range []string{"data", "stringData"} {
		values, _ := out.Object[field].(map[string]any)
		for _, v := range values {
			s, ok := v.(string)
			if !ok || s == "" {
				continue
			}
			if field == "stringData" {
				hide(s)
			} else if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
				hide(s)
				hide(string(raw))
			}
		}
	}
}

// copySelected renders a part that copies every Secret of a namespace matching a label selector
// (render.CopySpec.FromSelector): the Secrets the landscape renders there, and the live ones it
// does not render, each under its own name, sorted by name.
func (r *Renderer) copySelected(child *Rendered, c *render.CopySpec, clusters map[string]cty.Value) error {
	if c.Cluster == "" || c.Namespace == "" || c.FromCluster == "" || c.FromNamespace == "" || c.Name != "" {
		return fmt.Errorf("a Secret copy by selector needs its cluster, namespace, source cluster and source namespace, and no name")
	}
	selector, err := labels.Parse(c.FromSelector)
	if err != nil {
		return fmt.Errorf("a Secret copy's selector %q: %w", c.FromSelector, err)
	}
	if r.Placeholders {
		return nil
	}
	sources := map[string]*unstructured.Unstructured{}
	if _, ok := clusters[c.FromCluster]; !ok {
		return fmt.Errorf("cluster %q is no cluster block of the landscape", c.FromCluster)
	}
	if r.List != nil {
		live, err := r.lister(clusters, true)(render.ListRef{
			Cluster: c.FromCluster, Version: "v1", Resource: "secrets", Namespace: c.FromNamespace, LabelSelector: c.FromSelector,
		})
		if err != nil {
			return fmt.Errorf("list the Secrets %s in %s of cluster %s: %w", c.FromSelector, c.FromNamespace, c.FromCluster, err)
		}
		for i := range live {
			sources[live[i].GetName()] = &live[i]
		}
	}
	rendered := map[string]bool{}
	for o, ns := range r.renderedObjects() {
		name := o.Object.GetName()
		if o.Cluster == c.FromCluster && o.Object.GetAPIVersion() == "v1" && o.Object.GetKind() == "Secret" && ns == c.FromNamespace &&
			selector.Matches(labels.Set(o.Object.GetLabels())) && !rendered[name] {
			sources[name], rendered[name] = o.Object, true // what the landscape renders wins
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		source := sources[name]
		each := *c
		each.Name = name
		each.Labels = ownMetadata(source.GetLabels())
		for k, v := range c.Labels {
			each.Labels[k] = v
		}
		out := copiedSecret(&each, source)
		if a := ownMetadata(source.GetAnnotations()); len(a) > 0 {
			out.SetAnnotations(a)
		}
		hideValues(child, out)
		child.Objects = append(child.Objects, render.Object{Cluster: c.Cluster, Object: out})
	}
	return nil
}

// copiedSecret is the copy of source (nil for a placeholder without data).
func copiedSecret(c *render.CopySpec, source *unstructured.Unstructured) *unstructured.Unstructured {
	meta := map[string]any{"name": c.Name, "namespace": c.Namespace}
	if len(c.Labels) > 0 {
		labels := map[string]any{}
		for k, v := range c.Labels {
			labels[k] = v
		}
		meta["labels"] = labels
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": "Opaque"}
	if source != nil {
		if t, ok := source.Object["type"].(string); ok && t != "" {
			obj["type"] = t
		}
		for _, field := range []string{"data", "stringData"} {
			if values, ok := source.Object[field].(map[string]any); ok && len(values) > 0 {
				copied := make(map[string]any, len(values))
				for k, v := range values {
					copied[k] = v
				}
				obj[field] = copied
			}
		}
	}
	return &unstructured.Unstructured{Object: obj}
}

// renderedObjects yields the objects the landscape rendered so far with their namespace (the
// component's default namespace for objects that name none; the kinds looked up here are
// namespaced), by instance address, so that should two components render the same object, the
// first address wins on every run.
func (r *Renderer) renderedObjects() iter.Seq2[render.Object, string] {
	return func(yield func(render.Object, string) bool) {
		for _, addr := range r.sortedAddresses() {
			for _, o := range r.Rendered[addr].Objects {
				ns := o.Object.GetNamespace()
				if ns == "" {
					ns = o.DefaultNamespace
				}
				if !yield(o, ns) {
					return
				}
			}
		}
	}
}

// sortedAddresses are the keys of r.Rendered in order. They are kept sorted as instances and
// parts are added (setRendered), since sorting them for every lookup made rendering quadratic in
// the number of instances; a map filled by other means is sorted once more.
func (r *Renderer) sortedAddresses() []config.InstanceAddress {
	if len(r.addresses) != len(r.Rendered) {
		r.addresses = slices.Sorted(maps.Keys(r.Rendered))
	}
	return r.addresses
}

// setRendered records what an instance or part rendered, keeping sortedAddresses in order.
func (r *Renderer) setRendered(addr config.InstanceAddress, rd *Rendered) {
	if _, ok := r.Rendered[addr]; !ok && len(r.addresses) == len(r.Rendered) {
		i, _ := slices.BinarySearch(r.addresses, addr)
		r.addresses = slices.Insert(r.addresses, i, addr)
	}
	r.Rendered[addr] = rd
}

// find returns an object as the landscape renders it, or else as it is live in cluster (nil when
// it is in neither). Rendered objects win: a binding declared in the same landscape may not
// exist yet.
func (r *Renderer) find(clusters map[string]cty.Value, cluster string, gvr schema.GroupVersionResource, group, kind, namespace, name string) (*unstructured.Unstructured, error) {
	for o, ns := range r.renderedObjects() {
		gvk := o.Object.GroupVersionKind()
		if o.Cluster == cluster && gvk.Group == group && gvk.Kind == kind && ns == namespace && o.Object.GetName() == name {
			return o.Object, nil
		}
	}
	if r.Get == nil {
		return nil, nil
	}
	value, ok := clusters[cluster]
	if !ok {
		return nil, fmt.Errorf("cluster %q is no cluster block of the landscape", cluster)
	}
	live, err := r.Get(value, gvr, namespace, name)
	if err != nil {
		return nil, fmt.Errorf("read %s %s/%s in cluster %s: %w", kind, namespace, name, cluster, err)
	}
	return live, nil
}

// ownMetadata are a source's labels or annotations without those of the tools that applied it
// (this engine's inventory, kubectl's last applied configuration): the copy is this landscape's.
func ownMetadata(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !strings.HasPrefix(k, "declarative-gardener.io/") && !strings.HasPrefix(k, "kubectl.kubernetes.io/") {
			out[k] = v
		}
	}
	return out
}
