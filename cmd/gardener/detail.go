package main

import (
	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/views"
)

// detailFlag is --detail of the commands that print a plan for people (plan, show, apply,
// destroy): how much of each object it shows (views.Detail). It is parsed with the flags, so
// that a wrong value fails before anything is planned.
type detailFlag struct{ views.Detail }

func (f *detailFlag) String() string {
	if f.Detail == "" {
		return string(views.DetailAuto)
	}
	return string(f.Detail)
}

func (f *detailFlag) Set(s string) (err error) {
	f.Detail, err = views.ParseDetail(s)
	return err
}

func (f *detailFlag) Type() string { return "auto|full|compact" }

func (f *detailFlag) register(cmd *cobra.Command) {
	cmd.Flags().Var(f, "detail", "how much of each object the plan shows: full (every field that changes), compact (one line per object, fields only of objects updated in place, counts per component) or auto (compact when the plan creates more than 200 objects)")
	values := make([]string, len(views.Details))
	for i, d := range views.Details {
		values[i] = string(d)
	}
	_ = cmd.RegisterFlagCompletionFunc("detail", cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown or doubly registered flag
}
