// Package redaction_test holds the redaction corpus: one landscape per way a sensitive value can
// travel (a string, a number, a boolean, a map key, an object name, a list element, base64 of it,
// JSON-escaped, URL-encoded, inside a YAML document in a ManagedResource Secret, through a Helm
// chart's templates, in an error the API server returns), planned, saved, shown, applied and
// reconciled by the daemon on the local control plane, and every output searched for the value
// in every form it could take.
package redaction_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// values are the sensitive variables a case's landscape reads: var.secret, var.number, var.flag.
type values struct {
	secret string
	number int64
	flag   bool
}

// leakCase is one way a sensitive value travels.
type leakCase struct {
	name string
	// first are the variables' values of the first plan and apply; second those of the plan that
	// changes them afterwards (the old values are then live and must stay hidden too).
	first, second values
	// hcl declares the case's components. NS stands for the case's namespace, which a component
	// manifests.namespace creates; depend on it.
	hcl string
	// transformed are further forms the case's components give the secret, beyond the encodings
	// every case searches for (a chart's template that upper-cases it).
	transformed func(secret string) []string
	// sensitive lists fields the JSON plan must list as sensitive, as "Kind name path".
	sensitive []string
	// planFails and applyFails say which step the landscape fails, on purpose; errorSays is what
	// the error must still say, so that hiding the value does not hide the cause.
	planFails, applyFails bool
	errorSays             string
}

// Markers: long, unlikely anywhere else, a DNS label where they name objects, with characters
// that JSON and URLs escape where they do not.
const (
	dnsMarker     = "q7x2k9-redaction-marker"
	dnsMarkerNext = "q7x2k9-redaction-rotated"
	textMarker    = `Q7x2k9 "redaction" <&> marker/+?`
	textMarkerNxt = `Q7x2k9 "redaction" <&> rotated/+?`
	numberMarker  = 1987654321
	numberNext    = 1987654329
)

var (
	plain   = values{secret: dnsMarker, number: numberMarker, flag: true}
	rotated = values{secret: dnsMarkerNext, number: numberNext, flag: false}
	text    = values{secret: textMarker, number: numberMarker, flag: true}
	textNxt = values{secret: textMarkerNxt, number: numberNext, flag: false}
)

// redactionCorpus is the redaction corpus: every case plants the sensitive variables' values,
// and no output of plan, show, apply or the daemon may hold them in any form (formsOf).
var redactionCorpus = []leakCase{
	{
		name: "string", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = "string" }
      data = { token = var.secret, mode = "fast" }
    }`),
		sensitive: []string{"ConfigMap string .data[token]"},
	},
	{
		name: "number", first: plain, second: rotated,
		hcl:       manifests(deployment("number", `revisionHistoryLimit = var.number`, `args = ["--mode=fast"]`)),
		sensitive: []string{"Deployment number .spec.revisionHistoryLimit"},
	},
	{
		name: "bool", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "Service", metadata = { name = "flag" }
      spec = {
        selector                 = { app = "flag" }
        ports                    = [{ name = "http", port = 80 }]
        publishNotReadyAddresses = var.flag
      }
    }`),
		sensitive: []string{"Service flag .spec.publishNotReadyAddresses"},
	},
	{
		name: "label key", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap"
      metadata   = { name = "label-key", labels = { (var.secret) = "present" } }
      data       = { mode = "fast" }
    }`),
	},
	{
		name: "data key", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = "data-key" }
      data = { (var.secret) = "present" }
    }`),
	},
	{
		name: "for_each key", first: plain, second: rotated, planFails: true, errorSays: "for_each",
		hcl: `
component "manifests" "case" {
  for_each   = { (var.secret) = "x" }
  cluster    = cluster.runtime
  namespace  = "NS"
  depends_on = [component.manifests.namespace]
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = each.key } }]
}
`,
	},
	{
		name: "object name", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = var.secret }
      data = { mode = "fast" }
    }`),
	},
	{
		name: "part of an object name", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings-${var.secret}" }
      data = { mode = "fast" }
    }`),
	},
	{
		name: "list element", first: plain, second: rotated,
		hcl:       manifests(deployment("list", `revisionHistoryLimit = 2`, `args = ["--mode=fast", "--token", var.secret]`)),
		sensitive: []string{"Deployment list .spec.template.spec.containers[name=app].args[2]"},
	},
	{
		name: "base64", first: text, second: textNxt,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = "base64" }
      binaryData = { token = base64encode(var.secret) }
    }`),
	},
	{
		name: "JSON-escaped", first: text, second: textNxt,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = "json" }
      data = { "config.json" = jsonencode({ token = var.secret, mode = "fast" }) }
    }`),
	},
	{
		name: "YAML in a ManagedResource Secret", first: text, second: textNxt,
		hcl: `
component "managed_resource" "case" {
  cluster    = cluster.runtime
  namespace  = "NS"
  class      = "seed"
  depends_on = [component.manifests.namespace]
  objects = [{
    apiVersion = "v1", kind = "ConfigMap", metadata = { name = "packed", namespace = "kube-system" }
    data = { token = var.secret, mode = "fast" }
  }]
}
`,
	},
	{
		name: "Helm chart templates", first: plain, second: rotated,
		hcl: `
component "helm_release" "case" {
  cluster          = cluster.runtime
  chart            = "chart"
  namespace        = "NS"
  create_namespace = false
  depends_on       = [component.manifests.namespace]
  values           = { mode = "fast" }
  sensitive_values = { token = var.secret }
}
`,
		transformed: func(s string) []string {
			return []string{strings.ToUpper(s), base64.StdEncoding.EncodeToString([]byte("user:" + s))}
		},
	},
	{
		name: "sensitive output", first: plain, second: rotated,
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap", metadata = { name = "output" }
      data = { mode = "fast" }
    }`) + `
output "token" {
  value     = var.secret
  sensitive = true
}
`,
	},
	{
		name: "string in an API server error", first: text, second: textNxt, applyFails: true, errorSays: "metadata.labels",
		hcl: manifests(`{
      apiVersion = "v1", kind = "ConfigMap"
      metadata   = { name = "invalid-label", labels = { token = var.secret } }
      data       = { mode = "fast" }
    }`),
	},
	{
		name: "number in an API server error", first: values{secret: dnsMarker, number: -numberMarker, flag: true},
		second: values{secret: dnsMarkerNext, number: -numberNext}, applyFails: true, errorSays: "spec.revisionHistoryLimit",
		hcl: manifests(deployment("invalid-number", `revisionHistoryLimit = var.number`, `args = ["--mode=fast"]`)),
	},
}

// header is every case's landscape around its components: the cluster, the state in the
// cluster, the sensitive variables and the case's namespace.
const header = `
landscape "LANDSCAPE" {
  state {
    backend   = "kubernetes"
    cluster   = cluster.runtime
    namespace = "redaction-state"
  }
}

cluster "runtime" {
  context = "runtime"
}

variable "secret" {
  type      = string
  sensitive = true
}

variable "number" {
  type      = number
  sensitive = true
}

variable "flag" {
  type      = bool
  sensitive = true
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "NS" } }]
}
`

// manifests is a manifests component of the given objects in the case's namespace.
func manifests(objects ...string) string {
	return `
component "manifests" "case" {
  cluster    = cluster.runtime
  namespace  = "NS"
  depends_on = [component.manifests.namespace]
  objects    = [` + strings.Join(objects, ", ") + `]
}
`
}

// deployment is a Deployment named name with further spec fields and container fields.
func deployment(name, spec, container string) string {
	return fmt.Sprintf(`{
      apiVersion = "apps/v1", kind = "Deployment", metadata = { name = %[1]q }
      spec = {
        %[2]s
        selector = { matchLabels = { app = %[1]q } }
        template = {
          metadata = { labels = { app = %[1]q } }
          spec = { containers = [{ name = "app", image = "registry.local/app:1.0.0", %[3]s }] }
        }
      }
    }`, name, spec, container)
}

// formsOf are the forms a value may take in an output: as it is, base64 (standard and URL
// alphabets, padded or not), hex, URL-encoded (query and path), JSON- and Go-escaped; a number
// in decimal and in the exponent form Go prints float64 in.
func formsOf(v values) []string {
	var out []string
	for _, s := range []string{v.secret} {
		b := []byte(s)
		js, _ := json.Marshal(s)
		var noHTML bytes.Buffer
		enc := json.NewEncoder(&noHTML)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		out = append(out, s,
			base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
			base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
			hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
			url.QueryEscape(s), url.PathEscape(s),
			string(js[1:len(js)-1]), strings.TrimSuffix(strings.TrimSpace(noHTML.String()), `"`)[1:],
			strconv.Quote(s)[1:len(strconv.Quote(s))-1])
	}
	n := v.number
	if n < 0 {
		n = -n
	}
	out = append(out, strconv.FormatInt(n, 10), strconv.FormatFloat(float64(n), 'g', -1, 64), fmt.Sprintf("%v", float64(n)))
	seen := map[string]bool{}
	var unique []string
	for _, f := range out {
		if !seen[f] {
			seen[f] = true
			unique = append(unique, f)
		}
	}
	return unique
}

// outputs collects what a case's commands and the daemon printed or published, by where it
// came from.
type outputs struct {
	mu   sync.Mutex
	text map[string]string
}

func (o *outputs) add(where, s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.text == nil {
		o.text = map[string]string{}
	}
	o.text[where] += s
}

// TestRedactionCorpus runs every case of the corpus on the local control plane and searches every
// output for every form of the case's sensitive values.
func TestRedactionCorpus(t *testing.T) {
	c := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.RuntimePlane, Workloads: true})
	cfg := c.Plane(localcluster.RuntimePlane).RESTConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	for _, ns := range []string{"redaction-state", "redaction-status"} {
		_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	bin := buildGardener(t)
	// The ManagedResource case needs its CRD, which a seed's resource manager would install.
	crd, err := localcluster.SeedCRD("managedresources.resources.gardener.cloud")
	require.NoError(t, err)
	require.NoError(t, localcluster.ApplyCRDs(context.Background(), cfg, [][]byte{crd}))
	for i, tc := range redactionCorpus {
		t.Run(tc.name, func(t *testing.T) {
			out := &outputs{}
			files := landscapeFiles(t, tc, fmt.Sprintf("redaction-%02d", i))
			runCLI(t, c, bin, tc, writeDir(t, files), out)
			files = landscapeFiles(t, tc, fmt.Sprintf("redaction-%02d-daemon", i))
			runDaemon(t, c, cs, tc, writeDir(t, files), fmt.Sprintf("redaction-%02d", i), out)
			forms := append(formsOf(tc.first), formsOf(tc.second)...)
			if tc.transformed != nil {
				forms = append(forms, tc.transformed(tc.first.secret)...)
				forms = append(forms, tc.transformed(tc.second.secret)...)
			}
			require.NotEmpty(t, out.text)
			for _, where := range slices.Sorted(maps.Keys(out.text)) {
				s := out.text[where]
				for _, f := range forms {
					if at := strings.Index(s, f); at >= 0 {
						t.Errorf("%s shows a sensitive value as %q: ...%s...", where, f, s[max(0, at-120):min(len(s), at+len(f)+40)])
					}
				}
			}
		})
	}
}

// landscapeFiles is a case's landscape named name, in namespace name, with the chart the Helm
// case installs.
func landscapeFiles(t *testing.T, tc leakCase, name string) map[string]string {
	t.Helper()
	files := map[string]string{
		"main.hcl": strings.NewReplacer("LANDSCAPE", name, "NS", name).Replace(header + tc.hcl),
	}
	err := filepath.WalkDir("testdata/chart", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata", path)
		files[rel] = string(b)
		return nil
	})
	require.NoError(t, err)
	return files
}

// writeDir writes a landscape's files, in folders where their names say so, into a new
// directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return dir
}

// environ sets the sensitive variables as the environment does.
func environ(v values) []string {
	return []string{"GARDENER_VAR_secret=" + v.secret, "GARDENER_VAR_number=" + strconv.FormatInt(v.number, 10),
		"GARDENER_VAR_flag=" + strconv.FormatBool(v.flag)}
}

// runCLI plans, saves, shows and applies the case's landscape with the gardener binary, then
// plans the change of its values, collecting every output.
func runCLI(t *testing.T, c *localcluster.Cluster, bin string, tc leakCase, dir string, out *outputs) {
	t.Helper()
	run := func(label string, v values, args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(append(os.Environ(), "KUBECONFIG="+c.Kubeconfig(), "NO_COLOR=1"), environ(v)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		out.add("gardener "+label+" (stdout)", stdout.String())
		out.add("gardener "+label+" (stderr)", stderr.String())
		return err
	}
	planFile := filepath.Join(t.TempDir(), "plan.out")
	err := run("plan", tc.first, "plan", dir)
	if tc.planFails {
		require.Error(t, err)
		assert.Contains(t, out.text["gardener plan (stderr)"], tc.errorSays)
		return
	}
	require.NoError(t, err, "%s", out.text["gardener plan (stderr)"])
	require.NoError(t, run("plan --json", tc.first, "plan", "--json", dir))
	checkSensitive(t, tc, out.text["gardener plan --json (stdout)"])
	require.NoError(t, run("plan --out", tc.first, "plan", "--out", planFile, dir))
	raw, err := os.ReadFile(planFile)
	require.NoError(t, err)
	out.add("saved plan (file bytes)", string(raw))
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	unzipped, err := io.ReadAll(zr)
	require.NoError(t, err)
	out.add("saved plan (decompressed)", string(unzipped))
	require.NoError(t, run("show", tc.first, "show", planFile))
	require.NoError(t, run("show --json", tc.first, "show", "--json", planFile))
	err = run("apply", tc.first, "apply", "--timeout", "2m", planFile)
	if tc.applyFails {
		require.Error(t, err)
		assert.Contains(t, out.text["gardener apply (stderr)"], tc.errorSays, "the error still names the field")
		return
	}
	require.NoError(t, err, "%s", out.text["gardener apply (stderr)"])
	// The state holds the real names, as it must to find the objects again; what prints it
	// does not.
	require.NoError(t, run("state list", tc.first, "state", "list", dir))
	for _, line := range strings.Split(strings.TrimSpace(out.text["gardener state list (stdout)"]), "\n") {
		addr, _, _ := strings.Cut(line, " ")
		require.NoError(t, run("state show "+addr, tc.first, "state", "show", dir, addr))
		require.NoError(t, run("state show --json "+addr, tc.first, "state", "show", "--json", dir, addr))
	}
	require.NoError(t, run("plan after a change", tc.second, "plan", dir))
	require.NoError(t, run("plan --json after a change", tc.second, "plan", "--json", dir))
	checkSensitive(t, tc, out.text["gardener plan --json after a change (stdout)"])
	require.NoError(t, run("apply after a change", tc.second, "apply", "--auto-approve", "--timeout", "2m", dir))
}

// checkSensitive checks that the JSON plan lists the case's sensitive fields as sensitive.
func checkSensitive(t *testing.T, tc leakCase, js string) {
	t.Helper()
	var pl struct {
		Components []struct {
			Objects []struct {
				Ref struct {
					Kind, Name string
				} `json:"ref"`
				Changes []struct {
					Path      string `json:"path"`
					Sensitive bool   `json:"sensitive"`
				} `json:"changes"`
			} `json:"objects"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &pl))
	for _, want := range tc.sensitive {
		found := false
		for _, c := range pl.Components {
			for _, o := range c.Objects {
				for _, ch := range o.Changes {
					if o.Ref.Kind+" "+o.Ref.Name+" "+ch.Path == want {
						found = true
						assert.True(t, ch.Sensitive, "%s is listed as sensitive", o.Ref.Kind+" "+o.Ref.Name+" "+ch.Path)
					}
				}
			}
		}
		assert.True(t, found, "the plan lists %s", want)
	}
}

// runDaemon reconciles the case's landscape with the daemon, then again after its values
// changed, collecting its status ConfigMap, Events and log.
func runDaemon(t *testing.T, c *localcluster.Cluster, cs kubernetes.Interface, tc leakCase, dir, name string, out *outputs) {
	t.Helper()
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	current := tc.first
	var mu sync.Mutex
	var log strings.Builder
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		log.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 10})
	clusterOpts := cluster.Options{NoDiskCache: true}
	status := daemon.StatusStore{Client: cs, Namespace: "redaction-status", Name: name}
	events := &landscapetest.Events{}
	d := daemon.New(daemon.Options{
		Dir: dir, WorkDir: t.TempDir(), Policy: daemon.PolicyAuto,
		Resync: time.Hour, Poll: time.Second, RetryLock: time.Second, Holder: "redaction-corpus",
		Planner: func(dir string) planner.Options {
			o := landscapetest.Options(dir, planner.LiveConnector(clusterOpts))
			o.Inputs = config.InputSources{Environ: environ(current)}
			return o
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Timeout: 2 * time.Minute},
		Status:  status, Events: events, Metrics: daemon.NewMetrics(prometheus.NewRegistry()), Log: logger,
	})
	collect := func(label string) daemon.Status {
		s := d.Cycle(context.Background())
		data, annotations, err := status.Read(context.Background())
		require.NoError(t, err)
		for k, v := range data {
			out.add("daemon status "+k+" ("+label+")", v)
		}
		for k, v := range annotations {
			out.add("daemon status annotation "+k+" ("+label+")", v)
		}
		return s
	}
	s := collect("first cycle")
	switch {
	case tc.planFails:
		assert.Equal(t, daemon.PhaseInvalid, s.Phase)
		assert.Contains(t, s.Errors, tc.errorSays)
	case tc.applyFails:
		assert.Equal(t, daemon.PhaseFailed, s.Phase)
		assert.Contains(t, s.ApplyResult+s.Errors, tc.errorSays, "the error still names the field")
	default:
		assert.Equal(t, daemon.PhaseApplied, s.Phase, "%+v", s)
		current = tc.second
		s = collect("after a change")
		assert.Contains(t, []string{daemon.PhaseApplied, daemon.PhaseUpToDate}, s.Phase, "%+v", s)
	}
	out.add("daemon Events", events.All())
	mu.Lock()
	out.add("daemon log", log.String())
	mu.Unlock()
}

// buildGardener builds the CLI once per test.
func buildGardener(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gardener")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/declarative-gardener/gardener/cmd/gardener")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return bin
}
