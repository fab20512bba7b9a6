import XCTest
@testable import LogFit
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat


/// The overlay fitted from the shipped samples applies to the default scenario, validates and runs.
final class OverlayTests: XCTestCase {
    static let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scenarios", isDirectory: true)

    func sampleOutcome() throws -> FitOutcome {
        var request = FitRequest(logs: [Samples.path("cloudfront.log.gz")], format: .cloudfront)
        request.pushLogs = [Samples.path("pushes.csv")]
        request.bootstrapReplicates = 5
        return try LogFitter.run(request)
    }

    func testSampleOverlayOnTheDefaultScenarioValidatesAndRuns() throws {
        let outcome = try sampleOutcome()
        let overlay = OverlayBuilder.build(outcome)
        XCTAssertEqual(overlay.set.keys.sorted(), [
            "campaigns[0].deliveryLatencySeconds", "infra.tiers.edgeProcessingSeconds", "infra.tiers.toOriginSeconds",
            "infra.topology.popOverrides", "infra.topology.regionNames", "infra.topology.regions", "population.iosShare", "population.networkMix",
            "uncertain.fitted", "users.segments[0].androidOpenProbability", "users.segments[0].iosOpenProbability", "users.tapDelaySeconds",
        ])
        let assignments = try overlay.assignments()
        XCTAssertEqual(assignments.map { String($0.prefix { $0 != "=" }) }, overlay.set.keys.sorted())
        let scenario = try ScenarioLoader.load("default", library: ScenarioLibrary(directories: [Self.scenarios]), set: assignments,
                                               flags: .init(devices: 300, replications: 1)).scenario
        XCTAssertEqual(scenario.world.users.tapDelaySeconds, overlay.set["users.tapDelaySeconds"].flatMap {
            if case let .distribution(d) = $0 { return d } else { return nil }
        })
        XCTAssertEqual(scenario.world.infra.topology.regions.map(\.popIndex), [0, 1, 2])
        // The fitted parameters' uncertainty travels with the overlay: one input per parameter,
        // centred on the estimate the overlay sets, and replications draw different worlds.
        let fitted = scenario.uncertain.fitted
        XCTAssertTrue(fitted.contains { $0.path == "population.iosShare" }, "\(fitted.map(\.path))")
        XCTAssertTrue(fitted.contains { $0.path.hasPrefix("infra.tiers.edgeProcessingSeconds.") }, "\(fitted.map(\.path))")
        if case let .normal(mean, _, lower?, upper?)? = fitted.first(where: { $0.path == "population.iosShare" })?.distribution {
            XCTAssertEqual(mean, scenario.world.population.iosShare)
            XCTAssertTrue(lower < mean && mean < upper)
        } else { XCTFail("population.iosShare: a bounded normal") }
        XCTAssertNotEqual(try scenario.world(replication: 0).population.iosShare, try scenario.world(replication: 1).population.iosShare)
        XCTAssertEqual(scenario.world.infra.topology.regions.map(\.audienceWeight), outcome.edge?.pops.map { Double($0.requests) })
        // Each region by its logged PoP's code; on a scenario that names its own regions, the overlay's names replace them.
        XCTAssertEqual(scenario.world.infra.topology.regionNames, outcome.edge?.pops.map(\.code))
        let named = try ScenarioLoader.load("black-friday-flash-sale", library: ScenarioLibrary(directories: [Self.scenarios]), set: assignments,
                                            flags: .init(devices: 300, replications: 1)).scenario
        XCTAssertEqual(named.world.infra.topology.regionNames, outcome.edge?.pops.map(\.code))
        XCTAssertEqual(named.world.infra.topology.popNames.count, named.world.infra.topology.popCount, "the scenario's PoP codes kept")
        let results = try ReplicationRunner(scenario: scenario, jobs: 1)
            .run(progress: ProgressBoard(output: CapturedOutput(), live: false, replications: 1, horizonSeconds: scenario.world.horizonSeconds))
        XCTAssertEqual(results.count, 1)
        XCTAssertNotNil(results[0].metric("edge.prestageHitRatio"))
    }

    func testOverlayFileRoundTripAndBadOverlays() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let overlay = OverlayBuilder.build(try sampleOutcome())
        let url = dir.url.appendingPathComponent("overlay.json")
        try overlay.encoded().write(to: url)
        XCTAssertEqual(try ScenarioOverlay.assignments(contentsOf: url.path), try overlay.assignments())
        XCTAssertEqual(try overlay.encoded(), try overlay.encoded())
        let cases: [(String, String)] = [
            ("{\"format\": \"other\", \"version\": 1, \"set\": {}}", "format: expected \"prestage-overlay\""),
            ("{\"format\": \"prestage-overlay\", \"version\": 2, \"set\": {}}", "version: expected 1"),
            ("{\"format\": \"prestage-overlay\", \"version\": 1, \"set\": {}, \"sett\": 1}", "unknown member \"sett\""),
            ("{\"format\": \"prestage-overlay\", \"version\": 1, \"set\": []}", "set: expected an object"),
            ("[1, 2", "expected a JSON object"),
        ]
        for (text, message) in cases {
            let path = try dir.file("bad.json", text)
            XCTAssertThrowsError(try ScenarioOverlay.assignments(contentsOf: path)) { e in
                XCTAssertTrue("\(e)".contains(path) && "\(e)".contains(message), "\(e)")
            }
        }
    }
}

/// Logged PoP codes made into region names the scenario format takes.
final class OverlayRegionNameTests: XCTestCase {
    func testCodesBecomeValidUniqueNames() {
        XCTAssertEqual(OverlayBuilder.regionNames(["IAD89-C1", "FRA56-P3"]), ["IAD89-C1", "FRA56-P3"])
        XCTAssertEqual(OverlayBuilder.regionNames(["-sea,19-", "SEA19", "SEA19"]), ["sea19", "SEA19", "SEA19-2"])
        XCTAssertNil(OverlayBuilder.regionNames(["IAD", "---"]), "a code that leaves nothing: no names")
        let long = String(repeating: "A", count: 50)
        XCTAssertEqual(OverlayBuilder.regionNames([long, long]), [String(repeating: "A", count: 40), String(repeating: "A", count: 38) + "-2"])
    }
}
