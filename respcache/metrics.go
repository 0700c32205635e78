package respcache

import "github.com/prometheus/client_golang/prometheus"

// Stats are the cache's counters since start.
type Stats struct {
	Hits, Misses, Invalidations, Evictions uint64
	// Unchecked counts requests answered uncached because their versions
	// could not be read.
	Unchecked uint64
	Bytes     uint64
}

// Stats returns the counters (zero for a nil cache).
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	return Stats{
		Hits: c.stats.hits.Load(), Misses: c.stats.misses.Load(), Invalidations: c.stats.invalidations.Load(),
		Evictions: c.stats.evictions.Load(), Unchecked: c.stats.unchecked.Load(), Bytes: c.tenants.WeightedSize(),
	}
}

// TenantBytes is what tenant's answers weigh (tests: the share holds).
func (c *Cache) TenantBytes(tenant [16]byte) uint64 {
	if tc, ok := c.tenants.GetIfPresent(tenant); ok {
		return tc.answers.WeightedSize()
	}
	return 0
}

// Share is the bytes one tenant's answers may take.
func (c *Cache) Share() int64 { return c.share }

// Collector exposes the counters to Prometheus (no tenant label).
func (c *Cache) Collector() prometheus.Collector { return collector{c} }

type collector struct{ c *Cache }

var (
	descHits          = prometheus.NewDesc("haulgraph_response_cache_hits_total", "Answers served from the response cache.", nil, nil)
	descMisses        = prometheus.NewDesc("haulgraph_response_cache_misses_total", "Cacheable requests whose answer was not in memory (concurrent ones of one key are computed once).", nil, nil)
	descInvalidations = prometheus.NewDesc("haulgraph_response_cache_invalidations_total", "Answers dropped because their data changed.", nil, nil)
	descEvictions     = prometheus.NewDesc("haulgraph_response_cache_evictions_total", "Answers evicted by the size bounds.", nil, nil)
	descUnchecked     = prometheus.NewDesc("haulgraph_response_cache_unchecked_total", "Cacheable requests answered uncached because freshness could not be checked.", nil, nil)
	descBytes         = prometheus.NewDesc("haulgraph_response_cache_bytes", "Bytes the response cache holds.", nil, nil)
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descHits, descMisses, descInvalidations, descEvictions, descUnchecked, descBytes} {
		ch <- d
	}
}

func (k collector) Collect(ch chan<- prometheus.Metric) {
	s := k.c.Stats()
	ch <- prometheus.MustNewConstMetric(descHits, prometheus.CounterValue, float64(s.Hits))
	ch <- prometheus.MustNewConstMetric(descMisses, prometheus.CounterValue, float64(s.Misses))
	ch <- prometheus.MustNewConstMetric(descInvalidations, prometheus.CounterValue, float64(s.Invalidations))
	ch <- prometheus.MustNewConstMetric(descEvictions, prometheus.CounterValue, float64(s.Evictions))
	ch <- prometheus.MustNewConstMetric(descUnchecked, prometheus.CounterValue, float64(s.Unchecked))
	ch <- prometheus.MustNewConstMetric(descBytes, prometheus.GaugeValue, float64(s.Bytes))
}
