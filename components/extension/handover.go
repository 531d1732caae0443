package extension

import (
	"regexp"
	"strings"

	"github.com/declarative-gardener/gardener/engine/render"
)

// handOver hands the ControllerInstallations <registration>-<seed> that older versions of
// gardener rendered themselves over to gardener-controller-manager, which adopts an installation
// of the registration on the seed whatever its name (computeRegistrationNameToInstallationMap in
// pkg/controllermanager/controller/controllerregistration/seed/reconciler.go at Gardener
// v1.120.0): never deleted, so that the extension keeps its namespace
// extension-<registration>-<seed> and its ManagedResource on the seed, which the installation's
// part renders under the same names. The plan releases such an installation only where the
// landscape applied it.
func handOver(v Values) []render.Handover {
	if len(v.Seeds) == 0 {
		return nil
	}
	names := make([]string, 0, len(v.Seeds))
	for _, s := range v.Seeds {
		names = append(names, regexp.QuoteMeta(v.Name+"-"+s.Name))
	}
	return []render.Handover{{
		Cluster: v.VirtualCluster.Name, Group: "core.gardener.cloud", Kind: InstallationKind,
		Name: regexp.MustCompile("^(" + strings.Join(names, "|") + ")$"), Controller: actorGCM,
	}}
}
