import Foundation
import XCTest
import SimKernel
import Stochastic
@testable import InfraModel

/// Segment loss: a response of B bytes has n = ceil(B / 1460) segments, each lost with probability
/// p, each loss adding one RTO = RTT + 200 ms to the transfer (``LossRecovery``).
///
/// The same requests run in a world without loss and in one with loss. Loss draws come from their
/// own stream, so every other draw is the same and each request's extra time is exactly k · RTO
/// with k ~ Binomial(n, p): mean n·p·RTO, standard deviation √(n·p·(1 − p))·RTO. The mean extra time
/// of N requests has standard deviation √(n·p·(1 − p)/N)·RTO; the test allows 5 of them (a correct
/// model fails with probability below 6e-7).
final class SegmentLossTests: XCTestCase {
    static let bytes: Int64 = 700_000
    static let rttSeconds = 0.1
    static let lossProbability = 0.02
    static let requests = 2_000

    private func durations(lossProbability: Double) throws -> [Double] {
        var config = deterministicConfig(rttSeconds: Self.rttSeconds)
        config.networks[.threeG].downlinkBitsPerSecond = .constant(value: 1.6e6)
        config.networks[.threeG].segmentLossProbability = lossProbability
        var catalog = ObjectCatalog()
        try catalog.add(bytes: Self.bytes, policy: CachePolicy(), surrogateKey: nil)
        var d = Driver(world: try InfraWorld(config: config, catalog: catalog, masterSeed: 3))
        var k = Kernel()
        try d.world.warm(objects: [0], at: .zero, target: .allPops, kernel: &k)
        for i in 0..<Self.requests {
            try d.add(request(object: 0, network: .threeG, entity: UInt64(i), timeout: .seconds(600)),
                      at: .seconds(10 + Double(i)), kernel: &k)
        }
        _ = try k.run(&d)
        let results = d.resultOfRequest.map { d.results[$0] }
        XCTAssertTrue(results.allSatisfy { $0.outcome == .edgeFreshHit && $0.bytes == Self.bytes })
        return results.map(\.durationSeconds)
    }

    func testLossAddsBinomiallyManyTimeoutsToEachDownload() throws {
        let plain = try durations(lossProbability: 0)
        let lossy = try durations(lossProbability: Self.lossProbability)
        let rto = LossRecovery.timeoutSeconds(rttSeconds: Self.rttSeconds)
        XCTAssertEqual(rto, 0.3, accuracy: 1e-12)
        let n = Double(LossRecovery.segments(bytes: Self.bytes))
        XCTAssertEqual(n, 480)
        var lost: [Double] = []
        for (a, b) in zip(plain, lossy) {
            let k = (b - a) / rto
            XCTAssertEqual(k, k.rounded(), accuracy: 1e-6, "extra time \(b - a) s is not a whole number of RTOs")
            XCTAssertGreaterThanOrEqual(k.rounded(), 0)
            lost.append(k.rounded())
        }
        let p = Self.lossProbability, count = Double(Self.requests)
        let meanExtra = lost.reduce(0, +) / count * rto
        let sd = (n * p * (1 - p) / count).squareRoot() * rto
        XCTAssertEqual(meanExtra, n * p * rto, accuracy: 5 * sd, "mean extra latency vs n·p·RTO = \(n * p * rto) s")
        // The spread is the binomial's too: the sample variance of k against σ² = n·p·(1 − p), within
        // 5 standard errors of a sample variance, σ²·√(2/(N − 1) + κ/N) with the binomial's excess
        // kurtosis κ = (1 − 6p(1 − p)) / σ².
        let meanK = lost.reduce(0, +) / count
        let variance = lost.reduce(0) { $0 + ($1 - meanK) * ($1 - meanK) } / (count - 1)
        let sigma2 = n * p * (1 - p)
        let kurtosis = (1 - 6 * p * (1 - p)) / sigma2
        XCTAssertEqual(variance, sigma2, accuracy: 5 * sigma2 * (2 / (count - 1) + kurtosis / count).squareRoot())
    }

    /// Without loss a warm-connection-free hit takes ½ RTT up, ½ RTT down and 8B / rate (no set-up
    /// round trips in this world).
    func testWithoutLossAHitTakesOneRTTPlusTheTransfer() throws {
        for d in try durations(lossProbability: 0) {
            XCTAssertEqual(d, Self.rttSeconds + Double(Self.bytes) * 8 / 1.6e6, accuracy: 1e-5)
        }
    }
}
