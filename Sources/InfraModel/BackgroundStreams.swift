import Foundation
import SimKernel
import Stochastic

/// Explicit background request streams: cache pressure from traffic outside the simulated
/// campaign.
extension InfraWorld {
    static let backgroundKeyBit: UInt64 = 1 << 63

    /// Start the explicit background streams (``BackgroundPressure/explicitStream(requestsPerSecond:catalogueObjects:zipfExponent:objectBytes:)``)
    /// at every node that has one. They run until `metricsHorizonSeconds`.
    public mutating func startBackgroundStreams(kernel: inout Kernel) throws {
        for n in 0..<nodeCount where backgroundRatePerSecond[n] > 0 {
            try scheduleNextBackground(node: n, kernel: &kernel)
        }
    }

    mutating func scheduleNextBackground(node n: Int, kernel: inout Kernel) throws {
        let gap = backgroundRng.exponential(mean: 1 / backgroundRatePerSecond[n])
        let at = kernel.now.ticks + max(1, sampledTicks(gap))
        if at < Int64(config.metricsHorizonSeconds) * 1_000_000 {
            try kernel.schedule(.backgroundRequest(NodeID(n)), at: SimTime(ticks: at))
        }
    }

    mutating func backgroundRequest(_ n: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let rank = UInt64(backgroundSamplers[Int(backgroundSamplerIndex[n])].sample(backgroundRng))
        let key = InfraWorld.backgroundKeyBit | rank
        counters[n].backgroundRequests += 1
        let slot = caches[n].lookup(key, nowTicks: now)
        if slot >= 0 {
            counters[n].backgroundHits += 1
            caches[n].touch(slot, nowTicks: now)
        } else {
            caches[n].insert(key, bytes: backgroundBytes[n], originTicks: now, nowTicks: now)
        }
        try scheduleNextBackground(node: n, kernel: &kernel)
    }
}
