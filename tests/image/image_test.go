// Package image checks the container image's recipe without a container engine: the binary the
// Dockerfile builds is static (so the distroless static base suffices) and the image runs as a
// non-root user.
package image

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDockerfileBuildsAStaticNonRootImage(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	dockerfile := string(data)
	assert.Regexp(t, `(?m)^FROM gcr\.io/distroless/static[^ ]*:nonroot$`, dockerfile, "a distroless static base")
	assert.Regexp(t, `(?m)^USER 65532:65532$`, dockerfile, "runs as non-root")

	// The build command of the Dockerfile, run here: its binary must need no dynamic loader.
	run := regexp.MustCompile(`(?m)^RUN CGO_ENABLED=0 go build -trimpath -ldflags "([^"]*)" -o /out/gardener (\./cmd/gardener)$`).FindStringSubmatch(dockerfile)
	require.NotNil(t, run, "the Dockerfile builds ./cmd/gardener with CGO_ENABLED=0")
	out := filepath.Join(t.TempDir(), "gardener")
	cmdArgs := []string{"build", "-trimpath", "-ldflags", strings.ReplaceAll(run[1], "${VERSION}", "test")}
	cmd := exec.Command("go", append(cmdArgs, "-o", out, run[2])...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, string(output))
	f, err := elf.Open(out)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "the binary needs no dynamic loader")
	}
	version, err := exec.Command(out, "version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(version), "gardener test")
}
