package rendering

import (
	"encoding/base64"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/secrets"
)

// partName is what a part's name must look like: an HCL identifier, so that its address can be
// written as a --target.
var partName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// expand records the parts a composite instance rendered: each becomes an instance of its own
// (address <instance>.<name>) with its objects, its generated secret, its sibling dependencies.
// Parts are handled in dependency order, so that a CA is generated before the certificates it
// signs and markers of generated certificates can be replaced in every part after them.
func (r *Renderer) expand(inst *config.Instance, rd *Rendered, parts []render.Component) error {
	ordered, err := orderParts(parts)
	if err != nil {
		return err
	}
	clusters := clusterValues(inst)
	byName := map[string]*Rendered{}
	for _, p := range ordered {
		addr := config.InstanceAddress(string(inst.Addr) + "." + p.Name)
		child := &Rendered{Address: addr, Type: p.Type, Parent: inst.Addr, Secrets: rd.Secrets}
		for _, d := range p.DependsOn {
			child.DependsOn = append(child.DependsOn, byName[d].Address)
		}
		child.Detached, child.Window, child.Note, child.StatusReports = p.Detached, p.Window, p.Note, p.StatusReports
		if w := p.Window; w != nil && len(w.HoldWhile) > 0 {
			hold, err := r.holds(w.HoldWhile, clusters)
			if err != nil {
				return fmt.Errorf("part %s: maintenance window: %w", p.Name, err)
			}
			if !hold {
				child.Window = nil // rolled out at once
			}
		}
		if p.DeletionDependsOn != nil {
			child.DeletionDependsOn = []config.InstanceAddress{}
			for _, d := range p.DeletionDependsOn {
				child.DeletionDependsOn = append(child.DeletionDependsOn, config.InstanceAddress(string(inst.Addr)+"."+d))
			}
		}
		byName[p.Name] = child
		switch {
		case p.Copy != nil:
			if len(p.Objects) > 0 || p.Secret != nil {
				return fmt.Errorf("part %s: a Secret copy has no objects of its own", p.Name)
			}
			if err := r.copyPart(child, p.Copy, clusters); err != nil {
				return fmt.Errorf("part %s: %w", p.Name, err)
			}
			rd.Secrets = append(rd.Secrets, child.Secrets[len(rd.Secrets):]...)
		case p.Await != nil:
			if len(p.Objects) > 0 || p.Secret != nil || p.Copy != nil {
				return fmt.Errorf("part %s: a part that awaits an object renders its objects itself", p.Name)
			}
			if err := r.renderAwaited(inst, child, p.Await, clusters); err != nil {
				return fmt.Errorf("part %s: %w", p.Name, err)
			}
		case p.Secret != nil:
			if len(p.Objects) > 0 {
				return fmt.Errorf("part %s: a generated secret has no objects of its own", p.Name)
			}
			if err := r.generatePart(child, p, clusters); err != nil {
				return fmt.Errorf("part %s: %w", p.Name, err)
			}
			rd.Secrets = append(rd.Secrets, child.Secrets[len(rd.Secrets):]...)
		default:
			objects, err := r.resolveGenerated(p.Objects)
			if err == nil {
				objects, err = r.resolveLive(objects, clusters)
			}
			if err != nil {
				return fmt.Errorf("part %s: %w", p.Name, err)
			}
			if d := unknownIdentity(objects); d != "" {
				child.Deferred = []string{d}
			} else {
				child.Objects = objects
			}
		}
		r.setRendered(addr, child)
		rd.Parts = append(rd.Parts, addr)
	}
	// Every part shares the composite's secrets, including those generated for other parts.
	for _, addr := range rd.Parts {
		r.Rendered[addr].Secrets = rd.Secrets
	}
	return nil
}

// renderAwaited renders a part that follows an object another controller creates
// (render.Await) from the plan's live reads: with the object there, like any part; without it,
// deferred to apply, which renders it again once the object exists.
func (r *Renderer) renderAwaited(inst *config.Instance, child *Rendered, await *render.Await, clusters map[string]cty.Value) error {
	child.Await = await
	if await.Render == nil {
		return fmt.Errorf("it awaits %s but has no render function", await.For)
	}
	out, err := await.Render(render.Input{
		Landscape: r.Landscape, Address: string(child.Address), Name: inst.Name, Dir: r.Dir, Paths: r.Paths, Now: r.Now,
		Observe: r.observer(clusters), List: r.lister(clusters, true),
	})
	if err != nil {
		return err
	}
	if out == nil {
		child.Deferred = []string{AwaitingPrefix + await.For}
		return nil
	}
	if d := unknownIdentity(out.Objects); d != "" {
		return fmt.Errorf("an object it renders once %s exists has no known identity (%s)", await.For, d)
	}
	child.Objects, child.StatusReports = out.Objects, append(child.StatusReports, out.StatusReports...)
	return nil
}

// AwaitingPrefix starts the Deferred entry of a part that waits for an object another controller
// creates (render.Await); the rest says what it waits for.
const AwaitingPrefix = "once it exists: "

// orderParts checks the parts' names and dependencies and returns them in a dependency order
// that keeps the given order wherever the dependencies allow.
func orderParts(parts []render.Component) ([]render.Component, error) {
	index := map[string]int{}
	for i, p := range parts {
		if !partName.MatchString(p.Name) {
			return nil, fmt.Errorf("part name %q is not an identifier of lower-case letters, digits and underscores", p.Name)
		}
		if _, dup := index[p.Name]; dup {
			return nil, fmt.Errorf("part %q is rendered twice", p.Name)
		}
		index[p.Name] = i
	}
	for _, p := range parts {
		for _, d := range p.DependsOn {
			if _, ok := index[d]; !ok {
				return nil, fmt.Errorf("part %s depends on %q, which is not a part", p.Name, d)
			}
		}
	}
	done := map[string]bool{}
	var out []render.Component
	for len(out) < len(parts) {
		progressed := false
		for _, p := range parts {
			if done[p.Name] || !allDone(p.DependsOn, done) {
				continue
			}
			done[p.Name] = true
			out = append(out, p)
			progressed = true
			break // rescan from the start, so that earlier parts come first whenever they can
		}
		if !progressed {
			var stuck []string
			for _, p := range parts {
				if !done[p.Name] {
					stuck = append(stuck, p.Name)
				}
			}
			return nil, fmt.Errorf("parts %s depend on each other in a cycle", strings.Join(stuck, ", "))
		}
	}
	return out, nil
}

func allDone(names []string, done map[string]bool) bool {
	for _, n := range names {
		if !done[n] {
			return false
		}
	}
	return true
}

// clusterValues maps the names of the clusters a composite's configuration refers to (its
// cluster-reference attributes) to their evaluated values, by which the engine connects to them.
func clusterValues(inst *config.Instance) map[string]cty.Value {
	out := map[string]cty.Value{}
	cfg := inst.Config
	if cfg.IsNull() || !cfg.Type().IsObjectType() {
		return out
	}
	for _, a := range inst.Block.Schema.Body.Attributes {
		if a.References != schema.RefCluster || !cfg.Type().HasAttribute(a.Name) {
			continue
		}
		v, _ := cfg.GetAttr(a.Name).Unmark()
		if v.IsNull() || !v.IsKnown() || !v.Type().IsObjectType() || !v.Type().HasAttribute("name") {
			continue
		}
		if name := v.GetAttr("name"); name.IsKnown() && !name.IsNull() {
			out[name.AsString()] = cfg.GetAttr(a.Name)
		}
	}
	// A composite may also reach a cluster through another block's outputs, such as a shoot
	// through its seed's cluster output: those are named cluster blocks of the landscape.
	for name, v := range inst.Clusters {
		if _, ok := out[name]; !ok {
			out[name] = v
		}
	}
	return out
}

// generatePart generates the Secret of a generated-secret part.
func (r *Renderer) generatePart(child *Rendered, p render.Component, clusters map[string]cty.Value) error {
	s := p.Secret
	clusterValue, ok := clusters[s.Cluster]
	if !ok {
		return fmt.Errorf("the secret's cluster %q is no cluster block of the landscape", s.Cluster)
	}
	req := secrets.Request{
		Name: s.Name, Namespace: s.Namespace, Class: secrets.Class(s.Class), CommonName: s.CommonName,
		Organization: s.Organization, DNSNames: s.DNSNames, IPAddresses: s.IPAddresses, Validity: s.Validity, Length: s.Length,
		KeyAlgorithm: secrets.KeyAlgorithm(s.KeyAlgorithm), Resources: s.Resources,
	}
	if s.CA != "" {
		key := s.Cluster + "/" + s.Namespace + "/" + s.CA
		if req.CA = r.generated[key]; req.CA == nil {
			return fmt.Errorf("its CA %s is not a generated CA rendered before it", key)
		}
	}
	_, err := r.generateSecret(child, s.Cluster, clusterValue, req)
	return err
}

// generatedMarker matches render.GeneratedRef markers.
var generatedMarker = regexp.MustCompile(`\$\{generated:([^/}]+)/([^/}]+)/([^:}]+):(pem|base64)\}`)

// resolveGenerated replaces GeneratedRef markers in objects with the public material of the
// secrets generated so far. It copies only objects that hold markers.
func (r *Renderer) resolveGenerated(objects []render.Object) ([]render.Object, error) {
	out := slices.Clone(objects)
	for i, o := range out {
		if isContents(o.Object) {
			u, err := r.resolveContents(o)
			if err != nil {
				return nil, err
			}
			out[i].Object = u
			continue
		}
		var ferr error
		secret := holdsSecrets(o.Object)
		obj := o.Object.Object
		if !secret {
			probed, err := r.resolveProbeTokens(o)
			if err != nil {
				return nil, err
			}
			if probed != nil {
				obj, out[i].Object = probed, &unstructured.Unstructured{Object: probed}
			}
		}
		replaced, changed := replaceStrings(obj, func(s string) string {
			return generatedMarker.ReplaceAllStringFunc(s, func(m string) string {
				sub := generatedMarker.FindStringSubmatch(m)
				ns, name, key, enc := sub[1], sub[2], sub[3], sub[4]
				if !isPublicKey(key) && !secret {
					ferr = fmt.Errorf("object %s %s refers to %s of Secret %s/%s, which is not public; only Secrets may hold it", o.Object.GetKind(), o.Object.GetName(), key, ns, name)
					return m
				}
				v, ok := r.generatedValue(o.Cluster, ns, name, key, enc, secret)
				if !ok {
					ferr = fmt.Errorf("object %s %s refers to %s of Secret %s/%s, which is not generated before it", o.Object.GetKind(), o.Object.GetName(), key, ns, name)
					return m
				}
				return v
			})
		})
		if ferr != nil {
			return nil, ferr
		}
		if changed {
			out[i].Object = &unstructured.Unstructured{Object: replaced.(map[string]any)}
		}
	}
	return out, nil
}

// probedWorkloads are the kinds whose pod template's probes may present a generated token.
var probedWorkloads = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true}

// resolveProbeTokens replaces markers of generated tokens in the HTTP headers of a workload's
// probes, the one place outside a Secret where a generated secret may stand: Kubernetes takes a
// probe's headers from nothing but the pod template, and an API server that admits no anonymous
// request answers its health endpoints only to a bearer token (Gardener's kube-apiserver probes
// with the token of its static token file, pkg/component/kubernetes/apiserver/deployment.go at
// Gardener v1.120.0). The token is a secret of the part like every generated value, so plans and
// messages redact it. It returns nil when the object has no such marker; other markers are left
// for resolveGenerated.
func (r *Renderer) resolveProbeTokens(o render.Object) (map[string]any, error) {
	if o.Object.GetAPIVersion() != "apps/v1" || !probedWorkloads[o.Object.GetKind()] {
		return nil, nil
	}
	var copied map[string]any
	for _, list := range []string{"containers", "initContainers"} {
		containers, _, _ := unstructured.NestedSlice(o.Object.Object, "spec", "template", "spec", list)
		for ci, c := range containers {
			for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
				headers, _, _ := unstructured.NestedSlice(c.(map[string]any), probe, "httpGet", "httpHeaders")
				for hi, h := range headers {
					value, _ := h.(map[string]any)["value"].(string)
					if !strings.Contains(value, "${generated:") {
						continue
					}
					var ferr error
					resolved := generatedMarker.ReplaceAllStringFunc(value, func(m string) string {
						sub := generatedMarker.FindStringSubmatch(m)
						if sub[3] != secrets.DataKeyToken {
							return m
						}
						v, ok := r.generatedValue(o.Cluster, sub[1], sub[2], sub[3], sub[4], true)
						if !ok {
							ferr = fmt.Errorf("object %s %s: a probe header refers to %s of Secret %s/%s, which is not generated before it", o.Object.GetKind(), o.Object.GetName(), sub[3], sub[1], sub[2])
							return m
						}
						return v
					})
					if ferr != nil {
						return nil, ferr
					}
					if copied == nil {
						copied = o.Object.DeepCopy().Object
					}
					cs, _, _ := unstructured.NestedSlice(copied, "spec", "template", "spec", list)
					hs, _, _ := unstructured.NestedSlice(cs[ci].(map[string]any), probe, "httpGet", "httpHeaders")
					hs[hi].(map[string]any)["value"] = resolved
					if err := unstructured.SetNestedSlice(cs[ci].(map[string]any), hs, probe, "httpGet", "httpHeaders"); err != nil {
						return nil, err
					}
					if err := unstructured.SetNestedSlice(copied, cs, "spec", "template", "spec", list); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return copied, nil
}

// isContents reports whether u is a Secret packing a ManagedResource's objects.
func isContents(u *unstructured.Unstructured) bool {
	return u.GetAPIVersion() == "v1" && u.GetKind() == "Secret" && u.GetLabels()[render.ManagedResourceContentsLabel] != ""
}

// resolveContents replaces GeneratedRef markers in the objects a ManagedResource's Secret packs.
// A packed Secret may hold a generated secret's private keys: it reaches its cluster (the
// shoot, where vpn-shoot mounts its client certificate) only through the ManagedResource, and
// plans, saved plans and configuration hashes redact packed Secrets as they do Secrets. Every
// other packed object gets public certificates only.
func (r *Renderer) resolveContents(o render.Object) (*unstructured.Unstructured, error) {
	docs, _, _ := unstructured.NestedMap(o.Object.Object, "stringData")
	var out *unstructured.Unstructured
	for _, key := range slices.Sorted(maps.Keys(docs)) {
		doc, ok := docs[key].(string)
		if !ok || !strings.Contains(doc, "${generated:") {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			return nil, fmt.Errorf("object %s %s: contents %s: %w", o.Object.GetKind(), o.Object.GetName(), key, err)
		}
		private := kinds.HoldsSecretDataOf(head.APIVersion, head.Kind)
		var ferr error
		resolved := generatedMarker.ReplaceAllStringFunc(doc, func(m string) string {
			sub := generatedMarker.FindStringSubmatch(m)
			ns, name, k, enc := sub[1], sub[2], sub[3], sub[4]
			if !isPublicKey(k) && !private {
				ferr = fmt.Errorf("object %s %s: contents %s refer to %s of Secret %s/%s, which is not public; only packed Secrets may hold it", o.Object.GetKind(), o.Object.GetName(), key, k, ns, name)
				return m
			}
			v, ok := r.generatedValue(o.Cluster, ns, name, k, enc, private)
			if !ok {
				ferr = fmt.Errorf("object %s %s: contents %s refer to %s of Secret %s/%s, which is not generated before it", o.Object.GetKind(), o.Object.GetName(), key, k, ns, name)
				return m
			}
			return v
		})
		if ferr != nil {
			return nil, ferr
		}
		if out == nil {
			out = o.Object.DeepCopy()
		}
		if err := unstructured.SetNestedField(out.Object, resolved, "stringData", key); err != nil {
			return nil, fmt.Errorf("object %s %s: %w", o.Object.GetKind(), o.Object.GetName(), err)
		}
	}
	if out == nil {
		return o.Object, nil
	}
	return out, nil
}

// replaceStrings returns v with fn applied to every string in it that holds a GeneratedRef
// marker (map keys excluded), copying only the containers on the way to a changed string.
func replaceStrings(v any, fn func(string) string) (any, bool) {
	return render.MapStrings(v, func(s string) string {
		if !strings.Contains(s, "${generated:") {
			return s
		}
		return fn(s)
	})
}

// holdsSecrets reports whether an object may carry generated secret material: a core Secret,
// whose data plans, saved plans and logs never show, unless it packs a ManagedResource's
// objects, which plans show field by field.
func holdsSecrets(u *unstructured.Unstructured) bool {
	return kinds.HoldsSecretDataOf(u.GetAPIVersion(), u.GetKind()) && u.GetLabels()[render.ManagedResourceContentsLabel] == ""
}

// publicValue is the public data key of a generated Secret, encoded as "pem" (as it is) or
// "base64".
func (r *Renderer) publicValue(cluster, namespace, name, key, enc string) (string, bool) {
	return r.generatedValue(cluster, namespace, name, key, enc, false)
}

// generatedValue is a data key of a generated Secret, private keys only with private set. The
// Secret is looked up in cluster first, then in any cluster: an object in the virtual garden
// (an APIService's caBundle) trusts a CA kept in the runtime cluster, and gardenlet's bootstrap
// kubeconfig in the seed carries a token generated in the virtual garden.
func (r *Renderer) generatedValue(cluster, namespace, name, key, enc string, private bool) (string, bool) {
	mat := r.generated[cluster+"/"+namespace+"/"+name]
	if mat == nil {
		mat = r.generated[r.generatedByName[namespace+"/"+name]] // the first cluster in sorted order
	}
	if mat == nil || mat.Data[key] == nil || (!isPublicKey(key) && !private) {
		return "", false
	}
	if enc == "base64" {
		return base64.StdEncoding.EncodeToString(mat.Data[key]), true
	}
	return string(mat.Data[key]), true
}

// resolveOutputs replaces GeneratedRef markers in a composite's string outputs (a CA bundle);
// an output whose marker names no generated Secret stays unknown.
func (r *Renderer) resolveOutputs(outputs map[string]cty.Value) map[string]cty.Value {
	out := make(map[string]cty.Value, len(outputs))
	for name, v := range outputs {
		if v == cty.NilVal || v.IsNull() || !v.IsKnown() || v.Type() != cty.String || !strings.Contains(v.AsString(), "${generated:") {
			out[name] = v
			continue
		}
		ok := true
		s := generatedMarker.ReplaceAllStringFunc(v.AsString(), func(m string) string {
			sub := generatedMarker.FindStringSubmatch(m)
			val, found := r.publicValue("", sub[1], sub[2], sub[3], sub[4])
			ok = ok && found
			return val
		})
		if ok {
			out[name] = cty.StringVal(s)
		}
	}
	return out
}
