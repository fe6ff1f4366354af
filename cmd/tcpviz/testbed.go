package main

import "github.com/spf13/cobra"

// testbedSubs is filled by the init functions of testbed_*.go files.
var testbedSubs []func(*env) *cobra.Command

func init() {
	addCommand(func(e *env) *cobra.Command {
		c := &cobra.Command{
			Use:   "testbed",
			Short: "run the experiments that produce captures (satellite/PEP, ns-3 MANET)",
		}
		for _, f := range testbedSubs {
			c.AddCommand(f(e))
		}
		return c
	})
}
