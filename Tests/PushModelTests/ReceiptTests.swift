import Foundation
import SimStats
import XCTest
@testable import PushModel

/// Delivery receipts at the analytics endpoint: jitter spreads a send's receipts over the window,
/// so the endpoint's peak falls from the delivery burst towards receipts / window.
final class ReceiptTests: XCTestCase {
    /// The small world with receipts on and a jitter window of `windowSeconds`.
    func receiptWorld(windowSeconds: Double, devices: Int = 3_000) -> PushWorldConfig {
        var c = smallWorld(devices: devices)
        c.preloadPolicy.receiptsEnabled = true
        c.preloadPolicy.receiptJitterWindowSeconds = windowSeconds
        return c
    }

    /// Receipts off (the default): no receipt metrics, no series, nothing drawn -- the result is
    /// the one of a run that never heard of receipts.
    func testReceiptsOffLeaveTheResultAlone() throws {
        let r = try simulate(smallWorld(devices: 1_000), seed: 3)
        XCTAssertNil(r.series.analyticsReceipts)
        XCTAssertNil(r.metric(.receiptsSent))
        XCTAssertNil(r.metric(.analyticsPeakRequestsPerSecond))
    }

    /// Every receipt is counted once: in a second of the horizon or beyond it. The jitter stream
    /// is its own, so the window changes nothing but the receipts' arrival times (the same pushes
    /// are delivered whatever the window).
    func testEveryReceiptIsCountedAndTheWindowMovesOnlyArrivals() throws {
        let seed: UInt64 = 11
        var c0 = receiptWorld(windowSeconds: 0, devices: 1_000)
        var c1 = receiptWorld(windowSeconds: 1_800, devices: 1_000)
        // A horizon ending 10 minutes after the send: part of the 30-minute window falls past it.
        c0.horizonSeconds = 900
        c1.horizonSeconds = 900
        c0.infra.metricsHorizonSeconds = 900
        c1.infra.metricsHorizonSeconds = 900
        let r0 = try simulate(c0, seed: seed), r1 = try simulate(c1, seed: seed)
        for r in [r0, r1] {
            let series = try XCTUnwrap(r.series.analyticsReceipts)
            XCTAssertEqual(Double(series.totalCount), r.value("receipts.sent"), "seed \(seed)")
            XCTAssertEqual(Double(series.beyondHorizonCount), r.value("receipts.beyondHorizon"), "seed \(seed)")
            XCTAssertGreaterThan(r.value("receipts.sent"), 0, "seed \(seed)")
            XCTAssertEqual(r.value("receipts.perPush"), r.value("receipts.sent") / Double(r.pushesTargeted), "seed \(seed)")
        }
        XCTAssertEqual(r0.value("receipts.sent"), r1.value("receipts.sent"), "seed \(seed)")
        XCTAssertEqual(r0.outcomes, r1.outcomes, "seed \(seed)")
        XCTAssertEqual(r0.value("tapToPaint.p50Seconds"), r1.value("tapToPaint.p50Seconds"), "seed \(seed)")
        XCTAssertEqual(r0.value("receipts.beyondHorizon"), 0, "seed \(seed)")
        // Sends end by second 301 and deliveries within the handler deadlines; the receipts due in
        // the last (1800 − 600)/1800 of the window are past the horizon: about two thirds.
        XCTAssertGreaterThan(r1.value("receipts.beyondHorizon"), 0.5 * r1.value("receipts.sent"), "seed \(seed)")
    }

    /// Jitter flattens the endpoint's load. The deliveries (hence the receipts' base instants) are
    /// the same for every window (common random numbers), so the W = 0 run gives the delivery
    /// burst, per second, c_j; then, for W > 0:
    ///
    /// Upper bound. A receipt lands at (its delivery) + U·W with U uniform, independently per
    /// push. Given the deliveries, the count of any one-second bin is a sum of independent
    /// Bernoulli variables, each with p ≤ 1/W (the jitter's density is 1/W per second), so it is
    /// stochastically below Binomial(N, 1/W), N the receipts. The bins that can receive lie in
    /// [first delivery second, last delivery second + W], at most B = span + W + 1 of them; by the
    /// union bound P(peak > m) ≤ B · P(Binomial(N, 1/W) > m). m is the smallest count with that
    /// below 10⁻⁶ (for N = 3 000, W = 300 s over 331 bins that is 33 = mean + 7.3·√mean, where the
    /// normal tail's k for 10⁻⁶ / B would be 5.8: at a mean of 10 the right tail is heavier).
    ///
    /// Lower bound. A receipt delivered in second j lands in bin k with probability exactly 1/W
    /// when j + 1 ≤ k ≤ j + W − 1 (the bin lies inside [delivery, delivery + W) whatever the
    /// instant within second j). So bin k's mean is at least E_k = Σ_{j=k−W+1}^{k−1} c_j / W, and
    /// by Chernoff's lower tail P(X ≤ E − t) ≤ exp(−t²/(2E)): with t = √(2E·ln 10⁶) the peak is at
    /// least max_k E_k − t but with probability 10⁻⁶.
    ///
    /// The world is built so that the intervals do not overlap (checked below, not assumed):
    /// peak(0) > upper(30) and lower(30) > upper(300), hence peak(0) > peak(30) > peak(300), and
    /// peak(300) is near N/300.
    func testJitterFlattensThePeakWithinTheBinomialBounds() throws {
        let seed: UInt64 = 29
        let r0 = try simulate(receiptWorld(windowSeconds: 0), seed: seed)
        let burst = try XCTUnwrap(r0.series.analyticsReceipts)
        let n = Int(burst.totalCount)
        XCTAssertGreaterThan(n, 1_000, "seed \(seed)")
        XCTAssertEqual(r0.value("analytics.peakRequestsPerSecond"), Double(burst.peak?.count ?? 0), "seed \(seed)")
        var first = -1, last = -1
        for s in 0..<burst.horizonSeconds where burst[s] > 0 {
            if first < 0 { first = s }
            last = s
        }
        let span = last - first + 1
        let peak0 = Double(burst.peak?.count ?? 0)

        func upper(_ w: Int) -> Double {
            Double(Self.binomialUnionBound(trials: n, probability: 1 / Double(w), bins: span + w + 1, alpha: 1e-6))
        }
        func lower(_ w: Int) -> Double {
            var best = 0.0
            for k in first...(last + w) {
                var e = 0.0
                for j in max(first, k - w + 1)...max(first, k - 1) where j <= k - 1 { e += Double(burst[j]) }
                best = max(best, e / Double(w))
            }
            return best - (2 * best * log(1e6)).squareRoot()
        }

        var peaks: [Int: Double] = [:]
        for w in [30, 300] {
            let r = try simulate(receiptWorld(windowSeconds: Double(w)), seed: seed)
            XCTAssertEqual(r.value("receipts.sent"), Double(n), "the same deliveries (seed \(seed))")
            let peak = r.value("analytics.peakRequestsPerSecond")
            XCTAssertLessThanOrEqual(peak, upper(w), "W = \(w) s: N = \(n) over \(span + w + 1) bins (seed \(seed))")
            XCTAssertGreaterThanOrEqual(peak, lower(w), "W = \(w) s (seed \(seed))")
            XCTAssertLessThanOrEqual(r.value("analytics.p99RequestsPerSecond"), peak, "seed \(seed)")
            peaks[w] = peak
        }
        XCTAssertGreaterThan(peak0, upper(30), "the world's burst is sharper than a 30 s spread (seed \(seed))")
        XCTAssertGreaterThan(lower(30), upper(300), "seed \(seed)")
        XCTAssertGreaterThan(peak0, peaks[30] ?? .nan, "seed \(seed)")
        XCTAssertGreaterThan(peaks[30] ?? .nan, peaks[300] ?? .nan, "seed \(seed)")
        // Near N/W: at least the mean over the bins that can receive, at most the union bound.
        XCTAssertGreaterThanOrEqual(peaks[300] ?? .nan, Double(n) / Double(span + 301), "seed \(seed)")
    }

    /// The smallest m with bins · P(Binomial(trials, probability) > m) ≤ alpha (exact tail, summed
    /// in log space).
    static func binomialUnionBound(trials: Int, probability p: Double, bins: Int, alpha: Double) -> Int {
        let lq = log1p(-p), lp = log(p)
        func logPmf(_ k: Int) -> Double {
            lgamma(Double(trials + 1)) - lgamma(Double(k + 1)) - lgamma(Double(trials - k + 1)) + Double(k) * lp + Double(trials - k) * lq
        }
        // P(X > m) = Σ_{k > m} pmf(k); walk m down from the top.
        var tail = 0.0
        var m = trials
        while m > 0 {
            let next = tail + exp(logPmf(m))
            if Double(bins) * next > alpha { return m }
            tail = next
            m -= 1
        }
        return 0
    }

    /// The bound helper itself, against the normal approximation it refines: for mean 10 over
    /// 331 bins, m lies above the normal's mean + 5.8·√mean and below mean + 8·√mean.
    func testBinomialUnionBoundIsInTheNormalRange() {
        let m = Double(Self.binomialUnionBound(trials: 3_000, probability: 1.0 / 300, bins: 331, alpha: 1e-6))
        XCTAssertGreaterThan(m, 10 + 5.8 * 10.0.squareRoot())
        XCTAssertLessThan(m, 10 + 8 * 10.0.squareRoot())
    }
}
