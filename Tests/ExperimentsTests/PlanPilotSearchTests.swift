import Foundation
import XCTest
@testable import Experiments
@testable import ScenarioFormat

/// The scaling function of a pilot, and the piloted search against known boundaries.
final class PlanPilotSearchTests: XCTestCase {
    /// A scenario with every scaled field set away from its rounding edge: two campaigns, the
    /// providers section, an origin, and objectives on a total, a share and a time.
    static let scenarioText = """
    { "name": "pilot-scaling", "question": "q",
      "population": { "devices": 50000 },
      "slo": [ { "metric": "origin.rejected503", "op": "<=", "threshold": 50 },
               { "metric": "edge.prestageHitRatio", "op": ">=", "threshold": 0.9 },
               { "metric": "tapToPaint.p95Seconds", "op": "<=", "threshold": 1.2 } ],
      "campaigns": [ { "name": "a", "sendRatePerMinute": 120000, "providerQuotaPerMinute": 600000 },
                     { "name": "b", "sendStartSeconds": 900, "sendRatePerMinute": 60000, "providerQuotaPerMinute": 300000 } ],
      "providers": { "fcm": { "projectQuotaPerMinute": 600000 }, "apns": { "connections": 10, "streamsPerConnection": 1000 } },
      "preloadPolicy": { "receiptsEnabled": true }, "analytics": { "capacityPerSecond": 500, "queueMax": 2000 },
      "infra": { "origin": { "workers": 32, "queueMax": 128 } } }
    """

    /// Every leaf of `value` by its path ("campaigns[0].sendRatePerMinute").
    static func leaves(_ value: Any, _ path: String = "", into out: inout [String: Any]) {
        if let object = value as? [String: Any] {
            for (k, v) in object { leaves(v, path.isEmpty ? k : path + "." + k, into: &out) }
        } else if let array = value as? [Any] {
            for (i, v) in array.enumerated() { leaves(v, path + "[\(i)]", into: &out) }
        } else {
            out[path] = value
        }
    }

    static func tree(_ s: ScenarioFile) throws -> [String: Any] {
        var out: [String: Any] = [:]
        leaves(try JSONSerialization.jsonObject(with: CanonicalJSON.encode(s)), into: &out)
        return out
    }

    /// The scaling function changes exactly the documented fields (and the thresholds of objectives
    /// on totals), each to its value over K, and nothing else.
    func testTheScalingFunctionScalesExactlyTheDocumentedFields() throws {
        let full = try ScenarioLoader.decode(Data(Self.scenarioText.utf8), label: "t")
        let k = 10.0
        let pilot = ScaledPilot(scale: 10).scenario(full)
        let before = try Self.tree(full), after = try Self.tree(pilot)
        XCTAssertEqual(Set(before.keys), Set(after.keys))
        var changed: [String: (Double, Double)] = [:]
        for (path, old) in before where "\(old)" != "\(after[path] ?? "")" {
            let a = try XCTUnwrap((old as? NSNumber)?.doubleValue, path), b = try XCTUnwrap((after[path] as? NSNumber)?.doubleValue, path)
            changed[path] = (a, b)
        }
        // Each changed path in the general form the documentation uses.
        func general(_ path: String) -> String {
            var g = path.replacingOccurrences(of: #"\[[0-9]+\]"#, with: "[*]", options: .regularExpression)
            let parts = g.split(separator: ".").map(String.init)
            if parts.count == 4, parts[0] == "infra", parts[1] == "networks" { g = "infra.networks.<class>." + parts[3] }
            return g
        }
        // The default topology shape: PoPs and shields scaled (popNames and regionNames are empty
        // here, warm is not topPops), the regions' shared capacities kept.
        XCTAssertTrue(ScaledPilot.scalesTopology(full))
        let documented = Set(ScaledPilot.scaledFields + ["infra.topology.popCount", "infra.topology.shieldCount", "slo[*].threshold"])
        XCTAssertEqual(Set(changed.keys.map(general)), documented, "changed: \(changed.keys.sorted())")
        for (path, (a, b)) in changed {
            if path.hasPrefix("slo[") {
                XCTAssertEqual(path, "slo[0].threshold", "only the total's threshold (503s), not the share's or the time's")
            }
            // Integers round to the nearest whole value; the rest divide exactly.
            XCTAssertEqual(b, (a / k).rounded() == b ? (a / k).rounded() : a / k, accuracy: 1e-9 * max(1, a), path)
            XCTAssertEqual(b, a / k, accuracy: 0.5, path)
        }
        XCTAssertEqual(changed["population.devices"]?.1, 5000)
        XCTAssertEqual(changed["campaigns[1].sendRatePerMinute"]?.1, 6000)
        XCTAssertEqual(changed["infra.origin.workers"]?.1, 3, "32 / 10 rounds to 3")
        XCTAssertEqual(changed["providers.apns.streamsPerConnection"]?.1, 100)
        XCTAssertEqual(changed["slo[0].threshold"]?.1, 5)
        XCTAssertEqual(changed["analytics.capacityPerSecond"]?.1, 50)
        XCTAssertEqual(changed["analytics.queueMax"]?.1, 200, "the endpoint's queue is a fluid buffer: scaled with its capacity")
        // Kept: delays, the origin's queue, caches, the seed and the replications.
        XCTAssertEqual(pilot.world.infra.origin.queueMax, 128)
        XCTAssertEqual(pilot.world.infra.origin.serviceSeconds, full.world.infra.origin.serviceSeconds)
        XCTAssertEqual(pilot.world.infra.edgeCache, full.world.infra.edgeCache)
        XCTAssertEqual(pilot.run, full.run)
        XCTAssertEqual(changed["infra.topology.popCount"]?.1, 28)
        XCTAssertEqual(changed["infra.topology.shieldCount"]?.1, 1, "8 / 10 rounds to 1")
        // An explicit topology (regions listed) is kept whole; each region's shared bottleneck is
        // scaled instead, unshared networks (capacity 0) staying unshared.
        let explicit = try ScenarioLoader.decode(Data(Self.scenarioText.replacingOccurrences(
            of: #""infra": { "#, with: #""infra": { "topology": { "regions": [ { "popIndex": 0 }, { "popIndex": 1 } ] }, "#).utf8), label: "t")
        XCTAssertFalse(ScaledPilot.scalesTopology(explicit))
        let thinned = ScaledPilot(scale: 10).scenario(explicit)
        var explicitChanged: [String] = []
        let explicitBefore = try Self.tree(explicit), explicitAfter = try Self.tree(thinned)
        for (path, old) in explicitBefore where "\(old)" != "\(explicitAfter[path] ?? "")" { explicitChanged.append(general(path)) }
        XCTAssertEqual(Set(explicitChanged), Set(ScaledPilot.scaledFields + ScaledPilot.explicitTopologyFields + ["slo[*].threshold"]))
        XCTAssertEqual(thinned.world.infra.topology, explicit.world.infra.topology)
        let shared = zip(explicit.world.infra.networks.profiles, thinned.world.infra.networks.profiles).map { ($0.sharedCapacityBitsPerSecond, $1.sharedCapacityBitsPerSecond) }
        XCTAssertTrue(shared.contains { $0.0 == 0 && $0.1 == 0 }, "an unshared network (Wi-Fi) stays unshared")
        for (a, b) in shared { XCTAssertEqual(b, a / k, accuracy: 1e-9 * max(1, a)) }
        // Totals and intensive metrics.
        XCTAssertTrue(ScaledPilot.isTotal(metric: "origin.rejected503"))
        XCTAssertTrue(ScaledPilot.isTotal(metric: "origin.peakRequestsPerSecond"))
        XCTAssertFalse(ScaledPilot.isTotal(metric: "edge.prestageHitRatio"))
        XCTAssertFalse(ScaledPilot.isTotal(metric: "tapToPaint.p95Seconds"))
        XCTAssertFalse(ScaledPilot.isTotal(metric: "energy.joulesPerDevice"))
        // K and the pilot's size.
        XCTAssertNil(ScaledPilot.problem(scale: 50, devices: 50_000))
        XCTAssertNotNil(ScaledPilot.problem(scale: 51, devices: 50_000))
        XCTAssertNotNil(ScaledPilot.problem(scale: 1, devices: 50_000))
    }

    /// Deterministic objective "x ≤ threshold" (no noise: each verdict is exact).
    static func exact(_ threshold: Double, goal: PlanGoal) -> (Double, Int) -> SLOReport {
        let o = ServiceLevelObjective(metric: "m", op: goal == .maximize ? .atMost : .atLeast, threshold: threshold)
        return { x, n in SLOReport([o]) { _ in [Double](repeating: x, count: n) } }
    }

    /// Wherever the pilot puts the boundary (close, far below, far above, nothing or everything
    /// passing), the answer brackets the full-size boundary within the tolerance, as the search
    /// without a pilot does; a pilot close to it saves full-size evaluations, a wrong one is
    /// flagged as contradicted.
    func testThePilotNarrowsButFullSizeRunsDecideWhereverThePilotIsWrong() {
        for goal in [PlanGoal.maximize, .minimize] {
            let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: goal, tolerance: .relative(0.10),
                                    initialReplications: 2, maxReplications: 2)
            let truth = 37.3
            let plain = search.run(Self.exact(truth, goal: goal))
            for pilotBoundary in [36.0, 39.0, 2.0, 700.0, 0.5, 2000.0] {
                let r = search.runPiloted(scale: 10, pilot: Self.exact(pilotBoundary, goal: goal), full: Self.exact(truth, goal: goal))
                let label = "\(goal) pilot at \(pilotBoundary): \(r.evaluations.map(\.value))"
                XCTAssertEqual(r.answer.status, .boundary, label)
                guard let p = r.answer.lastPass, let q = r.answer.firstNotPassing else { XCTFail(label); continue }
                XCTAssertTrue(goal == .maximize ? (p <= truth && q > truth) : (p >= truth && q < truth), label)
                XCTAssertLessThanOrEqual(abs(q - p), 0.10 * p + 1e-9, label)
                let close = abs(log(pilotBoundary / truth)) < log(1.25)
                guard r.pilot.answer.status != .nonePass else {
                    // A pilot where nothing passes gives no bracket: the search without a pilot, value for value.
                    XCTAssertNil(r.pilot.passEdge, label)
                    XCTAssertFalse(r.pilot.contradicted, label)
                    XCTAssertEqual(r.evaluations.map(\.value), plain.evaluations.map(\.value), label)
                    continue
                }
                XCTAssertEqual(r.pilot.contradicted, !close, label)
                if close {
                    XCTAssertLessThan(r.evaluations.count, plain.evaluations.count, label)
                }
            }
        }
        // Everything passes at full size although the pilot saw a boundary: the far end is reached.
        let search = PlanSearch(lower: 1, upper: 1000, isInteger: false, goal: .maximize, tolerance: .relative(0.10),
                                initialReplications: 2, maxReplications: 2)
        let all = search.runPiloted(scale: 5, pilot: Self.exact(30, goal: .maximize), full: Self.exact(5000, goal: .maximize))
        XCTAssertEqual(all.answer.status, .allPass)
        XCTAssertTrue(all.pilot.contradicted)
        // Nothing passes at full size: said as without a pilot.
        let none = search.runPiloted(scale: 5, pilot: Self.exact(30, goal: .maximize), full: Self.exact(0.5, goal: .maximize))
        XCTAssertEqual(none.answer.status, .nonePass)
        // A pilot where everything passes, confirmed at full size, costs two full-size evaluations.
        let confirmed = search.runPiloted(scale: 5, pilot: Self.exact(5000, goal: .maximize), full: Self.exact(5000, goal: .maximize))
        XCTAssertEqual(confirmed.answer.status, .allPass)
        XCTAssertEqual(confirmed.evaluations.map(\.value), [800, 1000])
        XCTAssertFalse(confirmed.pilot.contradicted, "the far end passing is what the pilot foresaw")
    }
}
