import Foundation
import PushModel
import SimStats
import XCTest
@testable import ScenarioFormat

/// The calibration world is scenarios/calibration.json (its one definition); the comparisons of
/// the practitioner account (reference article) are that file with `--set` overrides, and each
/// lands near the account's figures.
///
/// The world: 10 000 devices, all on LTE, half iOS / half Android, one breaking-news campaign sent
/// at t = 300 s, 1 h horizon, 20 PoPs. Reported figures and the parameters that produce them:
/// - **Without pre-staging, tap-to-paint on LTE: median 2.7 s, p90 5.8 s** for a 700 KB hero
///   image plus a JSON document. Tap-to-paint = cold connection set-up (3 round trips) +
///   request RTT + edge/shield/origin on a miss + the 700 KB transfer + launch/render. The
///   transfer dominates, so the LTE downlink is the calibrated parameter: lognormal with median
///   2.5 Mbit/s and σ = 0.65 (busy-hour per-device LTE throughput on congested cells; the
///   median of 0.28 s + 5.6 Mbit / 2.5 Mbit/s + 0.18 s ≈ 2.7 s; the p90 follows from σ:
///   5.6 / (2.5 · e^(−1.2816 · 0.65)) ≈ 5.1 s plus set-up and render ≈ 5.8 s). RTT keeps
///   InfraModel's LTE default (70 ms median). Users tap breaking news early (half within
///   ~30 s, half with a median of 4 min), so signed tokens (15 min) rarely need a refresh.
/// - **With pre-staging: under 400 ms.** The NSE / FCM handler stores hero + JSON (the metered
///   cap is raised to 2 MB so a 730 KB push is pre-staged on LTE); a tap then costs only
///   launch + render: `users.renderSeconds` lognormal, median 180 ms, σ = 0.35.
/// - **Background fetch from origin: mean ≈ 840 ms on LTE, ≈ 12 % time out.** An 8 KB
///   pre-stage image fetched with the device's signed URL in the cache key (every request
///   misses), no tiering, over a cold TLS connection: 3 set-up RTTs (0.21 s) + RTT (0.07 s) +
///   InfraModel's origin round trip (uniform 0.38–0.58 s) + service + transfer ≈ 0.84 s. The
///   timeouts come from the origin: `origin.serviceSeconds` is a mixture where 12 % of
///   responses take 10–30 s (an overloaded origin), beyond PreloadKit's 8 s request timeout.
/// - **Edge hit: 45–110 ms, ≈ 99.1 % success.** The same image after a warm-ahead of all PoPs
///   5 min before the send, on a pooled (warm) connection: RTT 70 ms + edge processing 4 ms +
///   8 KB at 2.5 Mbit/s (26 ms) ≈ 100 ms median; failures are InfraModel's LTE failure and
///   stall probabilities (0.5 % + 0.25 %).
/// - **"Push to article read" +23 % with pre-staging.** Reads = taps that paint before their user
///   leaves (`users.readProbability` 1: a read probability independent of latency cancels out of
///   the ratio). Who leaves is `users.abandonment`: the shape of Google/SOASTA's mobile bounce
///   increases by load time (+32 % at 3 s, +90 % at 5 s, +106 % at 6 s, +123 % at 10 s over 1 s)
///   times one scale k. With the no-pre-stage waits above (lognormal, median 2.7 s, σ ≈ 0.6) the
///   mean of that shape over taps is 0.40 (0.016 with pre-staging, nearly every tap under 1 s),
///   and ≈ 1.6 % of taps fail without pre-staging; k solves
///   (1 − k · 0.016) / (1 − 0.016 − k · 0.40) = 1.23, k ≈ 0.44 (the default curve).
///
/// How close the simulator lands (seed 2026, replication 0): without pre-staging, LTE
/// tap-to-paint median 2.80 s (+4 %) and p90 5.61 s (−3 %); with pre-staging, median 0.18 s
/// (< 0.4 s); origin-direct background fetch mean 0.83 s (−1 %) with 12.3 % timeouts; edge hit
/// median 104 ms with 99.2 % success. The acceptance bounds are ±10 % on medians and means,
/// ±15 % on the p90, ±2 percentage points on the timeout share, and the reported ranges for the
/// edge hit (99.1 % ± 0.5 points for its success); reads per push with / without pre-staging
/// 1.233, 95 % CI [1.220, 1.247] over the file's 5 replications (+23 % reported). Why these bounds: the published figures carry
/// two significant digits (±2–5 % from rounding alone), they come from one app whose conditions
/// are only partly described, and the model fits two lognormal parameters to totals that are sums
/// of several random terms, so a closer match would be over-fitting; the sampling error of the
/// simulated quantiles at ≈ 1 700 LTE taps is about 2 % (standard error of a median
/// 1/(2 f(m) √n)) and of the timeout share about 0.3 points, well inside the bounds.
final class CalibrationTests: XCTestCase {
    let seed: UInt64 = 2026

    /// The comparisons, as `--set` overrides of scenarios/calibration.json.
    enum Variant {
        /// Breaking-news push with CDN pre-staging (the file as it is).
        case preStaged
        /// The same push before pre-staging: plain alert, cold CDN; the app fetches on tap (the
        /// variant the file's notes document).
        case withoutPreStaging
        /// Background fetch of a small pre-stage image straight from the origin (per-device
        /// signed URL in the cache key, no tiering, cold TLS connection).
        case originDirect
        /// The same background fetch as an edge hit (CDN warmed 5 min ahead, pooled connection).
        case edgeWarm

        var overrides: [String] {
            let thumb = #"campaigns[0].assets=[{"name": "thumb", "type": "image", "priority": "critical", "bytes": 8000}]"#
            switch self {
            case .preStaged: return []
            case .withoutPreStaging: return ["campaigns[0].preStage=false", #"campaigns[0].warm.mode="none""#]
            case .originDirect:
                return [thumb, #"campaigns[0].warm.mode="none""#, "infra.cacheKeyIncludesSignedToken=true",
                        "infra.tiers.tieringEnabled=false", "platforms.backgroundConnectionWarm=false",
                        #"infra.origin.serviceSeconds={"kind": "mixture", "components": ["#
                            + #"{"weight": 0.88, "distribution": {"kind": "exponential", "mean": 0.020}}, "#
                            + #"{"weight": 0.12, "distribution": {"kind": "uniform", "lower": 10, "upper": 30}}]}"#]
            case .edgeWarm: return [thumb, "platforms.backgroundConnectionWarm=true"]
            }
        }
    }

    func world(_ variant: Variant) throws -> PushWorldConfig {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        return try ScenarioLoader.load("calibration", library: library, set: variant.overrides).scenario.world
    }

    func simulate(_ variant: Variant) throws -> ReplicationResult {
        try PushSimulation.run(world(variant), masterSeed: seed, replication: 0)
    }

    func value(_ r: ReplicationResult, _ id: MetricID) -> Double { r.metric(id.rawValue) ?? .nan }

    func lte(_ r: ReplicationResult, _ q: MetricTable.NetworkQuantile) -> Double {
        r.metric(MetricTable.tapToPaint(network: "lte", quantile: q).name) ?? .nan
    }

    /// The variants change only what they name (the documented one exactly as the file's notes).
    func testVariantsChangeOnlyWhatTheyName() throws {
        let base = try world(.preStaged)
        var off = base
        off.campaigns[0].preStage = false
        off.campaigns[0].warm.mode = .none
        XCTAssertEqual(try world(.withoutPreStaging), off)
        var edge = try world(.edgeWarm)
        XCTAssertEqual(edge.campaigns[0].assets.map(\.name), ["thumb"])
        XCTAssertTrue(edge.platforms.backgroundConnectionWarm)
        edge.campaigns[0].assets = base.campaigns[0].assets
        edge.platforms.backgroundConnectionWarm = base.platforms.backgroundConnectionWarm
        XCTAssertEqual(edge, base)
    }

    func testWithoutPreStagingTapToPaintOnLTE() throws {
        let r = try simulate(.withoutPreStaging)
        XCTAssertEqual(lte(r, .p50), 2.7, accuracy: 0.27, "median tap-to-paint on LTE without pre-staging (seed \(seed))")
        XCTAssertEqual(lte(r, .p90), 5.8, accuracy: 0.87, "p90 tap-to-paint on LTE without pre-staging (seed \(seed))")
        XCTAssertGreaterThan(r.tapToPaint.count, 2_000, "seed \(seed)")
    }

    func testWithPreStagingUnder400ms() throws {
        let r = try simulate(.preStaged)
        XCTAssertLessThan(lte(r, .p50), 0.4, "median tap-to-paint with pre-staging (seed \(seed))")
        XCTAssertEqual(value(r, .edgePrestageHitRatio), 1, "warmed 5 min ahead (seed \(seed))")
    }

    func testBackgroundFetchFromOrigin() throws {
        let r = try simulate(.originDirect)
        XCTAssertEqual(value(r, .extensionDownloadMean), 0.84, accuracy: 0.084, "mean origin fetch on LTE (seed \(seed))")
        XCTAssertEqual(value(r, .extensionFetchTimeoutShare), 0.12, accuracy: 0.02, "extension timeouts (seed \(seed))")
        XCTAssertEqual(value(r, .edgePrestageHitRatio), 0, "every signed URL misses (seed \(seed))")
    }

    /// The read ratio with / without pre-staging over the file's replications, paired (the same
    /// users in both: common random numbers), must cover the reported 1.23. The bound: the 95 %
    /// Student-t interval of the per-replication ratios, widened by the published figure's
    /// rounding (23 % stands for 22.5–23.5 %, ±0.005). A simulated ratio outside it would mean
    /// the abandonment curve's scale no longer reproduces the account.
    func testPushToArticleReadRisesAbout23PercentWithPreStaging() throws {
        let on = try world(.preStaged), off = try world(.withoutPreStaging)
        var ratios: [Double] = []
        for replication in 0..<5 {
            let a = try PushSimulation.run(on, masterSeed: seed, replication: replication)
            let b = try PushSimulation.run(off, masterSeed: seed, replication: replication)
            XCTAssertEqual(value(a, .pushesTargeted), value(b, .pushesTargeted), "the same pushes (seed \(seed))")
            ratios.append(value(a, .readsPerPush) / value(b, .readsPerPush))
        }
        let ci = try ConfidenceInterval.studentT(sample: ratios, level: 0.95)
        let rounding = 0.005
        XCTAssertLessThanOrEqual(abs(ci.mean - 1.23), ci.halfWidth + rounding,
                                 "reads ratio \(ci.mean) ± \(ci.halfWidth) per replication \(ratios) (seed \(seed))")
        XCTAssertLessThan(ci.halfWidth, 0.05, "an interval this wide would not test anything (seed \(seed))")
    }

    func testBackgroundFetchAsEdgeHit() throws {
        let r = try simulate(.edgeWarm)
        let p50 = value(r, .extensionDownloadP50)
        XCTAssertTrue((0.045...0.110).contains(p50), "edge hit median \(p50) s outside 45–110 ms (seed \(seed))")
        XCTAssertEqual(value(r, .extensionFetchSuccessRatio), 0.991, accuracy: 0.005, "edge hit success (seed \(seed))")
    }
}
