import Foundation
import PushModel
import ScenarioFormat

/// A law of the model that a replication's results broke.
package struct SwarmViolation: Sendable, Equatable, CustomStringConvertible {
    /// The law, e.g. `outcomes partition pushes`.
    package var law: String
    /// The values that break it.
    package var values: String
    /// Replication index, or nil for a law over the whole run.
    package var replication: Int?

    package var description: String {
        (replication.map { "replication \($0): " } ?? "") + law + ": " + values
    }
}

/// The conservation laws every replication's results must satisfy, whatever the world. Each is
/// an identity or a bound the counters' definitions imply (ReplicationResult, InfraModel's
/// `NodeCounters`); none depends on the values a world happens to produce.
enum SwarmLaws {
    /// Facts of the world that decide which conditional laws apply.
    struct WorldFacts {
        /// `infra.tiers.tieringEnabled`.
        var tiering: Bool
        /// Some campaign has `staleWhileRevalidateSeconds > 0` (nodes then revalidate in the
        /// background: upstream fetches that are not misses).
        var backgroundRevalidation: Bool
        /// The largest body any tier can send: assets, variants, the placeholder.
        var largestObjectBytes: UInt64

        init(_ world: PushWorldConfig) {
            tiering = world.infra.tiers.tieringEnabled
            backgroundRevalidation = world.campaigns.contains { $0.cacheControl.staleWhileRevalidateSeconds > 0 }
            var largest = world.infra.placeholder.placeholderBytes
            for c in world.campaigns {
                for a in c.assets {
                    largest = max(largest, a.bytes)
                    for v in a.variants { largest = max(largest, v.bytes) }
                }
            }
            largestObjectBytes = UInt64(max(largest, world.infra.tiers.notModifiedBytes))
        }
    }

    /// Every law on replication result `r`.
    static func check(_ r: ReplicationResult, facts: WorldFacts) -> [SwarmViolation] {
        var out: [SwarmViolation] = []
        func law(_ holds: Bool, _ name: String, _ values: @autoclosure () -> String) {
            if !holds { out.append(SwarmViolation(law: name, values: values(), replication: r.replication)) }
        }
        let o = r.outcomes
        // Pushes: every targeted push in exactly one outcome.
        law(o.total == r.pushesTargeted, "outcome counts sum to pushes targeted", "outcomes \(o.total), targeted \(r.pushesTargeted)")
        law(r.metric(.pushesTargeted) == Double(r.pushesTargeted), "pushes.targeted metric = pushes targeted",
            "metric \(r.metric(.pushesTargeted).map { "\($0)" } ?? "absent"), count \(r.pushesTargeted)")
        let sent = r.series.pushesSent.totalCount
        law(sent <= r.pushesTargeted, "pushes sent ≤ pushes targeted", "sent \(sent), targeted \(r.pushesTargeted)")
        law(o.notDelivered + sent >= r.pushesTargeted, "a push not sent is not delivered",
            "sent \(sent) + notDelivered \(o.notDelivered) < targeted \(r.pushesTargeted)")
        // A fallback job (`fallbackOnHandlerDeadline`) is a second handler run of a push already delivered.
        let deliveries = r.series.deliveries.totalCount, fallbacks = UInt64(r.metric(.fallbackEnqueued) ?? 0)
        law(deliveries <= sent + fallbacks, "deliveries ≤ pushes sent + fallback jobs",
            "deliveries \(deliveries), sent \(sent), fallback jobs \(fallbacks)")
        // Taps: one per shown notification at most, then a paint, a failure or still loading.
        let taps = r.series.taps.totalCount, paints = r.series.paints.totalCount
        law(taps <= sent, "taps ≤ pushes sent", "taps \(taps), sent \(sent)")
        let paintFailed = UInt64(r.metric(.tapsPaintFailed) ?? 0)
        law(paints + paintFailed <= taps, "paints + failed paints ≤ taps", "paints \(paints) + failed \(paintFailed), taps \(taps)")
        law(r.tapToPaint.count == paints, "tap-to-paint histogram counts every paint", "histogram \(r.tapToPaint.count), paints \(paints)")
        let groups = r.tapToPaintByGroup.reduce(0) { $0 + $1.histogram.count }
        law(groups == r.tapToPaint.count, "platform × network groups partition the paints", "groups \(groups), paints \(r.tapToPaint.count)")
        law(r.metric(.tapsCount) == Double(taps), "taps.count metric = taps", "metric \(r.metric(.tapsCount) ?? -1), taps \(taps)")
        // Pre-stage requests at the edge.
        let p = r.prestage
        law(p.requests == p.hits + p.misses, "pre-stage requests = hits + misses", "requests \(p.requests), hits \(p.hits), misses \(p.misses)")
        let popRequests = r.pops.reduce(0) { $0 + $1.prestageRequests }, popHits = r.pops.reduce(0) { $0 + $1.prestageHits }
        law(popRequests == p.requests && popHits == p.hits, "per-PoP pre-stage counts sum to the totals",
            "PoPs \(popRequests)/\(popHits), totals \(p.requests)/\(p.hits)")
        law(r.series.prestageEdgeRequests.totalCount == p.requests && r.series.prestageEdgeHits.totalCount == p.hits,
            "per-second pre-stage counts sum to the totals",
            "series \(r.series.prestageEdgeRequests.totalCount)/\(r.series.prestageEdgeHits.totalCount), totals \(p.requests)/\(p.hits)")
        let regionMisses = r.missesByRegion.reduce(0) { $0 + $1.perBin.reduce(0) { $0 + $1[1] } }
        law(regionMisses == p.misses, "misses by region sum to the pre-stage misses", "regions \(regionMisses), misses \(p.misses)")
        checkTiers(r, facts: facts, law: law)
        checkBytes(r, law: law)
        checkMetricValues(r, law: law)
        return out
    }

    /// Requests = hits + misses at the edge and shield; the origin's answers; what each tier can
    /// have received from the one below.
    private static func checkTiers(_ r: ReplicationResult, facts: WorldFacts, law: (Bool, String, @autoclosure () -> String) -> Void) {
        guard let edge = r.tier(.edge), let shield = r.tier(.shield), let origin = r.tier(.origin) else {
            law(false, "results carry the edge, shield and origin tiers", r.tiers.map(\.tier.name).joined(separator: ","))
            return
        }
        for t in [edge, shield] {
            law(t.requests == t.freshHits + t.staleHits + t.misses, "\(t.tier): requests = fresh hits + stale hits + misses",
                "requests \(t.requests), fresh \(t.freshHits), stale \(t.staleHits), misses \(t.misses)")
            law(t.warmRequests <= t.requests, "\(t.tier): warm lookups ≤ requests", "warm \(t.warmRequests), requests \(t.requests)")
        }
        law(edge.deviceHits <= edge.deviceRequests, "edge: device hits ≤ device requests", "hits \(edge.deviceHits), requests \(edge.deviceRequests)")
        law(edge.requests <= edge.deviceRequests + edge.warmRequests, "edge: requests ≤ device requests + warm lookups",
            "requests \(edge.requests), device \(edge.deviceRequests), warm \(edge.warmRequests)")
        law(r.prestage.requests <= edge.deviceRequests, "edge: pre-stage requests ≤ device requests",
            "pre-stage \(r.prestage.requests), device \(edge.deviceRequests)")
        law(origin.freshHits + origin.rejected503 <= origin.requests, "origin: served + rejected ≤ requests",
            "served \(origin.freshHits), rejected \(origin.rejected503), requests \(origin.requests)")
        law(r.series.originRequests.totalCount == origin.requests && r.series.origin503.totalCount == origin.rejected503,
            "per-second origin counts sum to the totals",
            "series \(r.series.originRequests.totalCount)/\(r.series.origin503.totalCount), totals \(origin.requests)/\(origin.rejected503)")
        law(r.metric(.originRequests) == Double(origin.requests), "origin.requests metric = origin requests",
            "metric \(r.metric(.originRequests) ?? -1), count \(origin.requests)")
        let edgeUpstream = r.pops.reduce(0) { $0 + $1.upstreamFetches }
        if !facts.tiering {
            // Shields are off the path; only warm calls (`shieldsOnly`) still reach them.
            law(shield.requests == shield.warmRequests, "no tiering: the shields see warm lookups only",
                "shield requests \(shield.requests), warm \(shield.warmRequests)")
            if !facts.backgroundRevalidation {
                law(origin.requests <= edgeUpstream + shield.misses, "no tiering: origin requests ≤ PoP upstream fetches + shield warm misses",
                    "origin \(origin.requests), PoP upstream \(edgeUpstream), shield misses \(shield.misses)")
            }
        } else if !facts.backgroundRevalidation {
            law(shield.requests <= edgeUpstream + shield.warmRequests, "tiering: shield requests ≤ PoP upstream fetches + shield warm lookups",
                "shield \(shield.requests), PoP upstream \(edgeUpstream), shield warm \(shield.warmRequests)")
            law(origin.requests <= shield.misses, "tiering: origin requests ≤ shield misses", "origin \(origin.requests), shield misses \(shield.misses)")
        }
        if !facts.tiering {
            let shieldEgress = r.metric(.bytesShieldEgress) ?? -1
            law(shieldEgress == 0, "no tiering: no shield egress", "bytes.shieldEgress \(shieldEgress)")
        }
        let largest = Double(facts.largestObjectBytes)
        let originEgress = r.metric(.bytesOriginEgress) ?? -1
        law(originEgress >= 0 && originEgress <= Double(origin.freshHits) * largest, "origin egress ≤ responses served × largest object",
            "bytes.originEgress \(originEgress), served \(origin.freshHits), largest object \(facts.largestObjectBytes)")
        let shieldEgress = r.metric(.bytesShieldEgress) ?? -1
        law(shieldEgress >= 0 && shieldEgress <= Double(shield.requests) * largest, "shield egress ≤ shield requests × largest object",
            "bytes.shieldEgress \(shieldEgress), requests \(shield.requests), largest object \(facts.largestObjectBytes)")
        let edgeEgress = Double(r.bytes.cdnEgressBytes)
        law(edgeEgress <= Double(edge.deviceRequests) * largest, "edge egress ≤ device requests × largest object",
            "bytes.cdnEgress \(r.bytes.cdnEgressBytes), device requests \(edge.deviceRequests), largest object \(facts.largestObjectBytes)")
    }

    /// What devices received is what the PoPs sent them (less what is still in flight); the
    /// cellular and never-opened bytes are parts of it.
    private static func checkBytes(_ r: ReplicationResult, law: (Bool, String, @autoclosure () -> String) -> Void) {
        let b = r.bytes
        let received = b.backgroundBytes + b.foregroundBytes
        law(received <= b.cdnEgressBytes, "bytes devices received ≤ edge egress",
            "background \(b.backgroundBytes) + foreground \(b.foregroundBytes), edge egress \(b.cdnEgressBytes)")
        law(b.cellularBytes <= received, "cellular bytes ≤ bytes received", "cellular \(b.cellularBytes), received \(received)")
        law(b.neverOpenedBytes <= b.backgroundBytes, "never-opened bytes ≤ background bytes",
            "never opened \(b.neverOpenedBytes), background \(b.backgroundBytes)")
        law(r.metric(.bytesCdnEgress) == Double(b.cdnEgressBytes), "bytes.cdnEgress metric = edge egress",
            "metric \(r.metric(.bytesCdnEgress) ?? -1), count \(b.cdnEgressBytes)")
    }

    /// No metric is NaN or infinite; every ratio lies in [0, 1]; the outcome shares sum to 1.
    private static func checkMetricValues(_ r: ReplicationResult, law: (Bool, String, @autoclosure () -> String) -> Void) {
        for m in r.metrics {
            law(m.value.isFinite, "every metric is finite", "\(m.name) = \(m.value)")
            if m.unit == MetricUnit.ratio.rawValue {
                law(m.value >= 0 && m.value <= 1, "every ratio lies in [0, 1]", "\(m.name) = \(m.value)")
            }
            if m.unit == MetricUnit.count.rawValue || m.unit == MetricUnit.bytes.rawValue || m.unit == MetricUnit.seconds.rawValue {
                law(m.value >= 0, "counts, bytes and durations are ≥ 0", "\(m.name) = \(m.value)")
            }
        }
        let shares = r.metrics.filter { $0.name.hasPrefix("outcomes.") && $0.name.hasSuffix("Share") }
        let sum = shares.reduce(0) { $0 + $1.value }
        law(r.pushesTargeted == 0 || abs(sum - 1) < 1e-9, "outcome shares sum to 1", "sum \(sum) over \(shares.count) shares")
    }
}
