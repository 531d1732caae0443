package readiness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// checkCase is one row of the rule tables: an object as YAML and the expected verdict. Reasons are
// compared exactly because they are what a user reads after a timeout.
type checkCase struct {
	name     string
	obj      string
	opts     Options
	ready    bool
	reason   string
	terminal bool
	// codes are the Gardener error codes the object's last errors carry.
	codes []string
}

// runChecks runs a rule table through the public entry point.
func runChecks(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckWith(mustObject(t, tc.obj), tc.opts)
			assert.Equal(t, Status{Ready: tc.ready, Reason: tc.reason, Terminal: tc.terminal, Codes: tc.codes}, got)
		})
	}
}

// mustObject decodes YAML the way client-go decodes JSON from the API server (integers as int64).
func mustObject(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	require.NoError(t, err)
	obj := &unstructured.Unstructured{}
	require.NoError(t, obj.UnmarshalJSON(js))
	return obj
}
