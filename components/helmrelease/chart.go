package helmrelease

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/declarative-gardener/gardener/components/component"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// loadChart loads the chart directory or archive ref names, relative to dir, and checks its
// version against want when want is set.
func loadChart(dir, ref, want string) (*chart.Chart, error) {
	if ref == "" {
		return nil, errors.New("chart is required")
	}
	if strings.HasPrefix(ref, "oci://") {
		return nil, fmt.Errorf("chart %s: OCI charts are not supported yet, rendering must not need the network: "+
			"vendor the chart into the landscape (helm pull --version <version> %s) and name the .tgz file", ref, ref)
	}
	path := component.LandscapePath(dir, ref)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("chart %s: not found at %s: %w", ref, path, err)
		}
		return nil, fmt.Errorf("chart %s: %w", ref, err)
	}
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("chart %s: invalid chart: %w", ref, err)
	}
	if want != "" && ch.Metadata.Version != want {
		return nil, fmt.Errorf("chart %s: has version %s, not the configured %s", ref, ch.Metadata.Version, want)
	}
	return ch, nil
}
