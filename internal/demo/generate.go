package demo

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// Label marks the data as synthetic wherever the dataset table is shown.
const Label = "adsmcp demo data (synthetic)"

// emitStructure sends the dataset description, accounts, campaigns, ad sets and ads.
func (p *plan) emitStructure(sink Sink) error {
	cfg := p.cfg
	meta := [][2]string{
		{"kind", "demo"},
		{"label", Label},
		{"generator_version", GeneratorVersion},
		{"anchor", cfg.Anchor.Format("2006-01-02")},
		{"seed", strconv.FormatUint(cfg.Seed, 10)},
		{"days", strconv.Itoa(cfg.Days)},
		{"scale", strconv.FormatFloat(cfg.Scale, 'g', -1, 64)},
		{"first_date", p.dates[0].Format("2006-01-02")},
		{"last_date", p.dates[len(p.dates)-1].Format("2006-01-02")},
	}
	for _, kv := range meta {
		if err := sink.Dataset(kv[0], kv[1]); err != nil {
			return err
		}
	}
	for _, a := range p.accounts {
		if err := sink.Account(a.spec.account()); err != nil {
			return err
		}
	}
	for _, a := range p.accounts {
		for _, c := range a.campaigns {
			if err := sink.Campaign(c.Campaign); err != nil {
				return err
			}
		}
	}
	for _, a := range p.accounts {
		for _, c := range a.campaigns {
			for _, s := range c.adsets {
				if err := sink.AdSet(s.AdSet); err != nil {
					return err
				}
			}
		}
	}
	for _, a := range p.accounts {
		for _, c := range a.campaigns {
			for _, s := range c.adsets {
				for _, ad := range s.ads {
					if err := sink.Ad(ad.Ad); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// accountJob is one account's facts in flight from its generating goroutine.
type accountJob struct {
	out   chan []Fact // closed when the account is done
	reach []reachRow  // set before out is closed
	err   error       // set before out is closed
}

// emitFactsAndReach generates accounts on up to GOMAXPROCS goroutines, taken in
// account order, while this goroutine hands their facts to the sink strictly in
// account order: the output is the same whatever the scheduling. Memory stays
// bounded because an account's goroutine blocks once its channel is full.
func (p *plan) emitFactsAndReach(ctx context.Context, sink Sink, progress func(int64, int64)) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()

	jobs := make([]*accountJob, len(p.accounts))
	for i := range jobs {
		jobs[i] = &accountJob{out: make(chan []Fact, 8)}
	}
	free := make(chan []Fact, 32)
	newBatch := func() []Fact {
		select {
		case b := <-free:
			return b[:0]
		default:
			return make([]Fact, 0, batchSize+batchSize/2)
		}
	}
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				j.reach, j.err = p.facts(ctx, p.accounts[i], func(b []Fact) error {
					select {
					case j.out <- b:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				}, newBatch)
				close(j.out)
			}
		})
	}

	var done int64
	for _, j := range jobs {
		for b := range j.out {
			if err := parent.Err(); err != nil {
				return err
			}
			for k := range b {
				if err := sink.Fact(&b[k]); err != nil {
					return err
				}
			}
			done += int64(len(b))
			if progress != nil {
				progress(done, max(done, p.estimate))
			}
			select {
			case free <- b:
			default:
			}
		}
		if j.err != nil {
			return j.err
		}
	}
	for i, j := range jobs {
		for _, r := range j.reach {
			if err := sink.Reach(p.reachOf(p.accounts[i], r)); err != nil {
				return err
			}
		}
		j.reach = nil
	}
	return nil
}
