package main

import (
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/internal/formatversion"
)

// inputFlags are the flags every command that loads a landscape takes: values of input
// variables, and how far the landscape directory is trusted.
type inputFlags struct {
	vars     []string
	varFiles []string
	// confined keeps the paths the landscape names inside its directory (also
	// GARDENER_CONFINED); kubeconfigDirs are the operator's kubeconfig directories, which it
	// does not confine.
	confined       bool
	kubeconfigDirs []string
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.vars, "var", nil, "set an input variable: --var NAME=VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&f.varFiles, "var-file", nil, "read input variables from an HCL file of NAME = VALUE lines (repeatable)")
	cmd.Flags().BoolVar(&f.confined, "confined", false, "treat the landscape as untrusted: the files it names must stay inside its directory, and kubeconfigs inside it may not run exec plugins (also "+landscapefs.EnvConfined+"=1; see docs/security.md)")
	cmd.Flags().StringArrayVar(&f.kubeconfigDirs, "kubeconfig-dir", nil, "a directory of the operator's kubeconfigs that cluster blocks may name in confined mode, exec plugins allowed (repeatable)")
}

func (f *inputFlags) sources() config.InputSources {
	return config.InputSources{
		Environ: os.Environ(), VarFiles: f.varFiles, Vars: f.vars,
		Trust: landscapefs.Policy{Confined: f.confined || confinedByEnvironment(os.Getenv(landscapefs.EnvConfined)), KubeconfigDirs: f.kubeconfigDirs},
	}
}

// confinedByEnvironment reads GARDENER_CONFINED: any value but empty, "0" and "false" switches
// confined mode on, so that a misspelt value errs on the safe side.
func confinedByEnvironment(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

func newValidateCommand(reg *schema.Registry) *cobra.Command {
	var asJSON bool
	var inputs inputFlags
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check a landscape without touching any cluster",
		Long: `Parse and decode every file of the landscape in DIR, check types, references, cycles,
variable validation rules and component rules, and evaluate everything that is known before
apply. Every problem is reported, each at the place it is in. Exit code 0 when the landscape is
valid, 1 otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, diags := config.Load(dirArg(args), reg, inputs.sources())
			if res.Evaluated != nil {
				diags = append(diags, res.Evaluated.MissingKubeconfigs()...)
			}
			if asJSON {
				if err := writeValidateJSON(cmd.OutOrStdout(), diags, res.Files); err != nil {
					return err
				}
			} else {
				if err := diag.WriteText(cmd.ErrOrStderr(), diags, res.Files, diagOptions(cmd.ErrOrStderr())); err != nil {
					return err
				}
				if !diags.HasErrors() {
					printLine(cmd.OutOrStdout(), "Success! The landscape is valid.")
				}
			}
			if diags.HasErrors() {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (see docs/cli.md)")
	inputs.register(cmd)
	return cmd
}

// validateJSONFormat is the version of validate's JSON output.
var validateJSONFormat = formatversion.Version{Major: 1, Minor: 0}

type validateJSON struct {
	FormatVersion formatversion.Version `json:"format_version"`
	Valid         bool                  `json:"valid"`
	ErrorCount    int                   `json:"error_count"`
	WarningCount  int                   `json:"warning_count"`
	Diagnostics   []diag.Diagnostic     `json:"diagnostics"`
}

func writeValidateJSON(w io.Writer, diags hcl.Diagnostics, files map[string]*hcl.File) error {
	out := validateJSON{FormatVersion: validateJSONFormat, Valid: !diags.HasErrors(), Diagnostics: diag.ToJSON(diags, files)}
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out.ErrorCount++
		} else {
			out.WarningCount++
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
