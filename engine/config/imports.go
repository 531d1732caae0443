package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/object"
)

// Import is an import block: the operator's word that an object that exists in a cluster, which
// the landscape would otherwise refuse or not trust (a Secret whose key material it did not
// generate, an object of another lineage), is the object the instance To renders, as Terraform's
// import block adopts an existing resource ("Import", the import block, in Terraform's
// documentation). The plan shows the import; apply takes the object over: it gets the
// landscape's lineage, and the engine's field manager takes over the fields the landscape
// renders; a generated Secret's key material is kept.
type Import struct {
	To address.Address
	// ID is the object as the block names it, "<cluster>/<Kind[.group]>/[<namespace>/]<name>",
	// such as "runtime/Secret/garden/ca" or "runtime/ClusterRole.rbac.authorization.k8s.io/x".
	ID string
	// Cluster is the cluster block the object lives in; Ref the object.
	Cluster string
	Ref     object.Ref
	// DeclRange is the import block's header; ToRange and IDRange its arguments.
	DeclRange, ToRange, IDRange hcl.Range
}

var importSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "to", Required: true}, {Name: "id", Required: true}},
}

// decodeImport reads an import block; checkImports checks it against the declared blocks and
// clusters once every file is read.
func (d *decoder) decodeImport(block *hcl.Block) hcl.Diagnostics {
	content, diags := block.Body.Content(importSchema)
	if diags.HasErrors() {
		return diags
	}
	imp := &Import{DeclRange: block.DefRange}
	to := content.Attributes["to"]
	imp.ToRange = to.Expr.Range()
	a, err := movedAddress(to.Expr)
	if err != nil {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid import address",
			Detail:   fmt.Sprintf("The to of an import block is the block or instance that renders the object, written like a reference, such as component.generated_secret.ca or shoot.dev[\"a\"]: %s.", err),
			Subject:  to.Expr.Range().Ptr(),
		})
	}
	imp.To = a
	id := content.Attributes["id"]
	imp.IDRange = id.Expr.Range()
	diags = append(diags, constString(id, &imp.ID)...)
	if !diags.HasErrors() {
		if imp.Cluster, imp.Ref, err = ParseImportID(imp.ID); err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid import ID",
				Detail:   fmt.Sprintf("The id of an import block names the object as \"<cluster>/<Kind[.group]>/<namespace>/<name>\", or \"<cluster>/<Kind[.group]>/<name>\" for a cluster-scoped one, such as \"runtime/Secret/garden/ca\" or \"runtime/Deployment.apps/garden/etcd-druid\": %s.", err),
				Subject:  id.Expr.Range().Ptr(),
			})
		}
	}
	if !diags.HasErrors() {
		d.l.Imports = append(d.l.Imports, imp)
	}
	return diags
}

// ParseImportID reads an import block's id, "<cluster>/<Kind[.group]>/[<namespace>/]<name>": the
// engine's identity of an object (object.Ref), independent of its API version, in the form plans
// print ("Deployment.apps"), with the cluster block first.
func ParseImportID(id string) (cluster string, ref object.Ref, err error) {
	parts := strings.Split(id, "/")
	if len(parts) != 3 && len(parts) != 4 {
		return "", ref, fmt.Errorf("%q has %d parts separated by /, not 3 or 4", id, len(parts))
	}
	for i, p := range parts {
		if p == "" {
			return "", ref, fmt.Errorf("part %d of %q is empty", i+1, id)
		}
	}
	cluster = parts[0]
	ref.Kind, ref.Group, _ = strings.Cut(parts[1], ".")
	if ref.Kind == "" || strings.ToUpper(ref.Kind[:1]) != ref.Kind[:1] {
		return "", ref, fmt.Errorf("%q is not a kind such as Secret or Deployment.apps", parts[1])
	}
	if len(parts) == 4 {
		ref.Namespace = parts[2]
	}
	ref.Name = parts[len(parts)-1]
	return cluster, ref, nil
}

// checkImports checks the import blocks against the declared blocks and clusters, and that no
// object is imported twice.
func checkImports(l *Landscape) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]*Import{}
	for _, imp := range l.Imports {
		if _, ok := l.Blocks[blockAddressOf(imp.To)]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Import into an undeclared block",
				Detail:  fmt.Sprintf("The landscape declares no block %s to import %s into.", imp.To.Block(), imp.ID),
				Subject: imp.ToRange.Ptr(),
			})
		}
		if _, ok := l.Clusters[imp.Cluster]; !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Import from an undeclared cluster",
				Detail:  fmt.Sprintf("The import ID %s names the cluster %q, but the landscape declares no cluster block of that name.", imp.ID, imp.Cluster),
				Subject: imp.IDRange.Ptr(),
			})
		}
		key := imp.Cluster + "/" + imp.Ref.String()
		if prev, ok := seen[key]; ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Imported twice",
				Detail:  fmt.Sprintf("%s is imported already by the import block at %s.", imp.ID, prev.DeclRange),
				Subject: imp.IDRange.Ptr(),
			})
			continue
		}
		seen[key] = imp
	}
	return diags
}

// ImportOf is the import block that names the object ref in cluster, nil when none does.
func (l *Landscape) ImportOf(cluster string, ref object.Ref) *Import {
	for _, imp := range l.Imports {
		if imp.Cluster == cluster && imp.Ref == ref {
			return imp
		}
	}
	return nil
}
