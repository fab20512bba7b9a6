import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// The `energy` section and the `energy.*` metrics through `validate`, `run` and `plan`.
final class EnergyCommandTests: XCTestCase {
    static let world = """
      "population": { "devices": 300 },
      "campaigns": [ { "name": "c", "sendStartSeconds": 10, "assets": [ { "name": "hero", "bytes": 40000 } ] } ],
      "horizonSeconds": 300
    """

    /// An energy objective is accepted with the model on, refused (naming the switch) with it off;
    /// bad energy fields are reported at their path with what was expected.
    func testEnergyObjectivesAndFieldsAreValidated() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let slo = #""slo": [ { "metric": "energy.joulesPerPush", "op": "<=", "threshold": 2 }, { "metric": "energy.lte.joules", "op": "<=", "threshold": 1e6 } ]"#
        let on = try t.file("on.json", #"{ "name": "on", "question": "q", "energy": { "enabled": true }, \#(slo), \#(Self.world) }"#)
        XCTAssertEqual(t.run(["validate", on]), .ok, t.err.text)
        let off = try t.file("off.json", #"{ "name": "off", "question": "q", \#(slo), \#(Self.world) }"#)
        XCTAssertEqual(t.run(["validate", off]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric") && t.err.text.contains("energy.* metrics need"), t.err.text)
        for (energy, expected) in [
            (#"{ "enabled": true, "batteryCapacityWh": 0 }"#, "energy.batteryCapacityWh"),
            (#"{ "enabled": true, "fiveGMode": "mmwave" }"#, "energy.fiveGMode"),
            (#"{ "enabled": true, "profiles": { "edge": {} } }"#, "one of wifi, lte, 3g, 5g-nsa, 5g-sa"),
            (#"{ "enabled": true, "profiles": { "lte": { "tailSeconds": -1 } } }"#, "energy.profiles.lte.tailSeconds"),
        ] {
            let bad = try t.file("bad.json", #"{ "name": "bad", "question": "q", "energy": \#(energy), \#(Self.world) }"#)
            let before = t.err.text.count
            XCTAssertEqual(t.run(["validate", bad]), .badInput, energy)
            XCTAssertTrue(String(t.err.text.dropFirst(before)).contains(expected), "\(energy): \(t.err.text.dropFirst(before))")
        }
    }

    /// `run` evaluates an energy objective like any other; `plan` searches a knob against one:
    /// the largest hero asset whose pre-stage transfer energy stays within 0.3 J per push, every
    /// device on Wi-Fi (0.403 W while a fetch is open: 4 round trips of 28 ms plus 8·B bits at
    /// a median 20 Mbit/s, so 0.3 J is reached near B ≈ 1.6 MB, inside the range; the energy
    /// grows with the bytes, so the objective passes at the low end and fails at the high end).
    func testRunAndPlanTakeEnergyObjectives() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("energy-plan.json", #"""
        { "name": "energy-plan", "question": "Largest hero within 0.3 J of pre-stage transfer per push?",
          "run": { "replications": 2, "seed": 3 }, "energy": { "enabled": true },
          "slo": [ { "metric": "energy.background.transferJoulesPerPush", "op": "<=", "threshold": 0.3 } ],
          "population": { "devices": 300, "networkMix": { "wifi": 1, "5g": 0, "lte": 0, "4g": 0, "3g": 0, "2g": 0, "slow-2g": 0 } },
          "campaigns": [ { "name": "c", "sendStartSeconds": 10, "assets": [ { "name": "hero", "bytes": 40000 } ] } ],
          "horizonSeconds": 300 }
        """#)
        let run = t.root.appendingPathComponent("run").path
        XCTAssertEqual(t.run(["run", file, "--out", run]), .ok, t.err.text)
        let summary = try String(contentsOf: URL(fileURLWithPath: run + "/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("energy.background.transferJoulesPerPush") && summary.contains("\"verdict\""), summary)
        let out = t.root.appendingPathComponent("plan").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].assets[0].bytes=10000..3000000", "--tolerance", "50%", "--out", out]), .ok, t.err.text)
        let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")))
        let answer = try XCTUnwrap(document.frontier.first?.answer)
        XCTAssertEqual(answer.status, .boundary, t.out.text)
        let pass = try XCTUnwrap(answer.lastPass), fail = try XCTUnwrap(answer.firstNotPassing)
        XCTAssertLessThan(pass, fail)
    }
}
