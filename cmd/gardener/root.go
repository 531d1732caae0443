package main

import (
	"encoding/json"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// version is stamped by the Makefile with -ldflags "-X main.version=..."; builds without it (go
// install, go run) report the module version Go recorded, or "dev".
var version = ""

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "gardener",
		Short: "Plan and apply Gardener landscapes declared in HCL",
		Long: `gardener makes Gardener landscapes declarative: the garden, its seeds and shoots are
declared in HCL as a typed component graph; gardener renders every component to Kubernetes
objects, diffs them against the live clusters, prints a plan and applies it in dependency order,
waiting for each component to be ready.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	reg := catalogSchemas()
	root.AddCommand(
		newVersionCommand(),
		newFmtCommand(),
		newValidateCommand(reg),
		newGraphCommand(reg),
		newPlanCommand(reg),
		newRenderCommand(reg),
		newApplyCommand(reg),
		newDestroyCommand(reg),
		newStateCommand(reg),
		newOutputCommand(reg),
		newForceUnlockCommand(reg),
		newShowCommand(),
		newSnapshotCommand(reg),
		newComponentsCommand(reg),
		newSchemaCommand(reg),
		newDaemonCommand(reg),
		newStatusCommand(),
		newApproveCommand(),
		newKubeconfigCommand(reg),
	)
	// The `completion` command (bash, zsh, fish, powershell) is added now rather than on
	// Execute, so that requireKnownSubcommands covers it too.
	root.InitDefaultCompletionCmd()
	var global globalFlags
	global.register(root)
	requireKnownSubcommands(root)
	registerCompletions(root, reg)
	root.Version = currentBuildInfo().String()
	root.SetVersionTemplate("{{.Version}}\n")
	return root
}

// versionJSONFormat is the version of `gardener version --json`'s document.
var versionJSONFormat = formatversion.Version{Major: 1, Minor: 0}

// buildInfo is what `gardener version` reports.
type buildInfo struct {
	FormatVersion formatversion.Version `json:"format_version"`
	Version       string                `json:"version"`
	Commit        string                `json:"commit,omitempty"`
	GoVersion     string                `json:"goVersion"`
	Platform      string                `json:"platform"`
}

// clusterOptions are the client options of every command that talks to clusters: the build's
// version in the user agent, and at most parallelism requests per cluster in flight (zero: no
// bound beyond the client's QPS).
func clusterOptions(parallelism int) cluster.Options {
	return cluster.Options{Version: currentBuildInfo().Version, MaxInFlight: parallelism}
}

func currentBuildInfo() buildInfo {
	info := buildInfo{FormatVersion: versionJSONFormat, Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				info.Commit = s.Value
			}
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	return info
}

// String is the version line of `gardener version` and `gardener --version`.
func (info buildInfo) String() string {
	line := "gardener " + info.Version
	if info.Commit != "" {
		line += " (" + info.Commit + ")"
	}
	return line + " " + info.GoVersion + " " + info.Platform
}

func newVersionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of gardener",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := currentBuildInfo()
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			printf(cmd.OutOrStdout(), "%s\n", info)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the version as JSON")
	return cmd
}
