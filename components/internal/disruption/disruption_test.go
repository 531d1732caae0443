package disruption

import (
	"testing"

	"github.com/stretchr/testify/assert"
	policyv1 "k8s.io/api/policy/v1"
)

func TestBudgetLetsOnePodGo(t *testing.T) {
	labels := map[string]string{"app": "x"}
	b := Budget("garden", "x", labels)
	assert.Equal(t, "garden", b.Namespace)
	assert.Equal(t, labels, b.Labels)
	assert.Equal(t, labels, b.Spec.Selector.MatchLabels)
	assert.Equal(t, int32(1), b.Spec.MaxUnavailable.IntVal)
	assert.Equal(t, policyv1.AlwaysAllow, *b.Spec.UnhealthyPodEvictionPolicy)
}
