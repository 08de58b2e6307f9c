package setting

// Server is what every warehouse server's section under sources: takes:
// where the server is and how much of it to use. A section embeds it inline,
// so the keys stay dsn, max_conns and statement_timeout.
type Server struct {
	// DSN is the connection URL; it may hold a password, so it is a Secret
	// (use ${…_DSN}).
	DSN Secret `yaml:"dsn"`
	// MaxConns caps the connection pool (default: the driver's).
	MaxConns int `yaml:"max_conns"`
	// StatementTimeout bounds a query run without a call deadline; a call's
	// deadline always bounds its query.
	StatementTimeout Duration `yaml:"statement_timeout"`
}

// Check refuses a server section without a connection URL or with negative
// limits; section is its key ("postgres"), env the variable to suggest.
func (s Server) Check(section, env string, bad func(string, ...any)) {
	if s.DSN == "" {
		bad("sources.%s.dsn is empty: set it to a connection URL, e.g. ${%s}", section, env)
	}
	if s.MaxConns < 0 || s.StatementTimeout < 0 {
		bad("sources.%s: max_conns and statement_timeout must be positive", section)
	}
}
