package commands

import (
	"context"
	"io"

	"github.com/whisperkey/whisperkey/internal/models"
)

func runModels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	env, err := cliEnvironment(cliLogger(stderr, false))
	if err != nil {
		return err
	}
	return cliStatus(models.RunCLI(ctx, args, stdout, stderr, env.cache))
}
