// Package catalog proves against the local control plane that the component catalog renders
// objects a real API server accepts: every golden render file of every component package is
// server-side dry-run applied, runtime objects to the runtime cluster (with the CRDs the catalog
// ships) and virtual garden objects to the virtual garden (with the Gardener API).
package catalog

import (
	"os"
	"testing"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }
