// Package plan_test proves the plan against the local control plane: golden plans computed
// offline from recorded snapshots, and the request count of no-op plans.
package plan_test

import (
	"os"
	"testing"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }
