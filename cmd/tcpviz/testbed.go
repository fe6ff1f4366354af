package main

import "github.com/spf13/cobra"

func newTestbedCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "testbed",
		Short: "run the experiments that produce captures (satellite/PEP, ns-3 MANET)",
	}
	c.AddCommand(newTestbedSat(e), newTestbedSatHelper(e), newTestbedManet(e))
	return c
}
