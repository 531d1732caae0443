package planner

import (
	"fmt"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/secrets"
	"github.com/declarative-gardener/gardener/state"
)

// Ownership: what proves that a live object, or a generated Secret's key material, is the
// landscape's own. The landscape's lineage (the random UUID its state got on its first write)
// labels every object it applies (inventory.LineageLabel); generated key material is reused only
// from Secrets of it (secrets.Provenance), and pruning deletes only objects of it (plan.Options).
// A landscape whose state was lost has no lineage any more, and its next plan refuses the objects
// of the old one rather than take them over with new key material; the operator continues the
// old lineage explicitly (Options.AdoptLineage, `--adopt-lineage`).

// adoptLineage gives an empty state (one never written: a landscape's first apply, or a lost
// state) the lineage to continue, which its first write keeps. A state that exists keeps its own:
// asking for another is an error, asking for its own changes nothing.
func adoptLineage(st *state.State, lineage string) error {
	if err := inventory.ValidateLineage(lineage); err != nil {
		return fmt.Errorf("--adopt-lineage: %w", err)
	}
	switch {
	case st.Serial == 0 && (st.Lineage == "" || st.Lineage == lineage):
		st.Lineage = lineage
		return nil
	case st.Lineage == lineage:
		return nil
	}
	return fmt.Errorf("--adopt-lineage %s: the landscape's state exists with lineage %s; only an empty (lost) state continues another lineage", lineage, st.Lineage)
}

// withAdoptedLineage makes every way the plan gets its state (given, or read) adopt
// opts.AdoptLineage, so that rendering, pruning and the apply's state writes all see it. A plan
// without a state cannot adopt a lineage: Plan reports that once it knows (errNoStateToAdopt).
func withAdoptedLineage(opts *Options) error {
	if opts.AdoptLineage == "" {
		return nil
	}
	if opts.State != nil {
		return adoptLineage(opts.State, opts.AdoptLineage)
	}
	read := opts.ReadState
	if read == nil {
		return nil
	}
	opts.ReadState = func(res *config.Result) (*state.State, error) {
		st, err := read(res)
		if err != nil {
			return st, err
		}
		if st == nil {
			return nil, errNoStateToAdopt(opts.AdoptLineage)
		}
		return st, adoptLineage(st, opts.AdoptLineage)
	}
	return nil
}

// errNoStateToAdopt is the error of --adopt-lineage in a plan without a state.
func errNoStateToAdopt(lineage string) error {
	return fmt.Errorf("--adopt-lineage %s continues the lineage of the landscape's state, and this plan is made without one", lineage)
}

// provenanceFromState answers the generator step's question what the landscape knows about a
// generated Secret (secrets.Provenance): its lineage, and the UID under which its state records
// the Secret. Without a state the field manager alone decides.
//
// An import block naming the Secret (imported) adopts its key material whatever wrote it.
func provenanceFromState(read func() (*state.State, error), imported func(cluster, namespace, name string) bool) func(cluster, namespace, name string) (secrets.Provenance, error) {
	return func(cluster, namespace, name string) (secrets.Provenance, error) {
		p, err := provenanceOf(read, cluster, namespace, name)
		p.Imported = err == nil && imported(cluster, namespace, name)
		return p, err
	}
}

// provenanceOf is what the state says about a generated Secret.
func provenanceOf(read func() (*state.State, error), cluster, namespace, name string) (secrets.Provenance, error) {
	st, err := read()
	if err != nil {
		return secrets.Provenance{}, err
	}
	if st == nil {
		return secrets.Provenance{Stateless: true}, nil
	}
	p := secrets.Provenance{Lineage: st.Lineage}
	for _, c := range st.Components {
		for _, o := range c.Objects {
			if o.Cluster == cluster && o.Group == "" && o.Kind == "Secret" && o.Namespace == namespace && o.Name == name {
				p.RecordedUID = o.UID
			}
		}
	}
	return p, nil
}
