package extension

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/declarative-gardener/gardener/components/controllerdeployment"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
)

// rawChart returns the chart as the ControllerDeployment's rawChart wants it: a base64-encoded,
// gzipped tar (Gardener's HelmControllerDeployment in docs/api-reference/core-v1.md). An archive is
// embedded as it is; a directory is packed the way `helm package` lays it out (every file the chart
// loads, under a directory named after the chart), with fixed timestamps and modes, so that the
// same chart gives the same bytes on every run and plans show no change.
func rawChart(paths *landscapefs.Dir, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("chart is required")
	}
	if strings.HasPrefix(ref, "oci://") {
		return "", fmt.Errorf("chart %s: OCI charts are not supported; vendor the chart into the landscape", ref)
	}
	dir, err := paths.IsDir(ref)
	if err != nil {
		return "", fmt.Errorf("chart %s: %w", ref, err)
	}
	if !dir {
		return controllerdeployment.ReadChart(paths, ref)
	}
	path, err := paths.Tree(ref)
	if err != nil {
		return "", fmt.Errorf("chart %s: %w", ref, err)
	}
	ch, err := loader.LoadDir(path)
	if err != nil {
		return "", fmt.Errorf("chart %s: invalid chart: %w", ref, err)
	}
	names := make([]string, 0, len(ch.Raw))
	data := map[string][]byte{}
	for _, f := range ch.Raw {
		names = append(names, f.Name)
		data[f.Name] = f.Data
	}
	sort.Strings(names)

	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf) // no name, no modification time: the same bytes every time
	tw := tar.NewWriter(gz)
	for _, name := range names {
		d := data[name]
		hdr := &tar.Header{Name: ch.Name() + "/" + filepath.ToSlash(name), Mode: 0o644, Size: int64(len(d)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			return "", fmt.Errorf("chart %s: packing %s: %w", ref, name, err)
		}
		if _, err := tw.Write(d); err != nil {
			return "", fmt.Errorf("chart %s: packing %s: %w", ref, name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return "", fmt.Errorf("chart %s: packing: %w", ref, err)
	}
	if err := gz.Close(); err != nil {
		return "", fmt.Errorf("chart %s: packing: %w", ref, err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
