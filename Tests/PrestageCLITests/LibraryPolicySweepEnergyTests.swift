import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// The library's policy sweep (`notebooks-export/sweeps/policy-tradeoff.json` over
/// `policy-budget-day`) runs with the radio energy model on, so its trade-off report draws the
/// joules panel, with a joules-per-device value for every decision kind.
final class LibraryPolicySweepEnergyTests: XCTestCase {
    func testLibraryPolicySweepReportHasJoulesPerDeviceForEveryPolicy() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let root = TestEnvironment.packageRoot
        let committed = try Data(contentsOf: root.appendingPathComponent("notebooks-export/sweeps/policy-tradeoff.json"))
        var sweep = try XCTUnwrap(JSONSerialization.jsonObject(with: committed) as? [String: Any])
        // The committed sweep (its grid, fixed settings and the library scenario as committed),
        // only smaller: 40 devices, one replication.
        sweep["scenario"] = root.appendingPathComponent("scenarios/policy-budget-day.json").path
        sweep["devices"] = 40
        sweep["replications"] = 1
        let file = try t.file("policy-tradeoff-small.json", String(decoding: try JSONSerialization.data(withJSONObject: sweep), as: UTF8.self))
        let out = t.root.appendingPathComponent("sweep")
        XCTAssertEqual(t.run(["sweep", file, "--out", out.path, "--jobs", "2", "--metrics", "energy.joulesPerDevice"]), .ok, t.err.text)

        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let markdown = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        XCTAssertTrue(html.contains("Policy trade-off (Pareto front)"))
        XCTAssertTrue(html.contains("Energy against waste"), "the joules panel")

        // The trade-off table: a number in the energy column on a row of every kind.
        let lines = markdown.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("|") && $0.contains("Energy (J / device)") }, markdown)
        func cells(_ line: String) -> [String] {
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let columns = cells(lines[header])
        let kindColumn = try XCTUnwrap(columns.firstIndex(of: "Kind"))
        let energyColumn = try XCTUnwrap(columns.firstIndex(of: "Energy (J / device)"))
        var joules: [String: [Double]] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let row = cells(line)
            guard row.count == columns.count else { continue }
            if let value = Double(row[energyColumn].replacingOccurrences(of: ",", with: "").replacingOccurrences(of: " ", with: "")) {
                joules[row[kindColumn], default: []].append(value)
            }
        }
        for kind in ["criticalOnly", "never", "threshold", "budgeted"] {
            let values = try XCTUnwrap(joules[kind], "no joules for \(kind) in\n\(markdown)")
            // Every kind spends something: `never` too (the foreground fetches at tap).
            XCTAssertTrue(values.allSatisfy { $0 > 0 && $0.isFinite }, "\(kind): \(values)")
        }

        // `never` pre-stages nothing, so none of its joules are background ones; criticalOnly's are.
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json"))) as? [String: Any])
        let points = try XCTUnwrap(summary["points"] as? [[String: Any]])
        func mean(_ point: [String: Any], _ name: String) -> Double? {
            (point["metrics"] as? [[String: Any]])?.first { $0["name"] as? String == name }?["mean"] as? Double
        }
        func kind(_ point: [String: Any]) -> String? {
            let values = point["values"] as? [String: Any]
            let value = values?["preloadPolicy.decision.kind"]
            return (value as? String) ?? ((value as? [String: Any])?.values.first as? String)
        }
        let never = points.filter { kind($0) == "never" }
        let critical = points.filter { kind($0) == "criticalOnly" }
        XCTAssertFalse(never.isEmpty || critical.isEmpty, "\(points.map { $0["values"] ?? "" })")
        for p in never { XCTAssertEqual(mean(p, "energy.background.joulesPerPush"), 0) }
        for p in critical { XCTAssertGreaterThan(try XCTUnwrap(mean(p, "energy.background.joulesPerPush")), 0) }
    }
}
