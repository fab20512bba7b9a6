import Stochastic

// A CDN's purge and warm APIs as profiles: rate limits, batch sizes, propagation, failures and
// retries. Absent (`InfraConfig.cdnApi == nil`), warm and purge are the free calls of
// `WarmAndPurge.swift`.

/// The CDN whose published API limits a profile carries.
package enum CdnApiProfile: String, Sendable, CaseIterable {
    case akamai
    case cloudflareEnterprise
    /// Cloudflare below Enterprise (the Business plan's limits): no prefetch.
    case cloudflare
    case fastly
    case cloudfront
    /// No limits: purge by key, warm by API, neither paced (judgement: the free calls' figures).
    case generic
}

/// What one purge item names.
package enum CdnPurgeUnit: String, Sendable, CaseIterable {
    /// One item per URL: a purge of a surrogate key lists every object tagged with it.
    case url
    /// One item per surrogate key (cache tag).
    case key
}

/// How the purge item limit (`purgeItemsPerSecond`) paces a purge call's requests.
package enum CdnItemPacing: String, Sendable, CaseIterable {
    /// A token bucket of `purgeItemsBurst` items, full at the start, refilled at the rate (Akamai).
    case tokenBucket
    /// A moving average: a request is accepted once the items since the call began, its own
    /// included, average at most the rate (so request k of n items at k × n / rate after the call);
    /// `purgeItemsBurst` is unused. Calls overlapping in time share one average (the account's).
    case movingAverage
}

/// How a warm reaches the caches.
package enum CdnWarmMethod: String, Sendable, CaseIterable {
    /// A prefetch API: batches of URLs, each reaching every targeted cache after a propagation draw.
    case api
    /// No warm API: the campaign service sends ordinary requests to each targeted cache (a PoP, or
    /// a shield), paced at `warmRequestsPerSecond`; each is a lookup that fetches on a miss.
    case requests
}

/// A CDN's purge and warm APIs (`infra.cdnApi`). Every field starts at its profile's value.
package struct CdnApiConfig: Sendable, Equatable {
    package var profile: CdnApiProfile
    // Purge
    package var purgeBy: CdnPurgeUnit
    /// API requests per second (token bucket refill) and the bucket's size.
    package var purgeRequestsPerSecond: Double
    package var purgeRequestBurst: Int
    /// Items (URLs or keys) per API request: the batch size.
    package var purgeItemsPerRequest: Int
    /// Items per second (token bucket refill, or the moving average's bound) and the bucket's
    /// size (at least one batch; unused by a moving average).
    package var purgeItemsPerSecond: Double
    package var purgeItemsBurst: Int
    /// How `purgeItemsPerSecond` paces the requests.
    package var purgeItemsPacing: CdnItemPacing
    /// Items whose purge may be in progress at once (0: no such limit). A batch is in progress
    /// until it has reached every cache.
    package var purgeItemsInProgressMax: Int
    /// A batch reaches each PoP/shield this long after the API accepted it.
    package var purgePropagationSeconds: Distribution
    // Warm
    package var warmMethod: CdnWarmMethod
    /// `api`: API requests per second; `requests`: lookups per second the campaign service sends.
    package var warmRequestsPerSecond: Double
    /// `api`: URLs per API request.
    package var warmItemsPerRequest: Int
    /// `api`: a batch reaches each targeted cache this long after the API accepted it.
    package var warmPropagationSeconds: Distribution
    // Failures
    /// Probability that one API request (purge or warm batch) fails and is retried.
    package var failureProbability: Double
    /// The n-th retry waits base × 2^(n−1) × a jitter factor uniform in [0.5, 1).
    package var retryBaseSeconds: Double
    /// Attempts per batch including the first; a batch failing them all is abandoned.
    package var attemptsMax: Int

    /// Limits on the fields (the scenario reader checks them).
    package static let ratePerSecondMax = 1e7
    package static let batchMax = 100_000
    package static let burstMax = 10_000_000
    package static let attemptsLimit = 20

    package init(profile: CdnApiProfile = .generic) {
        self = CdnApiConfig.standard(profile)
    }

    private init(profile: CdnApiProfile, purgeBy: CdnPurgeUnit, requestsPerSecond: Double, requestBurst: Int,
                 itemsPerRequest: Int, itemsPerSecond: Double, itemsBurst: Int, itemsPacing: CdnItemPacing = .tokenBucket, inProgressMax: Int = 0,
                 propagation: Distribution, warm: CdnWarmMethod, warmRate: Double, warmItems: Int = 500,
                 warmPropagation: Distribution = .uniform(lower: 0.5, upper: 5), failure: Double = 0.001,
                 retryBase: Double = 1, attempts: Int = 5) {
        self.profile = profile
        self.purgeBy = purgeBy
        purgeRequestsPerSecond = requestsPerSecond
        purgeRequestBurst = requestBurst
        purgeItemsPerRequest = itemsPerRequest
        purgeItemsPerSecond = itemsPerSecond
        purgeItemsBurst = itemsBurst
        purgeItemsPacing = itemsPacing
        purgeItemsInProgressMax = inProgressMax
        purgePropagationSeconds = propagation
        warmMethod = warm
        warmRequestsPerSecond = warmRate
        warmItemsPerRequest = warmItems
        warmPropagationSeconds = warmPropagation
        failureProbability = failure
        retryBaseSeconds = retryBase
        attemptsMax = attempts
    }

    /// The profile's published figures; where none is published the value is judgement.
    /// - Akamai Fast Purge (techdocs.akamai.com/purge-cache/reference/rate-limiting): 50 requests/s,
    ///   bucket 100; 200 URLs/s (12 000/min), bucket 10 000, buckets start full; removal within about
    ///   5 s (uniform 1–5 s: judgement around it); a 429 says "wait five seconds" (retry base 5 s).
    ///   URLs per request: the 50 KB body limit at ~100 bytes a URL, 500 (judgement). No warm API:
    ///   requests at 100/s (judgement).
    /// - Cloudflare Enterprise (developers.cloudflare.com/cache/how-to/purge-cache): 50 requests/s,
    ///   bucket 500; 3 000 URLs/s, "calculated using a moving average" (the page's words): the URLs
    ///   since the call began, each request's included, average at most 3 000/s, so 15 000 URLs'
    ///   30th request is accepted at 5 s (the window, the call's start: judgement); 500 URLs per request; Instant Purge under 150 ms (lognormal, median 100 ms, σ 0.5:
    ///   judgement). Prefetch is Enterprise-only: a warm API at 50 requests/s of 500 URLs (judgement).
    /// - Cloudflare Business (same page): 10 requests/s, bucket 50; 1 500 URLs/s; 100 URLs per
    ///   request; no prefetch.
    /// - Fastly (Fastly API, bulk purge: up to 256 surrogate keys per request; Instant Purge about
    ///   150 ms, lognormal median 150 ms σ 0.3: judgement): purges are not rate-limited in the
    ///   published API limits, so 100 requests/s, bucket 100, items unbounded (judgement). No
    ///   pre-warm API.
    /// - CloudFront (docs.aws.amazon.com, InvalidationLimits): up to 3 000 file paths in progress per
    ///   distribution; one invalidation may hold them all; invalidations take 60–300 s (uniform: a
    ///   measurement reported by practitioners; AWS's older guide said 10–15 min); 1 request/s
    ///   (judgement). No warm API.
    /// - generic: no limits, purge by key in 150 ms, free warm API over 0.5–5 s (the free calls'
    ///   defaults), no failures.
    /// Failures: 0.1 % of requests, retried after 1 s doubling, 5 attempts (judgement) for all
    /// but `generic`.
    package static func standard(_ p: CdnApiProfile) -> CdnApiConfig {
        switch p {
        case .akamai:
            return CdnApiConfig(profile: p, purgeBy: .url, requestsPerSecond: 50, requestBurst: 100, itemsPerRequest: 500,
                                itemsPerSecond: 200, itemsBurst: 10_000, propagation: .uniform(lower: 1, upper: 5),
                                warm: .requests, warmRate: 100, retryBase: 5)
        case .cloudflareEnterprise:
            return CdnApiConfig(profile: p, purgeBy: .url, requestsPerSecond: 50, requestBurst: 500, itemsPerRequest: 500,
                                itemsPerSecond: 3_000, itemsBurst: 500, itemsPacing: .movingAverage, propagation: lognormalMedian(0.100, sigma: 0.5),
                                warm: .api, warmRate: 50)
        case .cloudflare:
            return CdnApiConfig(profile: p, purgeBy: .url, requestsPerSecond: 10, requestBurst: 50, itemsPerRequest: 100,
                                itemsPerSecond: 1_500, itemsBurst: 100, propagation: lognormalMedian(0.100, sigma: 0.5),
                                warm: .requests, warmRate: 100)
        case .fastly:
            return CdnApiConfig(profile: p, purgeBy: .key, requestsPerSecond: 100, requestBurst: 100, itemsPerRequest: 256,
                                itemsPerSecond: ratePerSecondMax, itemsBurst: burstMax, propagation: lognormalMedian(0.150, sigma: 0.3),
                                warm: .requests, warmRate: 100)
        case .cloudfront:
            return CdnApiConfig(profile: p, purgeBy: .url, requestsPerSecond: 1, requestBurst: 1, itemsPerRequest: 3_000,
                                itemsPerSecond: ratePerSecondMax, itemsBurst: burstMax, inProgressMax: 3_000,
                                propagation: .uniform(lower: 60, upper: 300), warm: .requests, warmRate: 100)
        case .generic:
            return CdnApiConfig(profile: p, purgeBy: .key, requestsPerSecond: ratePerSecondMax, requestBurst: burstMax,
                                itemsPerRequest: batchMax, itemsPerSecond: ratePerSecondMax, itemsBurst: burstMax,
                                propagation: .constant(value: 0.150), warm: .api, warmRate: ratePerSecondMax,
                                warmItems: batchMax, failure: 0)
        }
    }
}
