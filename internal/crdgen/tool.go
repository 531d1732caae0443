package crdgen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// controllerTools is the module of controller-gen.
const controllerTools = "sigs.k8s.io/controller-tools"

// SourceEnv names the environment variable that points at Gardener's source tree instead of the
// copy beside the repository (as for tests/tools/build.sh).
const SourceEnv = "GARDENER_SOURCE"

// GardenerSource returns Gardener's source tree at the release the repository at root pins
// (tests/tools/gardener/VERSION): $GARDENER_SOURCE, or shared/gardener-<version> beside the
// repository or beside one of the directories above it (a git worktree may sit deeper than the
// clone). The tree's VERSION must be the pinned one.
func GardenerSource(root string) (string, error) {
	pin, err := os.ReadFile(filepath.Join(root, "tests", "tools", "gardener", "VERSION"))
	if err != nil {
		return "", fmt.Errorf("gardener pin: %w", err)
	}
	version := strings.TrimSpace(string(pin))
	dir := os.Getenv(SourceEnv)
	if dir == "" {
		dir = besideAncestor(root, filepath.Join("shared", "gardener-"+version))
	}
	have, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	if err != nil {
		return "", fmt.Errorf("gardener %s source not found at %s (set %s): %w", version, dir, SourceEnv, err)
	}
	if got := strings.TrimSpace(string(have)); got != version {
		return "", fmt.Errorf("gardener source at %s is %s, the pin is %s", dir, got, version)
	}
	return filepath.Abs(dir)
}

// EnsureControllerGen returns binDir/controller-gen at the version Gardener's go.mod pins,
// building it from the module proxy through Gardener's go.mod when it is missing or reports
// another version.
func EnsureControllerGen(ctx context.Context, gardenerSource, binDir string) (string, error) {
	want, err := pinnedVersion(ctx, gardenerSource, controllerTools)
	if err != nil {
		return "", err
	}
	bin, err := filepath.Abs(filepath.Join(binDir, "controller-gen"))
	if err != nil {
		return "", err
	}
	if have, err := controllerGenVersion(ctx, bin); err == nil && have == want {
		return bin, nil
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", err
	}
	// Built next to its place and renamed, so that a concurrent run never sees half a binary.
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", tmp, controllerTools+"/cmd/controller-gen")
	cmd.Dir, cmd.Env = gardenerSource, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("build controller-gen %s: %w: %s", want, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	if have, err := controllerGenVersion(ctx, bin); err != nil || have != want {
		return "", fmt.Errorf("built controller-gen reports %q, want %s: %v", have, want, err)
	}
	return bin, nil
}

// pinnedVersion is the version of a module Gardener's go.mod requires.
func pinnedVersion(ctx context.Context, gardenerSource, path string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Version}}", path)
	cmd.Dir, cmd.Env = gardenerSource, goEnv()
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("go list -m %s: %w: %s", path, err, exit.Stderr)
		}
		return "", fmt.Errorf("go list -m %s: %w", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// controllerGenVersion asks a controller-gen binary for its version ("Version: v0.17.3").
func controllerGenVersion(ctx context.Context, bin string) (string, error) {
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("controller-gen --version: %w", err)
	}
	version, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "Version: ")
	if !ok {
		return "", fmt.Errorf("controller-gen --version: unexpected %q", out)
	}
	return version, nil
}

// besideAncestor returns the first existing <parent>/rel for the parents of root, nearest first;
// the one beside root when none exists, for the error message.
func besideAncestor(root, rel string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	first := filepath.Join(abs, "..", rel)
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			return filepath.Join(dir, rel)
		}
		if filepath.Dir(dir) == dir {
			return first
		}
	}
}
