package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Checksum is a stable hash of configuration files (file name to content): as a pod template
// annotation it rolls the pods when a file they read changes.
func Checksum(files map[string]string) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n + "\x00" + files[n] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// FeatureGatesFlag renders feature gates as the --feature-gates value (sorted by gate name,
// comma-separated), or "" when there are none.
func FeatureGatesFlag(gates map[string]bool) string {
	names := make([]string, 0, len(gates))
	for n := range gates {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%t", n, gates[n])
	}
	return strings.Join(parts, ",")
}

// WebhookRule is an admission webhook rule: the operations on resources of one API group version.
func WebhookRule(group, version string, ops []admissionregistrationv1.OperationType, resources ...string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: resources},
	}
}
