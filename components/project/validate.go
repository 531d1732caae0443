package project

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// MaxNameLength bounds project names. Gardener's documentation does not state it;
// gardener-apiserver's validation refuses longer names, because the name is part of every shoot's
// technical ID shoot--<project>--<shoot> (Gardener's "Logging" docs/usage/observability/logging.md)
// and of its DNS names, which an operator expects here too.
const MaxNameLength = 10

// validateName checks a project name: a DNS label of at most MaxNameLength characters without
// "--", which would make technical IDs shoot--<project>--<shoot> ambiguous (Gardener's
// docs/usage/observability/logging.md).
func validateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("project name is empty")
	case len(name) > MaxNameLength:
		return fmt.Errorf("project name %q is longer than %d characters", name, MaxNameLength)
	case !isDNSLabel(name):
		return fmt.Errorf("project name %q is not a DNS label (lower-case letters, digits and '-')", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("project name %q contains \"--\", which separates the parts of shoot technical IDs", name)
	}
	return nil
}

// validateNamespace checks the project namespace: garden-<something> (Gardener's "APIServer
// Admission Plugins" docs/concepts/apiserver-admission-plugins.md), or the garden project's own
// garden namespace.
func validateNamespace(ns string) error {
	if ns != gardenNamespace && !strings.HasPrefix(ns, NamespacePrefix) {
		return fmt.Errorf("project namespace %q does not start with %s", ns, NamespacePrefix)
	}
	if !isDNSLabel(ns) {
		return fmt.Errorf("project namespace %q is not a DNS label", ns)
	}
	return nil
}

func isDNSLabel(s string) bool { return len(validation.IsDNS1123Label(s)) == 0 }
