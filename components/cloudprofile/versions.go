package cloudprofile

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/declarative-gardener/gardener/engine/render"
)

// The classifications of a version (Gardener's ExpirableVersion in docs/api-reference/core.md).
const (
	ClassificationPreview    = "preview"
	ClassificationSupported  = "supported"
	ClassificationDeprecated = "deprecated"
)

// Classifications lists the version classifications.
var Classifications = []string{ClassificationPreview, ClassificationSupported, ClassificationDeprecated}

// KubernetesVersion is one Kubernetes version shoots may use (ExpirableVersion, Gardener's
// ExpirableVersion in docs/api-reference/core.md).
type KubernetesVersion struct {
	// Version is MAJOR.MINOR.PATCH without a leading v.
	Version string `json:"version"`
	// Classification is preview, supported or deprecated; "" leaves it to Gardener.
	Classification string `json:"classification"`
	// ExpirationDate is an RFC 3339 time after which the version may no longer be used.
	ExpirationDate string `json:"expiration_date"`
}

var kubernetesVersionRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// kubernetes renders spec.kubernetes; a profile offers at least one version.
func kubernetes(vs []KubernetesVersion) (map[string]any, error) {
	versions, err := entries[KubernetesVersion]{
		what:  "Kubernetes version",
		entry: "the Kubernetes version",
		name:  func(k KubernetesVersion) string { return k.Version },
		checkName: func(v string) error {
			if !kubernetesVersionRE.MatchString(v) && !strings.Contains(v, render.UnknownString) {
				return fmt.Errorf("the Kubernetes version %q is not of the form 1.33.1", v)
			}
			return nil
		},
		render: func(k KubernetesVersion) (any, error) {
			return expirable(k.Version, k.Classification, k.ExpirationDate)
		},
	}.of(vs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"versions": versions}, nil
}

// expirable renders the fields of an ExpirableVersion. Expiration dates are rendered in UTC, as
// the API server returns them, so that plans do not show a time zone change as a diff.
func expirable(version, classification, expiration string) (map[string]any, error) {
	m := map[string]any{"version": version}
	if classification != "" {
		if !slices.Contains(Classifications, classification) {
			return nil, fmt.Errorf("classification %q is not one of %s", classification, strings.Join(Classifications, ", "))
		}
		m["classification"] = classification
	}
	if expiration != "" {
		t, err := time.Parse(time.RFC3339, expiration)
		if err != nil {
			return nil, fmt.Errorf("expiration date %q is not an RFC 3339 time such as 2026-01-31T23:59:59Z", expiration)
		}
		m["expirationDate"] = t.UTC().Format(time.RFC3339)
	}
	return m, nil
}
