import Foundation
import PushModel
import ScenarioFormat

/// A scaled pilot of a scenario (the SHRiNK idea: Pan, Prabhakar, Psounis, Wischik, "SHRiNK: a
/// method for scaleable performance prediction and efficient network simulation", INFOCOM 2003):
/// 1/K of the devices, and every capacity those devices share scaled by 1/K, so each shared
/// resource sees 1/K of the load with 1/K of the capacity and runs at the same utilisation.
///
/// Scaled (each by 1/K, rounded to the nearest whole number for integer fields and kept at least
/// 1): `population.devices`; per campaign `sendRatePerMinute` and `providerQuotaPerMinute`;
/// `providers.fcm.projectQuotaPerMinute` and `providers.apns.streamsPerConnection` (the APNs
/// pool's throughput is connections × streams / request time); `infra.origin.workers` (the
/// origin's rate is workers / service time: the service time is a delay and is kept); the
/// analytics endpoint's `capacityPerSecond` and `queueMax` (a deterministic server: its queue is
/// seconds of load at its rate, so both scale). With the
/// default topology shape (`scalesTopology`) the PoPs (one region each) and shields too, so each
/// PoP keeps its devices, its first misses and its warm fetches and each region its bottleneck;
/// with an explicit topology each region's `sharedCapacityBitsPerSecond` instead. Objectives on
/// totals (counts, bytes, rates, money, energy totals) have their thresholds scaled by 1/K.
///
/// Not scaled, and why a pilot can differ from the full size: delays and per-device draws
/// (latencies, service times, downlink throughputs, tap delays); caches (they hold the campaign's
/// assets, the same objects at any audience size) and background pressure; an explicit topology
/// (each PoP still meets its first miss per asset and its warm fetch however few devices it
/// serves, so that origin load does not shrink with K); rounding (32 workers at K = 10 are 3);
/// fewer servers queue more for the same utilisation, so the origin's queue (`queueMax`) is kept
/// whole (scaled with the workers it made a validation pilot's 503 onset 25 % low; kept, within
/// 1 %); and with 1/K the devices every metric is noisier. So a pilot only narrows the range:
/// full-size runs decide.
package struct ScaledPilot: Sendable, Equatable {
    /// K: the pilot runs 1/K of the devices.
    package let scale: Int

    /// The smallest K: 2.
    package static let scaleMin = 2
    /// The fewest devices a pilot may have: 1 000 (judgement: below that, a 1/K world's shares
    /// and quantiles are too coarse to narrow anything, and rounded capacities drift from 1/K).
    package static let devicesMin = 1_000

    /// The scaled fields, as their paths read (`[*]`: every element; `<class>`: every network
    /// class). The scaling function changes these and nothing else.
    package static let scaledFields = [
        "population.devices",
        "campaigns[*].sendRatePerMinute",
        "campaigns[*].providerQuotaPerMinute",
        "providers.fcm.projectQuotaPerMinute",
        "providers.apns.streamsPerConnection",
        "infra.origin.workers",
        "analytics.capacityPerSecond",
        "analytics.queueMax",
    ]
    /// Scaled too when the topology has its default shape (`scalesTopology`): PoPs (one region
    /// each; their names kept for the PoPs kept), shields, and a `topPops` warm's PoP count.
    package static let topologyFields = [
        "infra.topology.popCount",
        "infra.topology.shieldCount",
        "infra.topology.popNames",
        "infra.topology.regionNames",
        "campaigns[*].warm.topPops",
    ]
    /// Scaled instead when the topology is explicit: each region's shared bottleneck.
    package static let explicitTopologyFields = [
        "infra.networks.<class>.sharedCapacityBitsPerSecond",
    ]

    package init(scale: Int) {
        self.scale = scale
    }

    /// Why K = `scale` cannot pilot a world of `devices` devices (nil: it can).
    package static func problem(scale: Int, devices: Int) -> String? {
        guard scale >= scaleMin else {
            return "expected an integer ≥ \(scaleMin) (the pilot runs 1/K of the devices), found \(scale)"
        }
        let pilot = devices / scale
        guard pilot >= devicesMin else {
            return "expected at most \(max(0, devices / devicesMin)) for \(devices) devices (a pilot needs at least \(devicesMin) devices; 1/\(scale) is \(pilot)), found \(scale)"
        }
        return nil
    }

    /// Why `scenario` cannot be piloted although K fits (nil: it can): an uncertain input on a
    /// scaled field would be drawn at full size in the pilot.
    package static func problem(uncertainIn scenario: ScenarioFile) -> String? {
        for input in scenario.uncertain.all where isScaled(path: input.path) {
            return "uncertain input \(input.path) is a field a pilot scales; run without --pilot-scale"
        }
        return nil
    }

    /// Whether `path` (a `--set` path) names a scaled field.
    static func isScaled(path: String) -> Bool {
        let general = path.replacingOccurrences(of: #"\[[0-9]+\]"#, with: "[*]", options: .regularExpression)
        if (scaledFields + topologyFields + explicitTopologyFields).contains(general) { return true }
        let parts = general.split(separator: ".")
        return parts.count == 4 && parts[0] == "infra" && parts[1] == "networks" && parts[3] == "sharedCapacityBitsPerSecond"
    }

    /// `full` at 1/K: the scaled fields divided by K, objectives on totals with their thresholds
    /// divided by K, everything else as it was (seed, replications, name: the pilot's hash differs
    /// by the scaled values alone).
    package func scenario(_ full: ScenarioFile) -> ScenarioFile {
        let k = Double(scale)
        func real(_ x: Double) -> Double { max(1, x / k) }
        func whole(_ n: Int, min lowest: Int = 1) -> Int { n <= 0 ? n : max(lowest, Int((Double(n) / k).rounded())) }
        var s = full
        var w = s.world
        w.population.devices = max(1, w.population.devices / scale)
        for i in w.campaigns.indices {
            w.campaigns[i].sendRatePerMinute = real(w.campaigns[i].sendRatePerMinute)
            w.campaigns[i].providerQuotaPerMinute = real(w.campaigns[i].providerQuotaPerMinute)
        }
        if var p = w.providers {
            p.fcm.projectQuotaPerMinute = max(1, Int64((Double(p.fcm.projectQuotaPerMinute) / k).rounded()))
            p.apns.streamsPerConnection = whole(p.apns.streamsPerConnection)
            w.providers = p
        }
        if Self.scalesTopology(full) {
            // 1/K of the PoPs (one region each) and shields: every PoP keeps its devices, its first
            // misses and its warm fetches, and each region its bottleneck, so the load they put on
            // the origin shrinks with K as the devices' does.
            var t = w.infra.topology
            t.popCount = whole(t.popCount)
            t.shieldCount = whole(t.shieldCount)
            if !t.popNames.isEmpty { t.popNames = Array(t.popNames.prefix(t.popCount)) }
            if !t.regionNames.isEmpty { t.regionNames = Array(t.regionNames.prefix(t.popCount)) }
            w.infra.topology = t
            for i in w.campaigns.indices where w.campaigns[i].warm.mode == .topPops {
                w.campaigns[i].warm.topPops = min(t.popCount, whole(w.campaigns[i].warm.topPops))
            }
        } else {
            for c in w.infra.networks.profiles.indices {
                w.infra.networks.profiles[c].sharedCapacityBitsPerSecond /= k
            }
        }
        w.infra.origin.workers = whole(w.infra.origin.workers)
        if var a = w.analytics {
            // The endpoint serves a deterministic rate from a FIFO: capacity and queue both
            // scale, so the pilot's queue holds as many seconds of load as the full one's.
            a.capacityPerSecond /= k
            a.queueMax = whole(a.queueMax, min: 0)
            w.analytics = a
        }
        s.world = w
        s.slo = full.slo.map { o in
            var o = o
            if Self.isTotal(metric: o.metric) { o.threshold /= k }
            return o
        }
        return s
    }

    /// Whether the pilot scales the topology (PoPs, shields, one region per PoP) instead of each
    /// region's shared capacity: when the topology is the default shape (regions one per PoP, no
    /// per-PoP overrides, no region weights or per-region network mixes), which a pilot can thin
    /// without choosing which PoPs and regions to keep.
    package static func scalesTopology(_ s: ScenarioFile) -> Bool {
        let t = s.world.infra.topology, p = s.world.population
        return t.regions.isEmpty && t.popOverrides.isEmpty && p.regionWeights.isEmpty && p.regionNetworkMix.isEmpty
    }

    /// Whether `metric` is a total over the audience (it shrinks with the devices: counts, bytes,
    /// rates, money and energy totals), not a share, time, quantile or per-device figure.
    package static func isTotal(metric: String) -> Bool {
        guard let spec = MetricTable.spec(named: metric) else { return false }
        switch spec.unit {
        case .count, .bytes, .perSecond, .bitsPerSecond, .money, .joules: break
        case .seconds, .ratio, .factor: return false
        }
        // "joulesPerPush", "costPerDevice": per something, not a total ("requestsPerSecond" is a rate, a total).
        let name = metric.replacingOccurrences(of: "PerSecond", with: "").replacingOccurrences(of: "perSecond", with: "")
        return name.range(of: #"[Pp]er[A-Z]"#, options: .regularExpression) == nil
    }
}
