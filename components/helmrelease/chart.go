package helmrelease

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/declarative-gardener/gardener/engine/landscapefs"
)

// loadChart loads the chart directory or archive ref names, read through paths, and checks its
// version against want when want is set. An archive is read as any file the landscape names; a
// directory is checked first (in confined mode no link in it may lead out of the landscape
// directory), then loaded by Helm, which reads only regular files of bounded size.
func loadChart(paths *landscapefs.Dir, ref, want string) (*chart.Chart, error) {
	if ref == "" {
		return nil, errors.New("chart is required")
	}
	if strings.HasPrefix(ref, "oci://") {
		return nil, fmt.Errorf("chart %s: OCI charts are not supported yet, rendering must not need the network: "+
			"vendor the chart into the landscape (helm pull --version <version> %s) and name the .tgz file", ref, ref)
	}
	dir, err := paths.IsDir(ref)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			path, _ := paths.Path(ref)
			return nil, fmt.Errorf("chart %s: not found at %s: %w", ref, path, err)
		}
		return nil, fmt.Errorf("chart %s: %w", ref, err)
	}
	var ch *chart.Chart
	if dir {
		var path string
		if path, err = paths.Tree(ref); err != nil {
			return nil, fmt.Errorf("chart %s: %w", ref, err)
		}
		ch, err = loader.LoadDir(path)
	} else {
		var data []byte
		if data, err = paths.ReadFile(ref); err != nil {
			return nil, fmt.Errorf("chart %s: %w", ref, err)
		}
		ch, err = loader.LoadArchive(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("chart %s: invalid chart: %w", ref, err)
	}
	if want != "" && ch.Metadata.Version != want {
		return nil, fmt.Errorf("chart %s: has version %s, not the configured %s", ref, ch.Metadata.Version, want)
	}
	return ch, nil
}
