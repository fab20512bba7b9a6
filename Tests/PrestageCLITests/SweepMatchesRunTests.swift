import Foundation
import XCTest
@testable import PrestageCLI

/// A sweep point simulates exactly the world `prestage run` does: every metric of each item equals
/// the run's value for the same scenario, seed and replication, also when the activity lies past
/// InfraModel's default one-hour series (the scenario format stretches those to the horizon).
final class SweepMatchesRunTests: XCTestCase {
    static let scenario = """
    { "name": "late-send", "question": "Does a send after the first hour look the same in a sweep?",
      "run": { "replications": 2, "seed": 5 }, "population": { "devices": 300, "iosShare": 1 }, "horizonSeconds": 5400,
      "campaigns": [ { "name": "c", "sendStartSeconds": 4000, "sendRatePerMinute": 60000, "providerQuotaPerMinute": 6000000,
                       "assets": [ { "name": "hero", "bytes": 40000 } ] } ] }
    """

    private func values(_ dir: String) throws -> [String: [Double]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/summary.json"))
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var out: [String: [Double]] = [:]
        for m in try XCTUnwrap(summary["metrics"] as? [[String: Any]]) {
            if let name = m["name"] as? String, let v = m["values"] as? [Double] { out[name] = v }
        }
        return out
    }

    func testEveryMetricOfASweepItemEqualsTheRunsValue() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("late-send.json", Self.scenario)
        let run = t.root.appendingPathComponent("run").path
        XCTAssertEqual(t.run(["run", file, "--out", run]), .ok, t.err.text)
        let sweep = try t.file("late.sweep.json", """
            { "scenario": "\(file)", "replications": 2, "seed": 5, "grid": { "campaigns[0].warm.aheadSeconds": [0] } }
            """)
        let out = t.root.appendingPathComponent("sweep").path
        XCTAssertEqual(t.run(["sweep", sweep, "--out", out]), .ok, t.err.text)
        let expected = try values(run)
        XCTAssertGreaterThan(expected["origin.peakRequestsPerSecond"]?.max() ?? 0, 0, "the late send reaches the origin")
        let tidy = try String(contentsOf: URL(fileURLWithPath: out + "/sweep.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        var compared = 0
        for line in tidy {
            let c = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // point, grid field, replication, seed, metric, value, unit
            guard let rep = Int(c[2]), let value = Double(c[5]), let want = expected[c[4]]?[rep] else { continue }
            // The CSV and summary.json print doubles through different formatters: equal to the last bit or two.
            XCTAssertEqual(value, want, accuracy: 1e-14 * max(1, abs(want)), "\(c[4]) replication \(rep): sweep \(value), run \(want)")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 100)
    }
}
