import Foundation
import InfraModel
import Stochastic

/// The published CDN API limits (`infra.cdnApi`) a scenario's plan would exceed or that will bind,
/// as warnings for `prestage validate`, computed from the configuration alone: each campaign's
/// creative-swap purge (the URLs tagged with its key, or its one key; one per wave) and each of
/// its warm calls (one per wave, and the re-warm after each swap: its objects into its targeted
/// caches). Each call
/// is bounded on its own, from full buckets; the warm calls are also swept in time order over the
/// one warm pace they share. Purge calls close together also share the buckets, which only the
/// run counts (`cdnApi.*`).
extension PushWorldConfig {
    /// One line per limit that binds or is exceeded, in campaign order (purge, then warm), then
    /// the warms queued late behind others; empty without `infra.cdnApi` or when nothing binds.
    package func cdnApiLimitWarnings() -> [String] {
        guard let api = infra.cdnApi, let plans = try? CampaignPlans(campaigns: campaigns, hlsSegmentsToPreStage: preloadPolicy.hlsSegmentsToPreStage)
        else { return [] }
        var keyObjects = [Int](repeating: 0, count: plans.catalog.surrogateKeyCount)
        for k in plans.catalog.surrogateKey where Int(k) < keyObjects.count { keyObjects[Int(k)] += 1 }
        var warnings: [String] = []
        var shared: [CdnApiConfig.WarmCall] = []
        for (c, campaign) in campaigns.enumerated() {
            let timing = campaign.timing
            // One swap per wave, the same purge each time: bounded once, at its shortest lead.
            let swaps = CalendarRules.swapCallSeconds(self, campaign: c).filter { $0.call < horizonSeconds }
            if let lead = swaps.map({ $0.send - $0.call }).min() {
                let items = api.purgeBy == .url ? max(1, c < keyObjects.count ? keyObjects[c] : 0) : 1
                warnings += api.purgeWarnings(campaign: campaign.name, items: items, secondsBeforeSend: lead)
            }
            guard timing.warms else { continue }
            let targets = warmTargetCount(campaign.warm)
            let objects = plans.warmObjects[c].count
            // The warm calls and the sends they are for: one before each wave, and each swap's re-warm.
            var calls: [(at: Double, send: Double)] = warmCallSeconds(c).map { ($0.call, $0.send) }
            for swap in swaps { calls.append((swap.call + timing.rewarmDelaySeconds, swap.send)) }
            calls = calls.filter { $0.at < horizonSeconds }
            if let line = api.warmWarning(campaign: campaign.name, objects: objects, targets: targets, target: campaign.warm.mode, calls: calls) {
                warnings.append(line)
            }
            let requests = api.warmMethod == .requests ? objects * targets : (objects + api.warmItemsPerRequest - 1) / api.warmItemsPerRequest
            shared += calls.map { CdnApiConfig.WarmCall(campaign: campaign.name, at: $0.at, send: $0.send, requests: requests) }
        }
        return warnings + api.sharedWarmWarnings(shared)
    }

    /// The caches one warm call of `warm` targets.
    func warmTargetCount(_ warm: WarmConfig) -> Int {
        switch warm.mode {
        case .none: return 0
        case .allPops: return infra.topology.popCount
        case .topPops: return max(0, min(warm.topPops, infra.topology.popCount))
        case .shieldsOnly: return infra.topology.shieldCount
        }
    }

    /// Campaign `c`'s warm calls before its sends, seconds, and the send each is for: one
    /// `warm.aheadSeconds` before each calendar wave (not before 0), else the one before
    /// `sendStartSeconds` (as `PushWorld.warmCallTicks`).
    func warmCallSeconds(_ c: Int) -> [(call: Double, send: Double)] {
        let campaign = campaigns[c]
        guard campaign.sendAtLocalSeconds != nil else { return [(campaign.timing.warmSeconds, campaign.timing.sendStartSeconds)] }
        return CalendarRules.plannedWaves(self, campaign: c).map { (max(0, $0.startSeconds - campaign.warm.aheadSeconds), $0.startSeconds) }
    }
}

extension CdnApiConfig {
    /// What one purge call of `items` costs from full buckets, seconds after the call: the
    /// earliest its last request can be accepted (the request bucket: requests beyond its burst at
    /// `purgeRequestsPerSecond`; the item bucket: items beyond its size at `purgeItemsPerSecond`;
    /// a moving average: every item at `purgeItemsPerSecond`, the last request's included),
    /// the item budget it spends (`items / purgeItemsPerSecond`) and the earliest it can have reached
    /// every cache (the last acceptance plus the least propagation; with an in-progress limit
    /// below `items`, each item is in progress for at least the least propagation, so the call
    /// lasts ≥ items × that / limit).
    package func purgeBounds(items: Int) -> (requests: Int, lastAcceptedSeconds: Double, budgetSeconds: Double, completeSeconds: Double) {
        let requests = (items + purgeItemsPerRequest - 1) / purgeItemsPerRequest
        let itemBucket = Double(Swift.max(purgeItemsBurst, purgeItemsPerRequest))
        let byItems = purgeItemsPacing == .movingAverage ? Double(items) / purgeItemsPerSecond
            : Swift.max(0, (Double(items) - itemBucket) / purgeItemsPerSecond)
        let byRequests = Swift.max(0, Double(requests - purgeRequestBurst) / purgeRequestsPerSecond)
        let last = Swift.max(byItems, byRequests)
        let propagation = Swift.max(0, purgePropagationSeconds.supportLowerBound)
        var complete = last + propagation
        if purgeItemsInProgressMax > 0 && items > purgeItemsInProgressMax {
            complete = Swift.max(complete, Double(items) * propagation / Double(purgeItemsInProgressMax))
        }
        return (requests, last, Double(items) / purgeItemsPerSecond, complete)
    }

    /// "URLs" or "keys".
    var itemNoun: String { purgeBy == .url ? "URLs" : "keys" }

    /// "1 URL", "15 000 URLs".
    static func counted(_ n: Int, _ singular: String) -> String {
        PushWorldConfig.count(Double(n)) + " " + singular + (n == 1 ? "" : "s")
    }

    /// "3 000 URLs/s (180 000/min) as a moving average, 50 requests/s, 500 URLs per request".
    package var purgeLimitsText: String {
        let perSecond = purgeItemsPerSecond >= CdnApiConfig.ratePerSecondMax ? "no \(purgeBy == .url ? "URL" : "key") rate limit"
            : "\(PushWorldConfig.count(purgeItemsPerSecond)) \(itemNoun)/s (\(PushWorldConfig.count(purgeItemsPerSecond * 60))/min)"
                + (purgeItemsPacing == .movingAverage ? " as a moving average" : "")
        let requests = "\(PushWorldConfig.count(purgeRequestsPerSecond)) request\(purgeRequestsPerSecond == 1 ? "" : "s")/s"
        return "\(perSecond), \(requests), \(PushWorldConfig.count(Double(purgeItemsPerRequest))) \(itemNoun) per request"
    }

    /// "a prefetch API (500 URLs per request, 50 requests/s)", "no warm API: lookups at 100/s".
    package var warmLimitsText: String {
        warmMethod == .api
            ? "a prefetch API (\(PushWorldConfig.count(Double(warmItemsPerRequest))) URLs per request, \(PushWorldConfig.count(warmRequestsPerSecond)) requests/s)"
            : "no warm API, the campaign service's lookups at \(PushWorldConfig.count(warmRequestsPerSecond))/s"
    }

    /// The purge call's warnings: pacing that binds (a call of more than one request whose last
    /// waits; one request of a moving average waits only its own items' share, which the
    /// lead-time lines still weigh), the in-progress limit exceeded, and a purge that cannot reach
    /// every cache before the send.
    func purgeWarnings(campaign: String, items: Int, secondsBeforeSend lead: Double) -> [String] {
        let b = purgeBounds(items: items)
        let propagation = purgePropagationSeconds.supportBounds
        let what = "campaign \(campaign)'s creative-swap purge of \(CdnApiConfig.counted(items, purgeBy == .url ? "URL" : "key")) on \(profile.rawValue)"
        var out: [String] = []
        if b.requests > 1 && b.lastAcceptedSeconds > 0 {
            out.append("warning: \(what) (\(purgeLimitsText)) takes ≥ \(CdnApiConfig.seconds(b.completeSeconds)) s: its last of "
                       + "\(CdnApiConfig.counted(b.requests, "request")) is accepted ≥ \(CdnApiConfig.seconds(b.lastAcceptedSeconds)) s after the call "
                       + "and the call spends \(CdnApiConfig.seconds(b.budgetSeconds)) s of the \(purgeBy == .url ? "URL" : "key") budget.")
        }
        if purgeItemsInProgressMax > 0 && items > purgeItemsInProgressMax {
            let waves = (items + purgeItemsInProgressMax - 1) / purgeItemsInProgressMax
            out.append("warning: \(what) exceeds its \(PushWorldConfig.count(Double(purgeItemsInProgressMax))) \(itemNoun) in progress at once: "
                       + "it runs as ≥ \(waves) invalidations one after the other (each \(CdnApiConfig.range(propagation))), ≥ \(CdnApiConfig.seconds(b.completeSeconds)) s.")
        }
        if b.completeSeconds > lead {
            out.append("warning: \(what) reaches every cache ≥ \(CdnApiConfig.seconds(b.completeSeconds)) s after the call "
                       + "(propagation \(CdnApiConfig.range(propagation))), but the swap is \(CdnApiConfig.seconds(lead)) s before the send: "
                       + "the send starts ≥ \(CdnApiConfig.seconds(b.completeSeconds - lead)) s before the old creative is gone (creative.stalePrestages).")
        } else if (b.lastAcceptedSeconds + propagation.upper).isFinite && b.lastAcceptedSeconds + propagation.upper > lead {
            out.append("warning: \(what) may reach the last cache after the send: propagation \(CdnApiConfig.range(propagation)) "
                       + "against a swap \(CdnApiConfig.seconds(lead)) s before the send (creative.stalePrestages).")
        }
        return out
    }

    /// The warm calls' warning: on a CDN without a warm API, the lookups the campaign service
    /// sends; with one, its batches when they take more than one request. Either way the calls
    /// that end after the send they are for. Nil when no limit binds.
    func warmWarning(campaign: String, objects: Int, targets: Int, target: WarmModeConfig, calls: [(at: Double, send: Double)]) -> String? {
        guard objects > 0, targets > 0, !calls.isEmpty else { return nil }
        let rate = PushWorldConfig.count(warmRequestsPerSecond)
        let last: Double, text: String
        switch warmMethod {
        case .requests:
            let lookups = objects * targets
            last = Double(lookups - 1) / warmRequestsPerSecond
            let through = target == .shieldsOnly ? "through the \(targets) shield\(targets == 1 ? "" : "s")" : "to each of \(targets) PoPs"
            text = "warning: \(profile.rawValue) has no pre-warm API: campaign \(campaign)'s warm is requests \(through) "
                + "(\(CdnApiConfig.counted(lookups, "lookup")) per warm call: \(targets) caches × \(CdnApiConfig.counted(objects, "object")), at \(rate)/s), "
                + "the last sent ≥ \(CdnApiConfig.seconds(last)) s after the call"
        case .api:
            let requests = (objects + warmItemsPerRequest - 1) / warmItemsPerRequest
            guard requests > 1 else { return lateText(campaign: campaign, lastSeconds: warmPropagationSeconds.supportLowerBound, calls: calls).map { "warning: " + $0 } }
            last = Double(requests - 1) / warmRequestsPerSecond
            text = "warning: campaign \(campaign)'s warm of \(CdnApiConfig.counted(objects, "URL")) on \(profile.rawValue)'s prefetch API "
                + "(\(PushWorldConfig.count(Double(warmItemsPerRequest))) URLs per request, \(rate) requests/s) is \(CdnApiConfig.counted(requests, "request")) per warm call, "
                + "the last accepted ≥ \(CdnApiConfig.seconds(last)) s after the call"
        }
        let arrive = last + (warmMethod == .api ? Swift.max(0, warmPropagationSeconds.supportLowerBound) : 0)
        let callCount = calls.count > 1 ? " (\(calls.count) warm calls)" : ""
        return text + callCount + "." + (lateText(campaign: campaign, lastSeconds: arrive, calls: calls).map { " " + $0 } ?? "")
    }

    /// One warm call of the plan: its campaign, instant, the send it is for and its requests
    /// (API batches, or lookups without a warm API).
    struct WarmCall {
        let campaign: String
        let at: Double
        let send: Double
        let requests: Int
    }

    /// The warm calls that end after their send only because they wait behind earlier calls on
    /// the one warm pace (`warmRequestsPerSecond`, shared by every campaign; the API serves calls
    /// in the order made): the pace swept over the calls in time order (ties in campaign order),
    /// each request 1 / rate after the one before. One line per campaign, its latest call.
    func sharedWarmWarnings(_ calls: [WarmCall]) -> [String] {
        let ordered = calls.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        let gap = 1 / warmRequestsPerSecond
        let propagation = warmMethod == .api ? Swift.max(0, warmPropagationSeconds.supportLowerBound) : 0
        var free = -Double.infinity
        var worst: [String: (call: WarmCall, wait: Double, late: Double)] = [:]
        var order: [String] = []
        for call in ordered where call.requests > 0 {
            let start = Swift.max(call.at, free)
            let last = start + Double(call.requests - 1) * gap
            free = last + gap
            let late = last + propagation - call.send
            guard start > call.at + 1e-9, call.at <= call.send, late > 0, late > (worst[call.campaign]?.late ?? 0) else { continue }
            // Late on its own already (warmWarning says so): only the wait behind others is news.
            guard call.at + Double(call.requests - 1) * gap + propagation <= call.send else { continue }
            if worst[call.campaign] == nil { order.append(call.campaign) }
            worst[call.campaign] = (call, start - call.at, late)
        }
        return order.compactMap { name in
            worst[name].map { w in
                "warning: campaign \(name)'s warm called at t = \(CdnApiConfig.seconds(w.call.at)) s waits ≥ \(CdnApiConfig.seconds(w.wait)) s behind "
                    + "earlier warm calls on \(profile.rawValue)'s one warm pace (\(PushWorldConfig.count(warmRequestsPerSecond))/s, shared by every campaign): "
                    + "it ends ≥ \(CdnApiConfig.seconds(w.late)) s after its send."
            }
        }
    }

    /// "…'s warm called 3 s before its send ends ≥ 2.6 s after it." for the calls whose last warm
    /// request reaches its cache (`lastSeconds` after the call) after the send; nil when none does.
    func lateText(campaign: String, lastSeconds: Double, calls: [(at: Double, send: Double)]) -> String? {
        guard let worst = calls.filter({ $0.at <= $0.send }).max(by: { ($0.at + lastSeconds - $0.send) < ($1.at + lastSeconds - $1.send) }),
              worst.at + lastSeconds > worst.send else { return nil }
        return "campaign \(campaign)'s warm called \(CdnApiConfig.seconds(worst.send - worst.at)) s before its send ends ≥ "
            + "\(CdnApiConfig.seconds(worst.at + lastSeconds - worst.send)) s after it."
    }

    /// Seconds for a warning: two decimals below 10, one below 1 000, whole above.
    static func seconds(_ x: Double) -> String {
        x < 10 ? String(format: "%.2f", x) : x < 1_000 ? String(format: "%.1f", x) : PushWorldConfig.count(x)
    }

    /// "60–300 s", "≥ 0 s" (unbounded above), "0.15 s" (constant).
    static func range(_ r: (lower: Double, upper: Double)) -> String {
        if r.lower == r.upper { return seconds(r.lower) + " s" }
        return r.upper.isFinite ? seconds(r.lower) + "–" + seconds(r.upper) + " s" : "≥ " + seconds(Swift.max(0, r.lower)) + " s"
    }
}
