package clickhouse

import "github.com/adsmcp/adsmcp/internal/source/clickhouse/chtest"

// FreshDatabaseForTest keeps the name import_test.go calls while the import
// tests are being reworked elsewhere; new tests call chtest.FreshDatabase.
var FreshDatabaseForTest = chtest.FreshDatabase
