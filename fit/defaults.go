package fit

import "sync"

// sharedCounter is the default token counter, created once: the o200k_base
// encoder takes tens of milliseconds to load and is safe for concurrent use.
var sharedCounter = sync.OnceValue(func() *O200k { return NewO200k() })

func defaultCounter() TokenCounter { return sharedCounter() }
