import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

final class ValidateAndOverrideTests: XCTestCase {
    func testValidateReportsSeveralProblemsInOnePassWithPathsFoundAndExpected() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let bad = try t.file("bad.json", """
        { "name": "flash", "question": "Does it break?",
          "run": { "replications": 0, "seeed": 3 },
          "population": { "devices": -5, "iosShare": "half" },
          "campaigns": [ { "warm": { "aheadSeconds": "ten" }, "sendRatPerMinute": 5 } ],
          "horizonSecs": 100 }
        """)
        XCTAssertEqual(t.run(["validate", bad]), .badInput)
        let lines = t.err.text.split(separator: "\n").map(String.init)
        func line(_ path: String) -> String? { lines.first { $0.hasPrefix(bad + ": " + path + ": ") } }
        // Each problem names its path, what was found and what was expected.
        XCTAssertEqual(line("campaigns[0].warm.aheadSeconds"), bad + ": campaigns[0].warm.aheadSeconds: expected a number, found \"ten\"")
        XCTAssertEqual(line("population.devices"), bad + ": population.devices: expected an integer in 1...50000000, found -5")
        XCTAssertEqual(line("population.iosShare"), bad + ": population.iosShare: expected a number, found \"half\"")
        XCTAssertEqual(line("run.replications"), bad + ": run.replications: expected an integer in 1...10000, found 0")
        // Unknown keys at three depths, each with the closest known key.
        XCTAssertEqual(line("run.seeed"), bad + ": run.seeed: unknown key \"seeed\"; did you mean \"seed\"?")
        XCTAssertEqual(line("horizonSecs"), bad + ": horizonSecs: unknown key \"horizonSecs\"; did you mean \"horizonSeconds\"?")
        XCTAssertEqual(line("campaigns[0].sendRatPerMinute"),
                       bad + ": campaigns[0].sendRatPerMinute: unknown key \"sendRatPerMinute\"; did you mean \"sendRatePerMinute\"?")
        XCTAssertTrue(lines.contains(bad + ": 7 problems"), t.err.text)
        XCTAssertTrue(t.out.text.isEmpty)
    }

    func testNameQuestionAndWorldProblemsAreReportedTogether() throws {
        let data = Data(#"{ "name": "two words", "question": "line one\nline two", "notes": [""], "campaigns": [ { "name": "a" }, { "name": "a" } ] }"#.utf8)
        XCTAssertThrowsError(try ScenarioLoader.decode(data, label: "m.json")) { error in
            let lines = (error as? ScenarioLoadError)?.description.split(separator: "\n").map(String.init) ?? []
            XCTAssertEqual(lines, [
                "m.json: campaigns: expected distinct campaign names, found [\"a\", \"a\"]",
                "m.json: name: expected 1–64 characters from [A-Za-z0-9._-] not starting with \".\", found \"two words\"",
                "m.json: notes: expected at most 50 lines of 1–500 characters, found 1 lines (longest 0)",
                "m.json: question: expected one line of 1–200 characters, found \"line one\\nline two\"",
            ])
        }
    }

    func testValidateChecksEveryFileAndNamesTheBadOnes() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let good = try t.file("good.json", #"{ "name": "small", "question": "Is {} plus a name a valid scenario?" }"#)
        let noQuestion = try t.file("noq.json", #"{ "name": "x" }"#)
        let notJSON = try t.file("broken.json", #"{ "name": "x", "#)
        XCTAssertEqual(t.run(["validate", good, noQuestion, notJSON]), .badInput)
        XCTAssertTrue(t.out.text.contains(good + ": ok (small: Is {} plus a name a valid scenario?)"), t.out.text)
        XCTAssertTrue(t.err.text.contains(noQuestion + ": question: missing required key \"question\""), t.err.text)
        XCTAssertTrue(t.err.text.contains(notJSON + ": "), t.err.text)
        XCTAssertTrue(t.err.text.contains("2 of 3 files invalid"), t.err.text)
        XCTAssertEqual(t.run(["validate", good]), .ok)
    }

    func testMissingOrMistypedScenarioNamesSuggestTheClosest() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["validate", "defualt"]), .badInput)
        XCTAssertTrue(t.err.text.contains("did you mean \"default\"?"), t.err.text)
        XCTAssertEqual(t.run(["validate", "/no/such/file.json"]), .badInput)
        XCTAssertTrue(t.err.text.contains("/no/such/file.json: expected a scenario file, found nothing"), t.err.text)
    }

    func testSetOverridesAndFlagShortcuts() throws {
        let data = Data(#"{ "name": "o", "question": "q?", "run": { "devices": 300 }, "population": { "devices": 10 } }"#.utf8)
        let plain = try ScenarioLoader.decode(data, label: "o.json")
        // run.devices wins over population.devices and is folded into it.
        XCTAssertEqual(plain.world.population.devices, 300)
        XCTAssertNil(plain.run.devices)

        let changed = try ScenarioLoader.decode(data, label: "o.json", set: [
            "campaigns[0].warm.aheadSeconds=120", "campaigns[0].warm.mode=\"topPops\"", "horizonSeconds=1800",
        ], flags: .init(devices: 1234, seed: UInt64.max, replications: 7))
        XCTAssertEqual(changed.world.campaigns[0].warm.aheadSeconds, 120)
        XCTAssertEqual(changed.world.campaigns[0].warm.mode, .topPops)
        XCTAssertEqual(changed.world.horizonSeconds, 1800)
        XCTAssertEqual(changed.world.population.devices, 1234)
        XCTAssertEqual(changed.run.seed, UInt64.max)
        XCTAssertEqual(changed.run.replications, 7)
    }

    func testBadOverridesAreReportedLikeFileProblems() throws {
        let data = Data(#"{ "name": "o", "question": "q?" }"#.utf8)
        XCTAssertThrowsError(try ScenarioLoader.decode(data, label: "o.json", set: ["campaigns[0].warm.aheadSeconds=\"ten\""])) { error in
            XCTAssertEqual((error as? ScenarioLoadError)?.description,
                           "o.json: campaigns[0].warm.aheadSeconds: expected a number, found \"ten\"")
        }
        XCTAssertThrowsError(try ScenarioLoader.decode(data, label: "o.json", set: ["campaigns[0].warmAheadSeconds=600"])) { error in
            XCTAssertEqual((error as? ScenarioLoadError)?.description,
                           "o.json: campaigns[0].warmAheadSeconds: unknown key \"warmAheadSeconds\"; did you mean \"warm.aheadSeconds\"?")
        }
        // A mistyped override of a field the defaults fill in still gets a suggestion.
        XCTAssertThrowsError(try ScenarioLoader.decode(data, label: "o.json", set: ["campaigns[0].sendRatPerMinute=5"])) { error in
            XCTAssertEqual((error as? ScenarioLoadError)?.description,
                           "o.json: campaigns[0].sendRatPerMinute: unknown key \"sendRatPerMinute\"; did you mean \"sendRatePerMinute\"?")
        }
        XCTAssertThrowsError(try ScenarioLoader.decode(data, label: "o.json", set: ["campaigns[3].name=x", "novalue"])) { error in
            let diagnostics = (error as? ScenarioLoadError)?.diagnostics ?? []
            XCTAssertEqual(diagnostics.count, 2, "\(diagnostics)")
            XCTAssertTrue(diagnostics.allSatisfy { $0.kind == .override }, "\(diagnostics)")
        }
        XCTAssertThrowsError(try ScenarioLoader.decode(data, label: "o.json", flags: .init(devices: 0)))
    }

    func testCommandLineErrorsExitTwoAndSuggest() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["rn", "default"]), .badInput)
        XCTAssertTrue(t.err.text.contains("unknown command \"rn\"; did you mean \"run\"?"), t.err.text)
        XCTAssertEqual(t.run(["run", "default", "--replicatons", "3"]), .badInput)
        XCTAssertTrue(t.err.text.contains("run: unknown option --replicatons; did you mean --replications?"), t.err.text)
        XCTAssertEqual(t.run(["run", "default", "--devices", "many"]), .badInput)
        XCTAssertTrue(t.err.text.contains("--devices: expected an integer in 1...50000000, found \"many\""), t.err.text)
        XCTAssertEqual(t.run(["compare", "onlyone"]), .badInput)
        XCTAssertEqual(t.run([]), .badInput)
    }

    func testHelpOnEveryCommandDocumentsExitCodesAndVersion() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        for command in [[], ["run"], ["validate"], ["compare"], ["list"]] {
            let before = t.out.text.count
            XCTAssertEqual(t.run(command + ["--help"]), .ok)
            let text = String(t.out.text.dropFirst(before))
            XCTAssertTrue(text.contains("exit codes:") && text.contains("\n  2    "), "help for \(command): \(text)")
        }
        XCTAssertEqual(t.run(["--version"]), .ok)
        XCTAssertTrue(t.out.text.contains("prestage \(ToolVersion.number)"))
    }
}
