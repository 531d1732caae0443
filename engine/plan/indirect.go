package plan

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
)

// IndirectDeletion is a deletion another controller makes because of a change of the plan: the
// plan itself deletes nothing, yet applying it deletes objects or machines. A reviewer (and the
// daemon's approve-destructive policy) must count them as deletions.
type IndirectDeletion struct {
	// Address is the component whose object changes.
	Address string `json:"address"`
	// Cluster and Ref name the object whose change causes the deletion.
	Cluster string     `json:"cluster"`
	Ref     object.Ref `json:"ref"`
	// Controller is who deletes: gardener-resource-manager (objects dropped from a
	// ManagedResource) or machine-controller-manager (the machines of a removed worker pool).
	Controller string `json:"controller"`
	// Deletes says what it deletes, such as "ConfigMap kube-system/a" or "the machines of worker
	// pool b".
	Deletes string `json:"deletes"`
}

// String is the deletion in a sentence.
func (d IndirectDeletion) String() string {
	return fmt.Sprintf("%s deletes %s (%s in cluster %s, %s)", d.Controller, d.Deletes, d.Ref, d.Cluster, d.Address)
}

// The controllers that delete what a plan drops.
const (
	resourceManager          = "gardener-resource-manager"
	machineControllerManager = "machine-controller-manager"
)

// keepObjectAnnotation on an object of a ManagedResource keeps it when the ManagedResource no
// longer holds it (gardener's resources.gardener.cloud/keep-object).
const keepObjectAnnotation = "resources.gardener.cloud/keep-object"

var (
	managedResourceKind = schema.GroupKind{Group: "resources.gardener.cloud", Kind: "ManagedResource"}
	workerKind          = schema.GroupKind{Group: "extensions.gardener.cloud", Kind: "Worker"}
	shootKind           = schema.GroupKind{Group: "core.gardener.cloud", Kind: "Shoot"}
)

// indirectDeletions finds what other controllers delete because of the plan's changes: objects
// a ManagedResource held that its new contents no longer hold (the resource manager deletes
// them), and worker pools a Worker or Shoot no longer has (machine-controller-manager deletes
// their machines). Only objects the plan changes count; a change held until its maintenance
// window is not made by this plan. Contents that cannot be read are not guessed at.
func indirectDeletions(comps []*Component, desired []*Desired, observed map[string]*observe.Observed, red *render.Redactor) []IndirectDeletion {
	type key struct {
		cluster string
		ref     object.Ref
	}
	changed := map[key]bool{}
	for _, c := range comps {
		for _, o := range c.Objects {
			if o.Action == Update || o.Action == Create || o.Action == Replace {
				changed[key{o.Cluster, o.Ref}] = true
			}
		}
	}
	byRef := map[key]*unstructured.Unstructured{}
	for _, d := range desired {
		byRef[key{d.Cluster, object.RefOf(d.Object)}] = d.Object
	}
	live := func(cluster string, ref object.Ref) *unstructured.Unstructured {
		if obs := observed[cluster]; obs != nil {
			return obs.Objects[ref]
		}
		return nil
	}
	var out []IndirectDeletion
	for _, d := range desired {
		ref := object.RefOf(d.Object)
		have := live(d.Cluster, ref)
		if have == nil {
			continue
		}
		add := func(controller, what string) {
			out = append(out, IndirectDeletion{Address: string(d.Component), Cluster: d.Cluster, Ref: d.Shown(), Controller: controller, Deletes: what})
		}
		switch ref.GroupKind() {
		case managedResourceKind:
			wantSecrets, haveSecrets := secretRefs(d.Object), secretRefs(have)
			touched := changed[key{d.Cluster, ref}]
			var wantObjs []*unstructured.Unstructured
			for _, name := range wantSecrets {
				sref := object.Ref{Kind: "Secret", Namespace: ref.Namespace, Name: name}
				touched = touched || changed[key{d.Cluster, sref}]
				objs, err := contentObjects(byRef[key{d.Cluster, sref}])
				if err != nil {
					wantObjs = nil
					touched = false // unreadable: not guessed at
					break
				}
				wantObjs = append(wantObjs, objs...)
			}
			if !touched {
				continue
			}
			var haveObjs []*unstructured.Unstructured
			readable := true
			for _, name := range haveSecrets {
				objs, err := contentObjects(live(d.Cluster, object.Ref{Kind: "Secret", Namespace: ref.Namespace, Name: name}))
				if err != nil {
					readable = false
					break
				}
				haveObjs = append(haveObjs, objs...)
			}
			if !readable {
				continue
			}
			for _, dropped := range droppedObjects(haveObjs, wantObjs) {
				add(resourceManager, redactedRef(dropped, red))
			}
		case workerKind, shootKind:
			if !changed[key{d.Cluster, ref}] {
				continue
			}
			path := []string{"spec", "pools"}
			if ref.GroupKind() == shootKind {
				path = []string{"spec", "provider", "workers"}
			}
			want := poolNames(d.Object, path)
			for _, pool := range poolNames(have, path) {
				if !slices.Contains(want, pool) {
					if red.Sensitive(pool) {
						pool = Redacted
					}
					add(machineControllerManager, "the machines of worker pool "+pool)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b IndirectDeletion) int {
		return strings.Compare(a.Address+"\x00"+a.Cluster+"\x00"+a.Ref.String()+"\x00"+a.Deletes, b.Address+"\x00"+b.Cluster+"\x00"+b.Ref.String()+"\x00"+b.Deletes)
	})
	return out
}

// secretRefs are the names of the Secrets a ManagedResource refers to.
func secretRefs(mr *unstructured.Unstructured) []string {
	refs, _, _ := unstructured.NestedSlice(mr.Object, "spec", "secretRefs")
	var out []string
	for _, r := range refs {
		if m, ok := r.(map[string]any); ok {
			if name, ok := m["name"].(string); ok && name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// errUnreadable is a contents Secret whose objects cannot be read.
var errUnreadable = errors.New("the contents cannot be read")

// contentObjects decodes the objects of a ManagedResource's Secret: every YAML document of every
// data key (base64, as a live Secret holds them) or stringData key (as one is rendered). A
// missing Secret, or data that is not objects, is unreadable.
func contentObjects(secret *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if secret == nil {
		return nil, errUnreadable
	}
	var docs []string
	data, _, _ := unstructured.NestedMap(secret.Object, "data")
	for _, v := range data {
		s, _ := v.(string)
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, errUnreadable
		}
		docs = append(docs, string(raw))
	}
	strs, _, _ := unstructured.NestedMap(secret.Object, "stringData")
	for _, v := range strs {
		s, _ := v.(string)
		docs = append(docs, s)
	}
	var out []*unstructured.Unstructured
	for _, doc := range docs {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(doc)), 4096)
		for {
			var obj map[string]any
			err := dec.Decode(&obj)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, errUnreadable
			}
			if len(obj) == 0 {
				continue // an empty document
			}
			u := &unstructured.Unstructured{Object: obj}
			if u.GetKind() == "" || u.GetName() == "" {
				return nil, errUnreadable
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// droppedObjects are the objects of have that want does not hold, the resource manager deletes
// when the contents change: all but those annotated to be kept.
func droppedObjects(have, want []*unstructured.Unstructured) []object.Ref {
	kept := map[object.Ref]bool{}
	for _, u := range want {
		kept[object.RefOf(u)] = true
	}
	var out []object.Ref
	for _, u := range have {
		ref := object.RefOf(u)
		if kept[ref] || u.GetAnnotations()[keepObjectAnnotation] == "true" {
			continue
		}
		kept[ref] = true // listed once
		out = append(out, ref)
	}
	slices.SortFunc(out, func(a, b object.Ref) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
	return out
}

// redactedRef names an object, its name and namespace replaced where they hold a secret.
func redactedRef(ref object.Ref, red *render.Redactor) string {
	if red.Sensitive(ref.Name) {
		ref.Name = Redacted
	}
	if red.Sensitive(ref.Namespace) {
		ref.Namespace = Redacted
	}
	return ref.String()
}

// poolNames are the names of the pools listed at path (a Worker's spec.pools, a Shoot's
// spec.provider.workers).
func poolNames(u *unstructured.Unstructured, path []string) []string {
	pools, _, _ := unstructured.NestedSlice(u.Object, path...)
	var out []string
	for _, p := range pools {
		if m, ok := p.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				out = append(out, name)
			}
		}
	}
	return out
}
