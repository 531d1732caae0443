package apply

import (
	"os"
	"testing"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

func TestMain(m *testing.M) { os.Exit(localcluster.RunShared(m)) }
