package observability

import (
	"github.com/declarative-gardener/gardener/components/images"
)

// The image names of the stack in the catalog's image vector (components/images), the keys of
// Values.Images.
const (
	ImagePrometheusOperator        = images.PrometheusOperator
	ImagePrometheusConfigReloader  = images.PrometheusConfigReloader
	ImagePrometheus                = images.Prometheus
	ImageAlertmanager              = images.Alertmanager
	ImageKubeStateMetrics          = images.KubeStateMetrics
	ImagePlutono                   = images.Plutono
	ImagePlutonoDashboardRefresher = images.PlutonoDashboardRefresher
	ImageVali                      = images.Vali
)

// stack are the image names the stack runs.
var stack = []string{
	ImageAlertmanager, ImageKubeStateMetrics, ImagePlutono, ImagePlutonoDashboardRefresher,
	ImagePrometheus, ImagePrometheusConfigReloader, ImagePrometheusOperator, ImageVali,
}

// ImageNames lists the stack's image names, sorted.
func ImageNames() []string { return stack }

// resolveImages applies the overrides and returns every image reference by name.
func resolveImages(overrides map[string]string) (map[string]string, error) {
	v, err := images.Default().Override(overrides)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(stack))
	for _, name := range stack {
		ref, err := v.Image(name, "")
		if err != nil {
			return nil, err
		}
		out[name] = ref
	}
	return out, nil
}
