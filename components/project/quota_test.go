package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
)

func liveQuota(hard, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": "gardener", "namespace": "garden-local"}}}
	h := map[string]any{}
	for k, v := range hard {
		h[k] = v
	}
	u.Object["spec"] = map[string]any{"hard": h}
	u.SetLabels(labels)
	return u
}

// The project controller's merge rules for the ResourceQuota gardener (createOrUpdateResourceQuota
// in pkg/controllermanager/controller/project/project/reconciler.go at Gardener v1.120.0): limits
// already there keep their values, missing ones are added, others removed; labels merged.
func TestQuotaFor(t *testing.T) {
	tmpl := &projectcontroller.Quota{Hard: map[string]string{"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"}, Labels: map[string]string{"team": "a"}}
	fresh := quotaFor(tmpl, nil)
	assert.Equal(t, tmpl.Hard, fresh.hard)
	assert.Equal(t, map[string]string{"team": "a"}, fresh.labels)
	assert.Equal(t, "creates the ResourceQuota from its configuration's template (controllers.project.quotas): count/secrets=800, count/shoots.core.gardener.cloud=100", fresh.description(true))

	raised := quotaFor(tmpl, liveQuota(map[string]string{"count/shoots.core.gardener.cloud": "500", "count/configmaps": "10"}, map[string]string{"team": "a", "other": "x"}))
	assert.Equal(t, map[string]string{"count/shoots.core.gardener.cloud": "500", "count/secrets": "800"}, raised.hard)
	assert.Equal(t, map[string]string{"team": "a", "other": "x"}, raised.labels)
	assert.True(t, raised.changes())
	assert.Equal(t, "updates the ResourceQuota from its configuration's template (controllers.project.quotas): adds count/secrets; removes count/configmaps, which the template does not list (keeps the live values of count/shoots.core.gardener.cloud)",
		raised.description(false))

	same := quotaFor(tmpl, liveQuota(map[string]string{"count/shoots.core.gardener.cloud": "500", "count/secrets": "800"}, map[string]string{"team": "a"}))
	assert.False(t, same.changes(), "a limit raised by hand is no change")
}
