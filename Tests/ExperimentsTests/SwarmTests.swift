import Foundation
import XCTest
@testable import Experiments
@testable import ScenarioFormat

/// The model-level swarm: random small worlds drawn within the scenario readers' own ranges, run
/// through the scenario reader and the replication runner (on 1 and 2 threads) and checked
/// against the conservation laws; in the debug build the model's invariant checks run too.
final class SwarmTests: XCTestCase {
    /// The package's scenario library (the swarm's bases).
    static let library = ScenarioLibrary(directories: [
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scenarios", isDirectory: true),
    ])

    /// The library as it was when the regression worlds below were found: a world is drawn from
    /// its seed and the list of bases, so a scenario added to the library later changes the world
    /// a seed names. Links to those files, in a directory of their own.
    static let regressionLibrary: ScenarioLibrary = {
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scenarios", isDirectory: true)
        let names = ["background-pressure", "battery-cost", "black-friday-flash-sale", "black-friday-plan", "breaking-news-follow-up",
                     "calibration", "carousel-staggered-vs-collage", "creative-swap-purge", "default", "doze-heavy-android",
                     "payload-forms", "policy-budget-day", "receipt-storm", "send-rate-vs-origin", "shared-fcm-quota",
                     "sports-breaking-news", "stale-if-error-revalidation", "story-update-revalidation", "warm-ahead-sweep", "weekly-mix"]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-swarm-regression-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in names {
            let link = dir.appendingPathComponent(name + ".json")
            if !FileManager.default.fileExists(atPath: link.path) {
                try? FileManager.default.createSymbolicLink(at: link, withDestinationURL: scenarios.appendingPathComponent(name + ".json"))
            }
        }
        return ScenarioLibrary(directories: [dir])
    }()

    /// Worlds the suite runs: about 55 s of CPU in the debug build, so about 30 s on 2 idle cores
    /// and under 90 s on 2 shared ones (`make swarm` runs thousands).
    static let suiteWorlds = 200

    /// Runs the worlds of `seeds` on 2 threads and fails with one line per finding (each naming
    /// the command that regenerates its world).
    func assertLawsHold(seeds: [UInt64], library: ScenarioLibrary = SwarmTests.library, file: StaticString = #filePath, line: UInt = #line) throws {
        let reports = try Swarm(library: library).run(worldSeeds: seeds, threads: 2)
        XCTAssertEqual(reports.map(\.seed), seeds, file: file, line: line)
        let findings = reports.flatMap(\.findings)
        XCTAssertTrue(findings.isEmpty, findings.map(\.description).joined(separator: "\n"), file: file, line: line)
    }

    /// A few hundred small worlds from a fixed swarm seed: every law holds in every one.
    func testSwarmOfSmallWorlds() throws {
        let seeds = Swarm.worldSeeds(from: 20_261_202, count: Self.suiteWorlds)
        let start = Date()
        try assertLawsHold(seeds: seeds)
        print("SwarmTests: \(seeds.count) worlds in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
    }

    /// A world's seed regenerates exactly that world (what the printed reproduce command relies
    /// on), and world k + 1 of a swarm is the first world of the swarm started at its seed.
    func testWorldSeedRegeneratesItsWorld() throws {
        let swarm = try Swarm(library: Self.library)
        let seeds = Swarm.worldSeeds(from: 7, count: 3)
        XCTAssertEqual(seeds[0], 7)
        XCTAssertEqual(Swarm.worldSeeds(from: seeds[1], count: 2), Array(seeds[1...2]))
        for seed in seeds {
            let a = try swarm.world(seed: seed).get(), b = try swarm.world(seed: seed).get()
            XCTAssertEqual(a.document, b.document, "world \(seed)")
            XCTAssertEqual(a.scenario, b.scenario, "world \(seed)")
        }
        XCTAssertNotEqual(try swarm.world(seed: seeds[0]).get().document, try swarm.world(seed: seeds[1]).get().document)
    }

    /// The generator reads its ranges from the schema: a field it draws has the reader's range.
    func testSchemaRangesAreTheReaders() {
        let schema = SwarmSchema.scenario
        let sendRate = schema.range(at: SwarmPathComponent.parse("campaigns[3].sendRatePerMinute"))
        XCTAssertEqual(sendRate?.lower, 1)
        XCTAssertEqual(sendRate?.upper, 1e9)
        XCTAssertEqual(schema.range(at: SwarmPathComponent.parse("infra.topology.popCount"))?.integer, true)
        XCTAssertEqual(schema.range(at: SwarmPathComponent.parse("campaigns[0].creativeSwap.rewarmDelaySeconds"))?.upper, 3_600)
        XCTAssertEqual(schema.range(at: SwarmPathComponent.parse("infra.networks[\"2g\"].segmentLossProbability"))?.upperExclusive, true)
        XCTAssertEqual(schema.range(at: SwarmPathComponent.parse("campaigns[0].warm.mode"))?.choices,
                       ["none", "allPops", "topPops", "shieldsOnly"])
        XCTAssertNil(schema.range(at: SwarmPathComponent.parse("campaigns[0].noSuchField")))
    }

    // MARK: - Regressions: worlds the swarm found, each run exactly

    /// World 4691963726460400216: campaigns with a referenced manifest (`payloadForm`
    /// `manifestReference`) and the placeholder redirect on. The edge redirected the manifest
    /// request itself to the placeholder image, and the session driver handed PreloadKit an image
    /// where it had asked for its manifest: "PreloadKit session protocol error (driver bug)".
    func testPlaceholderNeverAnswersAReferencedManifest() throws {
        let seed: UInt64 = 4_691_963_726_460_400_216
        let world = try Swarm(library: Self.regressionLibrary).world(seed: seed).get()
        XCTAssertTrue(world.scenario.world.infra.placeholder.enabled, "the world still has what triggered it")
        XCTAssertTrue(world.scenario.world.campaigns.contains { $0.payloadForm == .manifestReference })
        try assertLawsHold(seeds: [seed], library: Self.regressionLibrary)
    }

    /// World 2406519232319986716: a referenced manifest whose signed token (43.6 s) expires before
    /// some devices fetch it. The driver answered that fetch with a 403 carrying no document (an
    /// origin 503 likewise), which PreloadKit refuses for a manifest fetch: the run stopped with
    /// "PreloadKit session protocol error (driver bug)".
    func testManifestErrorResponsesCarryADocument() throws {
        let seed: UInt64 = 2_406_519_232_319_986_716
        let world = try Swarm(library: Self.regressionLibrary).world(seed: seed).get()
        XCTAssertFalse(world.scenario.world.infra.placeholder.enabled, "the world still has what triggered it")
        XCTAssertTrue(world.scenario.world.campaigns.contains { $0.payloadForm == .manifestReference && $0.tokenLifetimeSeconds < 60 })
        try assertLawsHold(seeds: [seed], library: Self.regressionLibrary)
    }

    /// World 17963266367051468200: an Android WorkManager campaign with a referenced manifest
    /// whose signed expiry passed before its job ran. The message handler had shown the
    /// notification (and scheduled its tap); the job, refusing the expired payload, showed it again
    /// and scheduled a second tap: more taps than pushes sent, `reads.perPush` above 1.
    func testExpiredWorkManagerPushIsTappedOnce() throws {
        let seed: UInt64 = 17_963_266_367_051_468_200
        let world = try Swarm(library: Self.regressionLibrary).world(seed: seed).get()
        XCTAssertTrue(world.scenario.world.campaigns.contains { $0.androidHandler == .workManager }, "the world still has what triggered it")
        try assertLawsHold(seeds: [seed], library: Self.regressionLibrary)
    }
}
