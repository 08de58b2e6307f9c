package postgres

import "github.com/adsmcp/adsmcp/internal/source/postgres/pgtest"

// FreshSchemaForTest keeps the name import_test.go calls while the import
// tests are being reworked elsewhere; new tests call pgtest.FreshSchema.
var FreshSchemaForTest = pgtest.FreshSchema
