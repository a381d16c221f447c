package ct2bin

import (
	"flag"
	"fmt"
	"io"
)

// Command runs the model-file subcommands for the CLI; args follow the command's own name:
//
//	inspect DIR                                   validate a model directory and summarise it
//	tiny [-mels N] [-seed N] [-english] DIR       write a random-weight test model
func Command(args []string, stdout, stderr io.Writer) error {
	usage := "usage: inspect DIR | tiny [-mels 80|128] [-seed N] [-english] DIR"
	if len(args) == 0 {
		return fmt.Errorf("missing subcommand; %s", usage)
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opt TinyOptions
	if args[0] == "tiny" {
		fs.IntVar(&opt.NMels, "mels", 80, "mel bins (80, or 128 like large-v3)")
		fs.Uint64Var(&opt.Seed, "seed", 0, "random seed of the weights")
		fs.BoolVar(&opt.EnglishOnly, "english", false, `English-only vocabulary (no "" token)`)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%s takes one model directory; %s", args[0], usage)
	}
	dir := fs.Arg(0)
	switch args[0] {
	case "inspect":
		return RunInspect(stdout, dir)
	case "tiny":
		if err := GenerateTiny(dir, opt); err != nil {
			return err
		}
		return RunInspect(stdout, dir)
	}
	return fmt.Errorf("unknown subcommand %q; %s", args[0], usage)
}

// RunInspect validates dir and prints its one-line summary.
func RunInspect(w io.Writer, dir string) error {
	info, err := Inspect(dir)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s: %s\n", dir, info)
	return err
}
