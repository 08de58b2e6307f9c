package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/adsmcp/adsmcp/internal/importer"
)

// Syncs (`adsmcp sync`, docs/sync.md) write chunks into a PostgreSQL
// warehouse through the import engine's rules (importer.WriteChunk), one
// transaction per chunk, taking the imports' lock (import.go): a reader
// (adsmcp serve, any replica) sees the committed warehouse before the chunk
// or after it, never between; an import and a sync take turns.

// OpenSync is a sync into the warehouse pool connects to (its search_path's
// first schema), creating the tables when missing. The pool stays the
// caller's: Close does not close it.
func OpenSync(ctx context.Context, pool *pgxpool.Pool, opt importer.SyncOptions) (importer.SyncTarget, error) {
	return openSync(ctx, pool, opt, nil)
}

func openSync(ctx context.Context, pool *pgxpool.Pool, opt importer.SyncOptions, release func()) (importer.SyncTarget, error) {
	if err := pool.Ping(ctx); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", Describe(pool.Config().ConnConfig), err)
	}
	return syncTarget(pool, Describe(pool.Config().ConnConfig), opt, release), nil
}

// SyncStates are the accounts' sync states (table sync_state), none when
// the warehouse was never synced or predates the table (schema version 3).
func (s *Source) SyncStates(ctx context.Context) (out []importer.SyncState, err error) {
	err = s.read(ctx, func(tx pgx.Tx) error {
		out, err = readSyncStates(ctx, tx)
		return err
	})
	return out, err
}

// syncTarget is a sync into the warehouse pool reaches, one transaction per
// chunk; release (nil: none) is what Close releases after refreshing the
// planner's statistics of the tables a sync writes (as an import does).
func syncTarget(pool *pgxpool.Pool, name string, opt importer.SyncOptions, release func()) *importer.StoreTarget {
	return &importer.StoreTarget{Warehouse: name, Options: opt,
		Run: func(ctx context.Context, write func(importer.Store) error) (err error) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return fmt.Errorf("postgres: sync into %s: %w", name, err)
			}
			defer func() {
				if rbErr := tx.Rollback(context.Background()); rbErr != nil && !errors.Is(rbErr, pgx.ErrTxClosed) && err != nil {
					err = errors.Join(err, rbErr)
				}
			}()
			if err := prepare(ctx, tx); err != nil {
				return err
			}
			if err := write(&importStore{tx: tx, target: name}); err != nil {
				return err
			}
			// Not cancelled from here: the chunk is whole, and a COMMIT cut
			// short would leave its outcome unknown to the caller.
			if err := tx.Commit(context.WithoutCancel(ctx)); err != nil {
				return fmt.Errorf("postgres: commit the chunk: %w", err)
			}
			return nil
		},
		ReadStates: func(ctx context.Context) ([]importer.SyncState, error) { return readSyncStates(ctx, pool) },
		Release: func() error {
			_, err := pool.Exec(context.Background(), `ANALYZE dataset, accounts, campaigns, adsets, ads, facts, reach, sync_state`)
			if release != nil {
				release()
			}
			if err != nil {
				return fmt.Errorf("postgres: analyze after the sync: %w", err)
			}
			return nil
		},
	}
}
