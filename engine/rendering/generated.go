package rendering

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/secrets"
)

// GeneratedSecretType is the component type the engine renders itself: generating a secret
// needs the Secret that exists (to reuse it), which a pure render function cannot read.
const GeneratedSecretType = "generated_secret"

// generate renders a generated_secret instance: the live Secret is reused while it is valid
// and its configuration unchanged, otherwise new material is generated (engine/secrets).
func (r *Renderer) generate(inst *config.Instance, rd *Rendered, prep prepared) (cty.Value, hcl.Diagnostics) {
	fail := func(err error) (cty.Value, hcl.Diagnostics) {
		return cty.NilVal, hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Secret cannot be generated",
			Detail: fmt.Sprintf("Generating %s failed: %s.", inst.Addr, err), Subject: inst.Block.DeclRange.Ptr(),
		}}
	}
	cfg := prep.Config
	cluster, err := render.ClusterName(cfg, "cluster")
	if err != nil {
		return fail(err)
	}
	str := func(name string) string {
		if v := cfg.GetAttr(name); !v.IsNull() {
			return v.AsString()
		}
		return ""
	}
	list := func(name string) []string {
		var out []string
		if v := cfg.GetAttr(name); !v.IsNull() {
			for it := v.ElementIterator(); it.Next(); {
				_, e := it.Element()
				out = append(out, e.AsString())
			}
		}
		return out
	}
	req := secrets.Request{
		Name: str("secret_name"), Namespace: str("namespace"), Class: secrets.Class(str("class")),
		CommonName: str("common_name"), Organization: list("organization"), DNSNames: list("dns_names"), IPAddresses: list("ip_addresses"),
		Resources: list("resources"), KeyAlgorithm: secrets.KeyAlgorithm(str("key_algorithm")),
	}
	if req.Name == "" {
		req.Name = strings.ReplaceAll(inst.Name, "_", "-")
	}
	for _, v := range append([]string{req.Name, req.Namespace, req.CommonName, cluster}, append(req.DNSNames, req.IPAddresses...)...) {
		if render.Unknown(v) {
			rd.Deferred = []string{"the secret's name, namespace or subject"}
			return cty.NilVal, nil
		}
	}
	if v := str("validity"); v != "" {
		if req.Validity, err = time.ParseDuration(v); err != nil {
			return fail(fmt.Errorf("validity: %w", err))
		}
	}
	if v := cfg.GetAttr("length"); !v.IsNull() {
		n, _ := v.AsBigFloat().Int64()
		req.Length = int(n)
	}
	if ca := cfg.GetAttr("ca"); !ca.IsNull() {
		if !ca.Type().IsObjectType() || !ca.Type().HasAttribute("secret_name") || !ca.Type().HasAttribute("namespace") {
			return fail(fmt.Errorf("ca must refer to a generated_secret of class ca"))
		}
		key := cluster + "/" + ca.GetAttr("namespace").AsString() + "/" + ca.GetAttr("secret_name").AsString()
		if req.CA = r.generated[key]; req.CA == nil {
			return fail(fmt.Errorf("ca refers to %s, which is not a generated CA of cluster %s", key, cluster))
		}
	}
	res, err := r.generateSecret(rd, cluster, inst.Config.GetAttr("cluster"), req)
	if err != nil {
		return fail(err)
	}
	outputs := map[string]cty.Value{
		"secret_name": cty.StringVal(req.Name),
		"namespace":   cty.StringVal(req.Namespace),
	}
	material := res.Material.Data
	if c, ok := material[secrets.DataKeyCert]; ok {
		outputs["certificate"] = cty.StringVal(string(c))
	} else if c, ok := material[secrets.DataKeyCACert]; ok && req.Class == secrets.ClassCA {
		outputs["certificate"] = cty.StringVal(string(c))
	}
	if c, ok := material[secrets.DataKeyCACert]; ok {
		outputs["ca_certificate"] = cty.StringVal(string(c))
	}
	return instanceValue(inst, outputs, nil), nil
}

// generateSecret generates (or reuses) the Secret a request describes in a cluster, given by
// name and by its evaluated value (to connect to it), and records it in rd: the Secret as its
// object, the generated values as secrets never to be shown, what was done.
func (r *Renderer) generateSecret(rd *Rendered, cluster string, clusterValue cty.Value, req secrets.Request) (*secrets.Result, error) {
	if r.Placeholders {
		return r.placeholder(rd, cluster, req), nil
	}
	var existing *unstructured.Unstructured
	if r.Lookup != nil {
		live, err := r.Lookup(clusterValue, req.Namespace, req.Name)
		if err != nil {
			return nil, fmt.Errorf("read the existing Secret %s/%s: %w", req.Namespace, req.Name, err)
		}
		existing = live
	}
	prov := secrets.Provenance{Stateless: true}
	if r.Provenance != nil && existing != nil {
		var err error
		if prov, err = r.Provenance(cluster, req.Namespace, req.Name); err != nil {
			return nil, fmt.Errorf("read the landscape's state: %w", err)
		}
	}
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	generate := func() (*secrets.Result, error) {
		return secrets.Generate(req, existing, prov, now, r.Rotate[string(req.Class)], rand.Reader)
	}
	if r.DeferSecrets {
		generate = func() (*secrets.Result, error) {
			return secrets.Defer(req, existing, prov, now, r.Rotate[string(req.Class)])
		}
	}
	res, err := generate()
	if err != nil {
		return nil, err
	}
	if res.Foreign != "" {
		rd.Warnings = append(rd.Warnings, fmt.Sprintf("Secret %s/%s in cluster %s holds key material this landscape did not generate (%s); it is not used: new material is generated", req.Namespace, req.Name, cluster, res.Foreign))
	}
	r.recordGenerated(cluster, req.Namespace, req.Name, res.Material)
	// Generated values are secrets like sensitive variables: never in messages. Certificates are
	// public and stay readable, and so do a bootstrap token's id and usages, which would
	// otherwise hide every "true" of the plan.
	data, _ := res.Secret.Object["data"].(map[string]any)
	if res.Material.Deferred() {
		data = nil // the placeholder is no secret, and hiding it would hide the CA bundles that embed it
	}
	for _, key := range req.Class.SensitiveDataKeys() {
		if s, ok := data[key].(string); ok && s != "" {
			rd.Secrets = append(rd.Secrets, s)
			if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
				rd.Secrets = append(rd.Secrets, string(raw))
			}
		}
	}
	rd.Objects = []render.Object{{Cluster: cluster, Object: res.Secret}}
	rd.Generated = res.Reason // reasons start with their action: "created: ...", "renewed: ..."
	return res, nil
}

// isPublicKey says whether a generated Secret's data key holds public material (certificates,
// public keys), which may be shown and referenced from other objects.
func isPublicKey(key string) bool {
	return strings.HasSuffix(key, ".crt") || key == secrets.DataKeyPublicKey
}

// placeholderValue stands in for generated material where nothing is planned (the graph).
const placeholderValue = "(generated when planned)"

// placeholder records a generated secret without generating it: key material is slow to make
// and useless where no plan is made, and without a cluster the existing secret cannot be reused.
func (r *Renderer) placeholder(rd *Rendered, cluster string, req secrets.Request) *secrets.Result {
	data := map[string][]byte{}
	for _, k := range req.Class.DataKeys() {
		data[k] = []byte(placeholderValue)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Secret")
	u.SetName(req.Name)
	u.SetNamespace(req.Namespace)
	mat := secrets.NewMaterial(data)
	r.recordGenerated(cluster, req.Namespace, req.Name, mat)
	rd.Objects = []render.Object{{Cluster: cluster, Object: u}}
	rd.Generated = "not generated: no plan is made"
	return &secrets.Result{Secret: u, Material: mat}
}

// recordGenerated keeps a generated secret's material for the certificates it signs and the
// markers that refer to it, and indexes it by namespace and name for markers that name no
// cluster: the first cluster in sorted order wins, on every run, without sorting all keys per
// lookup (which made rendering quadratic in the number of shoots).
func (r *Renderer) recordGenerated(cluster, namespace, name string, mat *secrets.Material) {
	if r.generated == nil {
		r.generated = map[string]*secrets.Material{}
		r.generatedByName = map[string]string{}
	}
	key := cluster + "/" + namespace + "/" + name
	r.generated[key] = mat
	if first, ok := r.generatedByName[namespace+"/"+name]; !ok || key < first {
		r.generatedByName[namespace+"/"+name] = key
	}
}
