import Foundation
import SimKernel
import Stochastic

/// Explicit background request streams: cache pressure from traffic outside the simulated
/// campaign (``BackgroundPressure/explicitStream(requestsPerSecond:catalogueObjects:zipfExponent:objectBytes:)``).
/// Per node: a Poisson rate (0: no stream), its tier's Zipf sampler of object ranks and the
/// objects' size; one sequential random stream for all of them.
struct BackgroundStreams {
    /// Marks a background object's cache key (no tracked object has the top bit).
    static let keyBit: UInt64 = 1 << 63

    let ratePerSecond: [Double]
    /// Per node: index into `samplers` (0 edge, 1 shield; -1: no stream).
    let samplerIndex: [Int32]
    let bytes: [Int64]
    let samplers: [Sampler]
    let rng: RandomStream
    /// Streams stop at the metrics horizon.
    let horizonTicks: Int64

    /// Whether node `n` has a stream.
    @inline(__always)
    func hasStream(node n: Int) -> Bool { ratePerSecond[n] > 0 }

    /// The time of node `n`'s next request after `nowTicks` (an exponential gap, at least one
    /// tick), or nil past the horizon.
    @inline(__always)
    func nextArrival(node n: Int, nowTicks: Int64) -> Int64? {
        let gap = rng.exponential(mean: 1 / ratePerSecond[n])
        let at = nowTicks + max(1, sampledTicks(gap))
        return at < horizonTicks ? at : nil
    }

    /// The cache key of node `n`'s next background object (a Zipf rank).
    @inline(__always)
    func drawKey(node n: Int) -> UInt64 {
        BackgroundStreams.keyBit | UInt64(samplers[Int(samplerIndex[n])].sample(rng))
    }
}

/// The background request flow: each request is a lookup at its node that stores the object on
/// a miss, then the node's next request is scheduled.
extension InfraWorld {
    /// Start the explicit background streams at every node that has one. They run until
    /// `metricsHorizonSeconds`.
    package mutating func startBackgroundStreams(kernel: inout Kernel) throws {
        for n in 0..<nodeCount where background.hasStream(node: n) {
            try scheduleNextBackground(node: n, kernel: &kernel)
        }
    }

    mutating func scheduleNextBackground(node n: Int, kernel: inout Kernel) throws {
        if let at = background.nextArrival(node: n, nowTicks: kernel.now.ticks) {
            try kernel.schedule(InfraEvent.backgroundRequest(NodeID(n)), at: SimTime(ticks: at))
        }
    }

    mutating func backgroundRequest(_ n: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let key = background.drawKey(node: n)
        nodes.counters[n].backgroundRequests += 1
        let slot = nodes.caches[n].lookup(key, nowTicks: now)
        if slot >= 0 {
            nodes.counters[n].backgroundHits += 1
            nodes.caches[n].touch(slot, nowTicks: now)
        } else {
            nodes.caches[n].insert(key, bytes: background.bytes[n], originTicks: now, nowTicks: now)
        }
        try scheduleNextBackground(node: n, kernel: &kernel)
    }
}
