import Foundation
import SimStats
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// Common random numbers on real simulation runs: two variants run with the same seed pair their
/// replications, and the paired interval for the difference is much narrower than Welch's
/// unpaired interval computed from the very same runs.
final class SweepCommonRandomNumbersTests: XCTestCase {
    static let seed: UInt64 = 11
    static let replications = 5

    func testPairedIntervalIsMuchNarrowerThanWelchForWarmAhead0Versus300Seconds() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        // `default` (warm all PoPs, send at 600 s) with the warm call 0 s or 300 s ahead; 600 devices.
        let sweep = try t.file("crn.json", """
        { "scenario": "default", "replications": \(Self.replications), "seed": \(Self.seed), "devices": 600,
          "grid": { "campaigns[0].warm.aheadSeconds": [0, 300] } }
        """)
        let out = t.root.appendingPathComponent("crn")
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out.path]), .ok, "seed \(Self.seed): \(t.err.text)")
        func values(_ point: Int, _ metric: String) throws -> [Double] {
            try (0..<Self.replications).map { r in
                let data = try Data(contentsOf: out.appendingPathComponent("items/" + SweepItemResult.fileName(point: point, replication: r)))
                let item = try JSONDecoder().decode(SweepItemResult.self, from: data)
                return try XCTUnwrap(item.metrics.first { $0.name == metric }?.value, "\(metric) in point \(point) replication \(r), seed \(Self.seed)")
            }
        }
        // Why the paired interval must be much narrower: replication r of both variants draws the
        // same devices, networks, delivery latencies and tap delays (streams derived from (seed, r,
        // entity, purpose)); only what the warm timing changes differs. Most of the
        // replication-to-replication spread (which devices sit on slow networks, who taps when) is
        // therefore common to A_r and B_r, Cov(A, B) > 0, and Var(B − A) = Var(A) + Var(B) −
        // 2 Cov(A, B) is far below Var(A) + Var(B), the variance Welch's interval assumes. With
        // correlation ρ and equal variances the half-width ratio is about
        // √(1 − ρ) · t_{0.975,4} / t_{0.975,≈8} ≈ 1.2 √(1 − ρ): below 0.5 needs ρ > 0.83; CRN on these
        // latency percentiles gives ρ close to 1. The bound 0.5 is the acceptance level.
        for metric in ["tapToPaint.p95Seconds", "extension.download.p95Seconds"] {
            let a = try values(0, metric), b = try values(1, metric)
            let c = try PairedComparison(baseline: a, variant: b, better: .lower, level: 0.95)
            XCTAssertGreaterThan(c.welchDifference.halfWidth, 0, "\(metric): the runs vary, seed \(Self.seed)")
            XCTAssertLessThan(c.pairedDifference.halfWidth, 0.5 * c.welchDifference.halfWidth,
                              "\(metric): paired ±\(c.pairedDifference.halfWidth) vs Welch ±\(c.welchDifference.halfWidth), A \(a), B \(b), seed \(Self.seed)")
        }
    }
}
