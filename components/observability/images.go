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
	ImageBlackboxExporter          = images.BlackboxExporter
	ImageEventLogger               = images.EventLogger
)

// gardenImages are the image names the garden stack runs.
var gardenImages = []string{
	ImageAlertmanager, ImageKubeStateMetrics, ImagePlutono, ImagePlutonoDashboardRefresher,
	ImagePrometheus, ImagePrometheusConfigReloader, ImagePrometheusOperator, ImageVali,
}

// ImageNames lists the garden stack's image names, sorted.
func ImageNames() []string { return gardenImages }

// resolveImages applies the overrides and returns the references of the named images.
func resolveImages(overrides map[string]string, names []string) (map[string]string, error) {
	return images.Resolve(overrides, names...)
}
