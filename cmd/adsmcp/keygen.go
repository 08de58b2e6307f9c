package main

import (
	"fmt"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/auth"
)

// keygenName is what --id and --tenant accept: a word safe in YAML and logs.
var keygenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func newKeygenCommand() *cobra.Command {
	var id, tenant string
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Make an API key for serve --http and print the configuration lines for it",
		Long: `Makes a random API key for remote clients of adsmcp serve --http and prints it
once, with the lines to add under auth.api_keys in the configuration file.
The file keeps only the key's SHA-256: adsmcp cannot show the key again, so
copy it now into the client's settings or a password manager. A lost key is
replaced by a new one (and the old line removed, or marked revoked: true).

The key's tenant (--tenant) must be defined under tenants: in the same
file, with the accounts it may see. See docs/auth.md.`,
		Example: `  adsmcp keygen --id claude-team --tenant acme
  adsmcp keygen`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if id != "" && !keygenName.MatchString(id) {
				return fmt.Errorf("--id %q: use letters, digits, '.', '_' or '-' (at most 64), e.g. --id claude-team", id)
			}
			if tenant != "" && !keygenName.MatchString(tenant) {
				return fmt.Errorf("--tenant %q: use the name of a tenant under tenants: (letters, digits, '.', '_' or '-')", tenant)
			}
			key, hash, err := auth.NewKey()
			if err != nil {
				return fmt.Errorf("making a key: %w", err)
			}
			if id == "" {
				id = "key-" + hash[:8]
			}
			tenantLine := tenant
			if tenant == "" {
				tenantLine = "TENANT   # the tenant (under tenants:) whose accounts this key may see"
			}
			fmt.Fprintf(cmd.OutOrStdout(), `New API key %q. It is shown only this once: adsmcp keeps only its hash.

    %s

Add this to the configuration file (merge it into an existing auth: section),
then restart adsmcp serve:

auth:
  api_keys:
    - id: %s
      sha256: %s
      tenant: %s

Clients send the key as a header: Authorization: Bearer <the key above>.
For Claude Code:

    claude mcp add --transport http adsmcp https://YOUR-HOST/mcp --header "Authorization: Bearer <the key above>"
`, id, key, id, hash, tenantLine)
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "id", "", `name of the key in logs and metrics (default "key-" and the start of its hash)`)
	cmd.Flags().StringVar(&tenant, "tenant", "", "tenant (under tenants:) whose accounts the key may see")
	return cmd
}
