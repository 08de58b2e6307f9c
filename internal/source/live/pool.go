package live

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source"
)

// Connector is one ad platform's API, as adsmcp needs it. It only maps a
// Plan onto its platform's API: the live source computes the plan, runs the
// accounts on a worker pool of the connector's size, keeps each account's
// rows apart until the account has answered completely, and collects the
// failures. A new platform is a connector package, its fake, a line in
// plugins.go and a row in the catalog's platform table (docs/developing.md).
type Connector interface {
	// Platform is the catalog's platform name: meta_ads, google_ads, tiktok_ads.
	Platform() string
	// Accounts lists the accounts the credentials can read.
	Accounts(ctx context.Context) ([]ads.Account, error)
	// Compile maps p onto the platform's requests, once per fetch. A shape
	// the platform cannot report is an error (a *query.Error saying what to
	// ask instead). A nil AccountFetch with no error: nothing to fetch (reach
	// on a platform without it).
	Compile(p *Plan) (AccountFetch, error)
	// Workers is how many accounts are fetched at once.
	Workers() int
}

// AccountFetch adds to b the rows of one account (see Batch): facts at the
// plan's grain or finer, the names of campaigns, ad sets and ads, and the
// plan's reach. Requests count themselves with source.CountCall(ctx). It
// returns nil, ctx's error, or a *source.AccountError saying why the account
// could not be read; it works within ctx's deadline. b is the account's own:
// the source adds it to the fetch's rows only when it returns nil.
type AccountFetch func(ctx context.Context, a ads.Account, b *Batch) error

// fetchAccounts runs fetch for every account on at most workers goroutines
// and adds each account's rows to b once it answered. Accounts that fail fail
// together in a *source.AccountsError; when ctx ends, it returns ctx's error;
// an error that is not about an account is returned as it is.
func fetchAccounts(ctx context.Context, platform string, workers int, fetch AccountFetch, accounts []ads.Account, b *Batch) error {
	jobs := make(chan ads.Account)
	var (
		mu     sync.Mutex
		failed []*source.AccountError
		other  []error
		wg     sync.WaitGroup
	)
	for range max(1, min(workers, len(accounts))) {
		wg.Go(func() {
			for a := range jobs {
				own := newBatch()
				err := fetch(ctx, a, own)
				if err == nil {
					b.merge(own)
					continue
				}
				if ctx.Err() != nil {
					continue
				}
				mu.Lock()
				var ae *source.AccountError
				if errors.As(err, &ae) {
					failed = append(failed, ae)
				} else {
					other = append(other, fmt.Errorf("%s account %s: %w", platform, a.AccountID, err))
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, a := range accounts {
		select {
		case jobs <- a:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(other) > 0 {
		return errors.Join(other...)
	}
	if len(failed) > 0 {
		return &source.AccountsError{Failed: failed, Succeeded: succeeded(accounts, failed)}
	}
	return nil
}
