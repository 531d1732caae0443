package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
)

// irreplaceable describes a kind whose replacement would destroy what the object stands for.
type irreplaceable struct {
	// loses is what deleting the object deletes, after "replacing the <Kind> would".
	loses string
	// instead is the way to get the new value, after "restore the old value or"; empty when
	// restoring is the only way.
	instead string
}

// irreplaceableKinds are the kinds a plan never replaces. A change of an immutable field is
// normally planned as delete and create; for these, deleting the object deletes a cluster (or
// the projects, seeds and backups around clusters), and the new object would be a different
// one, not the old one with a new value. Gardener refuses the change itself, so the plan fails
// and names the way out.
var irreplaceableKinds = map[schema.GroupKind]irreplaceable{
	{Group: "core.gardener.cloud", Kind: "Shoot"}:   {loses: "delete the cluster", instead: "declare a new shoot"},
	{Group: "core.gardener.cloud", Kind: "Seed"}:    {loses: "delete the seed with the shoot control planes it hosts", instead: "declare a new seed"},
	{Group: "core.gardener.cloud", Kind: "Project"}: {loses: "delete its namespace with every shoot and secret in it", instead: "declare a new project"},
	// Deleting a BackupBucket deletes the object store bucket and every backup in it.
	{Group: "core.gardener.cloud", Kind: "BackupBucket"}:          {loses: "delete the bucket with every backup in it"},
	{Group: "operator.gardener.cloud", Kind: "Garden"}:            {loses: "delete the garden with its virtual garden and everything in it", instead: "declare a new garden"},
	{Group: "seedmanagement.gardener.cloud", Kind: "ManagedSeed"}: {loses: "delete its gardenlet and the seed it registers", instead: "declare a new managed seed"},
	// The extension resources of shoot control planes the landscape manages itself: deleting them
	// makes the extension controllers tear down what they stand for.
	{Group: "extensions.gardener.cloud", Kind: "Infrastructure"}: {loses: "delete the shoot's cloud infrastructure", instead: "declare a new shoot"},
	{Group: "extensions.gardener.cloud", Kind: "Worker"}:         {loses: "delete every machine of the shoot", instead: "declare a new shoot"},
	{Group: "extensions.gardener.cloud", Kind: "BackupEntry"}:    {loses: "delete the shoot's etcd backups"},
	{Group: "extensions.gardener.cloud", Kind: "BackupBucket"}:   {loses: "delete the bucket with every backup in it"},
}

// forbiddenReplacement returns the error for an object of an irreplaceable kind whose immutable
// fields change, nil for other objects. Values are shown unless they are secret.
func forbiddenReplacement(addr config.InstanceAddress, cluster string, ref object.Ref, r *diff.Result, red *render.Redactor) error {
	k, ok := irreplaceableKinds[ref.GroupKind()]
	if !ok || len(r.Immutable) == 0 {
		return nil
	}
	fields := make([]string, len(r.Immutable))
	for i, path := range r.Immutable {
		fields[i] = path + fromTo(path, r.Changes, red)
	}
	verb := "is"
	if len(fields) > 1 {
		verb = "are"
	}
	remedy := "restore the old value"
	if k.instead != "" {
		remedy += " or " + k.instead
	}
	return fmt.Errorf("%s: %s in cluster %s: %s %s immutable in Gardener; a changed value cannot be applied and replacing the %s would %s: %s",
		addr, ref, cluster, joinAnd(fields), verb, ref.Kind, k.loses, remedy)
}

// fromTo describes the change at exactly path as ` (from "a" to "b")`; empty when the change is
// below path (a list or object) or its values are secret.
func fromTo(path string, changes []diff.Change, red *render.Redactor) string {
	for _, c := range changes {
		if c.Path != path {
			continue
		}
		if c.Sensitive || red.Sensitive(c.Old) || red.Sensitive(c.New) || render.Unknown(c.New) {
			return ""
		}
		return fmt.Sprintf(" (from %s to %s)", showValue(c.Old), showValue(c.New))
	}
	return ""
}

func showValue(v any) string {
	if v == nil {
		return "unset"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
