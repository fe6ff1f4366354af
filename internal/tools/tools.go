//go:build tools

// Package tools pins the module's library choices in go.mod before every package uses them.
package tools

import (
	_ "github.com/gopacket/gopacket/layers"
	_ "github.com/gopacket/gopacket/pcapgo"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "gonum.org/v1/plot"
)
