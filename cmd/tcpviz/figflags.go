package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tcpviz/tcpviz/plot"
)

// figFlags are the figure flags every graph verb shares: --size,
// --font-size, --dpi (plot.Style).
type figFlags struct {
	size     string
	fontSize float64
	dpi      int
	label    string
	noTitle  bool
}

// addFigFlags registers --size, --font-size and --dpi on c, stored in e,
// and checks them before the verb reads any capture.
func (e *env) addFigFlags(c *cobra.Command) {
	c.Flags().StringVar(&e.fig.size, "size", "16x10cm", "figure size WIDTHxHEIGHT in cm, mm, in or pt, e.g. 8.5x6cm for one column")
	c.Flags().Float64Var(&e.fig.fontSize, "font-size", 10, "font size of the axis labels in points (tick labels and legend 90 %)")
	c.Flags().IntVar(&e.fig.dpi, "dpi", 150, "resolution of PNG figures in dots per inch (SVG and PDF are vector)")
	c.Flags().BoolVar(&e.fig.noTitle, "no-title", false, "leave the title out of the figure (the paper's caption names the run)")
	c.Flags().StringVar(&e.fig.label, "label", "", "name of the run in the figure title (default: the capture's directory and file name)")
	prev := c.PreRunE
	c.PreRunE = func(cmd *cobra.Command, args []string) error {
		if _, err := e.fig.style(); err != nil {
			return err
		}
		if cmd.Flags().Changed("dpi") {
			// A vector figure has no resolution: say so rather than
			// take the flag without a word.
			for _, name := range []string{"output", "plot"} {
				if fl := cmd.Flags().Lookup(name); fl != nil && fl.Value.String() != "" {
					if ext := strings.ToLower(filepath.Ext(fl.Value.String())); ext == ".svg" || ext == ".pdf" {
						fmt.Fprintf(e.stderr, "note: --dpi applies to PNG figures only; %s is vector\n", fl.Value.String())
					}
				}
			}
		}
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
}

// style returns the plot.Style the flags ask for.
func (f *figFlags) style() (plot.Style, error) {
	st := plot.DefaultStyle
	st.OmitTitle = f.noTitle
	if f.size != "" {
		w, h, err := plot.ParseSize(f.size)
		if err != nil {
			return st, fmt.Errorf("--size: %w", err)
		}
		st.W, st.H = w, h
	}
	if f.fontSize != 0 {
		st = st.WithFontSize(f.fontSize)
	}
	if f.dpi != 0 {
		st.DPI = f.dpi
	}
	var se *plot.StyleError
	if err := st.Check(); errors.As(err, &se) {
		return st, fmt.Errorf("--%s: %w", map[plot.StyleField]string{plot.FieldSize: "size", plot.FieldFontSize: "font-size", plot.FieldDPI: "dpi"}[se.Field], err)
	}
	return st, nil
}

// saveFigure renders fig in format with the style of the figure flags.
func (e *env) saveFigure(w io.Writer, fig interface{ Save(io.Writer, string) error }, format string) error {
	s, ok := fig.(plot.Saver)
	if !ok {
		return fig.Save(w, format)
	}
	st, err := e.fig.style()
	if err != nil {
		return err
	}
	return s.SaveStyle(w, format, st)
}

// runName names the run of a capture in figure titles: --label if given,
// else the capture's directory and file name ("pep-on_window-20KB/client.pcap"),
// since testbeds name every capture of a run alike.
func (e *env) runName(path string) string {
	if e.fig.label != "" {
		return e.fig.label
	}
	if path == "-" {
		return "stdin"
	}
	dir := filepath.Base(filepath.Dir(path))
	if dir == "." || dir == "/" {
		return filepath.Base(path)
	}
	return dir + "/" + filepath.Base(path)
}
