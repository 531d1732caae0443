package main

import (
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/secrets"
)

// registerCompletions adds dynamic shell completion (`gardener completion SHELL` installs it)
// to every command by what its flags and arguments are, so that a new command gets it by naming
// its flags as the others do: --target and --allow-destroy complete the addresses of the
// landscape being worked on, --rotate the classes of generated secrets, --policy the daemon's
// policies, the DIR argument directories, and `components TYPE` and the ADDRESS of `state
// show|rm` what they name.
func registerCompletions(root *cobra.Command, reg *schema.Registry) {
	addresses := addressCompletions(reg)
	var classes []string
	for _, c := range secrets.Classes() {
		classes = append(classes, string(c))
	}
	flags := map[string]cobra.CompletionFunc{
		"target":        addresses,
		"allow-destroy": addresses,
		"rotate":        fixedCompletions(classes...),
		"policy":        fixedCompletions(string(daemon.PolicyAuto), string(daemon.PolicyApproveDestructive), string(daemon.PolicyPlanOnly)),
	}
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for name, fn := range flags {
			if cmd.Flags().Lookup(name) != nil {
				_ = cmd.RegisterFlagCompletionFunc(name, fn)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, path := range [][]string{{"validate"}, {"graph"}, {"plan"}, {"render"}, {"destroy"}, {"snapshot"}, {"state", "list"}} {
		if cmd, _, err := root.Find(path); err == nil && cmd != root {
			cmd.ValidArgsFunction = directoryCompletion
		}
	}
	if cmd, _, err := root.Find([]string{"apply"}); err == nil && cmd != root {
		cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault // a directory or a plan file
		}
	}
	for _, path := range [][]string{{"state", "show"}, {"state", "rm"}, {"state", "mv"}} {
		if cmd, _, err := root.Find(path); err == nil && cmd != root {
			cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				dir, _ := dirAndRest(append(slices.Clone(args), toComplete))
				return landscapeAddresses(cmd, reg, dir), cobra.ShellCompDirectiveNoFileComp
			}
		}
	}
	if cmd, _, err := root.Find([]string{"components"}); err == nil && cmd != root {
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, s := range reg.All() {
				out = append(out, cobra.CompletionWithDesc(s.Type, s.Summary()))
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
	}
}

// directoryCompletion completes the DIR argument of a command with directories.
func directoryCompletion(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// addressCompletions completes a flag with the addresses of the landscape the command works on:
// its DIR argument, or the working directory.
func addressCompletions(reg *schema.Registry) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return landscapeAddresses(cmd, reg, dirArg(args)), cobra.ShellCompDirectiveNoFileComp
	}
}

// landscapeAddresses lists the block addresses of the landscape in dir and the addresses of
// their instances, sorted, loaded with the --var, --var-file and --confined flags the command
// line has so far. Nothing is rendered and no cluster is asked: completion must be quick. A
// landscape with errors completes what it could evaluate.
func landscapeAddresses(cmd *cobra.Command, reg *schema.Registry, dir string) []cobra.Completion {
	src := config.InputSources{Environ: os.Environ()}
	fl := cmd.Flags()
	src.Vars, _ = fl.GetStringArray("var")
	src.VarFiles, _ = fl.GetStringArray("var-file")
	confined, _ := fl.GetBool("confined")
	src.Trust = landscapefs.Policy{Confined: confined || confinedByEnvironment(os.Getenv(landscapefs.EnvConfined))}
	src.Trust.KubeconfigDirs, _ = fl.GetStringArray("kubeconfig-dir")
	res, _ := config.Load(dir, reg, src)
	seen := map[string]bool{}
	if res != nil && res.Landscape != nil {
		for addr := range res.Landscape.Blocks {
			seen[string(addr)] = true
		}
	}
	if res != nil && res.Evaluated != nil {
		for addr := range res.Evaluated.Instances {
			seen[string(addr)] = true
		}
	}
	out := make([]cobra.Completion, 0, len(seen))
	for addr := range seen {
		out = append(out, addr)
	}
	slices.Sort(out)
	return out
}
