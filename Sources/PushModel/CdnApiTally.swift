import InfraModel

/// The CDN API calls split by the campaign that made them: each campaign's warm calls (before its
/// sends, and the re-warm after a swap) and its creative-swap purge. Kept only with
/// `infra.cdnApi` (`enabled`); a few arrays indexed by campaign, touched once per API call,
/// never per event or per device (0 bytes per device).
struct CdnApiTally {
    let enabled: Bool
    /// Each campaign's share of the run's `CdnApiCounters` (the maxima its own calls' longest).
    var counters: [CdnApiCounters] = []
    /// Each campaign's latest purge / warm relative to its send, ticks: the largest (last effect
    /// − the send the call is for) over its calls (nil before any).
    var purgeAfterSendTicks: [Int64?] = []
    var warmAfterSendTicks: [Int64?] = []

    init(campaigns: Int = 0, enabled: Bool = false) {
        self.enabled = enabled
        guard enabled else { return }
        counters = [CdnApiCounters](repeating: CdnApiCounters(), count: campaigns)
        purgeAfterSendTicks = [Int64?](repeating: nil, count: campaigns)
        warmAfterSendTicks = purgeAfterSendTicks
    }

    /// Campaign `c`'s call moved the run's counters from `before` to `after`; its last cache's
    /// effect came `completeTicks` after the call at `callTicks`, for the send at `sendTicks`.
    mutating func note(campaign c: Int, before: CdnApiCounters, after: CdnApiCounters, isPurge: Bool,
                       callTicks: Int64, completeTicks: Int64, sendTicks: Int64) {
        var t = counters[c]
        t.purgeCalls += after.purgeCalls - before.purgeCalls
        t.purgeRequests += after.purgeRequests - before.purgeRequests
        t.purgeItems += after.purgeItems - before.purgeItems
        t.warmCalls += after.warmCalls - before.warmCalls
        t.warmItems += after.warmItems - before.warmItems
        t.warmRequests += after.warmRequests - before.warmRequests
        t.failures += after.failures - before.failures
        t.retries += after.retries - before.retries
        t.batchesAbandoned += after.batchesAbandoned - before.batchesAbandoned
        let late = callTicks + completeTicks - sendTicks
        if isPurge {
            t.purgeCompleteTicksMax = max(t.purgeCompleteTicksMax, completeTicks)
            purgeAfterSendTicks[c] = max(purgeAfterSendTicks[c] ?? .min, late)
        } else {
            t.warmCompleteTicksMax = max(t.warmCompleteTicksMax, completeTicks)
            warmAfterSendTicks[c] = max(warmAfterSendTicks[c] ?? .min, late)
        }
        counters[c] = t
    }

    /// The latest over every campaign (nil before any call).
    static func latest(_ ticks: [Int64?]) -> Int64? { ticks.compactMap { $0 }.max() }
}
