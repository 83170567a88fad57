package bench

import "github.com/najdi/najdi/engine"

// setQueryCache turns the engine's cache of query vectors on (the default
// size) or off.
func setQueryCache(o *engine.Options, on bool) {
	if !on {
		o.QueryCacheSize = -1
	}
}
