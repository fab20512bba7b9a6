import Foundation
import PushModel
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

final class LibraryAndMemoryTests: XCTestCase {
    /// Every file in scenarios/ decodes strictly, so none can rot as the model's schema changes.
    func testEveryLibraryScenarioValidates() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let entries = library.entries()
        let required = ["default", "black-friday-flash-sale", "sports-breaking-news", "weekly-mix", "warm-ahead-sweep",
                        "send-rate-vs-origin", "creative-swap-purge", "carousel-staggered-vs-collage", "doze-heavy-android", "calibration",
                        "black-friday-plan", "receipt-storm", "background-pressure", "payload-forms", "breaking-news-follow-up",
                        "story-update-revalidation", "stale-if-error-revalidation", "policy-budget-day"]
        XCTAssertEqual(Set(required).subtracting(entries.map(\.name)), [], "missing library scenarios")
        for entry in entries {
            do {
                let (_, scenario) = try ScenarioLoader.load(entry.url.path, library: library)
                XCTAssertEqual(scenario.name, entry.name, "\(entry.url.path): name must match the file name")
                XCTAssertTrue(entry.readable)
            } catch {
                XCTFail("\(entry.url.path) does not validate:\n\(error)")
            }
        }
    }

    /// docs/cli.md's library table has a row for every library scenario, so a new scenario is
    /// documented where users look for it.
    func testEveryLibraryScenarioHasARowInTheCLIDocs() throws {
        let docs = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let entries = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios]).entries()
        XCTAssertFalse(entries.isEmpty)
        for entry in entries {
            XCTAssertTrue(docs.contains("| `\(entry.name)` |"), "docs/cli.md has no library row for \(entry.name)")
        }
    }

    func testBlackFridayIsFiveMillionDevices() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        let scenario = try ScenarioLoader.load("black-friday-flash-sale", library: library).scenario
        XCTAssertEqual(scenario.world.population.devices, 5_000_000)
        XCTAssertEqual(Set(scenario.world.campaigns[0].assets.map(\.type)), [.image, .json, .video])
    }

    func testListShowsEachScenarioWithItsQuestion() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"{"name":"b","question":"Second?"}"#.utf8).write(to: dir.appendingPathComponent("b.json"))
        try Data(#"{"name":"a","question":"First?"}"#.utf8).write(to: dir.appendingPathComponent("a.json"))
        try Data(#"{"name":"#.utf8).write(to: dir.appendingPathComponent("c.json"))
        try Data("not a scenario".utf8).write(to: dir.appendingPathComponent("README.txt"))
        let t = try TestEnvironment(scenarioDirectories: [dir])
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["list"]), .ok)
        let lines = t.out.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, t.out.text)
        XCTAssertTrue(lines[0].hasPrefix("scenario  devices  slo  cost"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("a ") && lines[1].hasSuffix("  First?"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("b ") && lines[2].hasSuffix("  Second?"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("c ") && lines[3].hasSuffix("  (not valid JSON; see prestage validate)"), lines[3])

        let empty = try TestEnvironment(scenarioDirectories: [dir.appendingPathComponent("none")])
        defer { empty.cleanUp() }
        XCTAssertEqual(empty.run(["list"]), .badInput)
    }

    func testListCoversTheRepositoryLibrary() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["list"]), .ok)
        let files = try FileManager.default.contentsOfDirectory(atPath: TestEnvironment.repositoryScenarios.path).filter { $0.hasSuffix(".json") }
        let lines = t.out.text.split(separator: "\n").map(String.init)
        // One row per scenario (its question wrapped onto indented lines), after the header.
        XCTAssertEqual(lines.filter { !$0.hasPrefix(" ") }.count, files.count + 1)
        XCTAssertLessThanOrEqual(lines.map(\.count).max() ?? 0, ListCommand.widthMax, "lines fit \(ListCommand.widthMax) columns")
        let flashSale = try XCTUnwrap(lines.first { $0.hasPrefix("black-friday-flash-sale ") })
        XCTAssertTrue(flashSale.contains(" 5,000,000    —  minutes  "), flashSale)
        let plan = try XCTUnwrap(lines.first { $0.hasPrefix("black-friday-plan ") })
        XCTAssertTrue(plan.contains(" 5,000,000    3  minutes  "), plan)
        let defaultRow = try XCTUnwrap(lines.first { $0.hasPrefix("default ") })
        XCTAssertTrue(defaultRow.contains(" 20,000    —  seconds  With the CDN warmed"), defaultRow)
    }

    func testMemAvailableParsing() {
        let meminfo = "MemTotal:       32768000 kB\nMemFree:         1000 kB\nMemAvailable:   23984048 kB\nBuffers: 1 kB\n"
        XCTAssertEqual(AvailableMemory.memAvailableBytes(inMeminfo: meminfo), 23_984_048 * 1024)
        XCTAssertNil(AvailableMemory.memAvailableBytes(inMeminfo: "MemTotal: 5 kB\n"))
        XCTAssertNil(AvailableMemory.memAvailableBytes(inMeminfo: "MemAvailable: lots kB\n"))
        XCTAssertGreaterThan(AvailableMemory.probe().bytes, 0)
    }

    func testEstimateGrowsByTheModelConstantsPerDeviceAndThread() {
        let model = MemoryModel()
        let one = MemoryInputs(devices: 1_000, pushesTargeted: 1_000, activeSessionsPeak: 100, horizonSeconds: 3_600,
                               replications: 4, concurrentReplications: 1)
        var more = one
        more.devices += 1_000_000
        XCTAssertEqual(MemoryEstimate(more).totalBytes - MemoryEstimate(one).totalBytes, 1_000_000 * model.bytesPerDevice)
        var twoThreads = one
        twoThreads.concurrentReplications = 2
        let perReplication = MemoryEstimate(one).totalBytes - model.processBaseBytes - MemoryEstimate(one).parts.last!.bytes
        XCTAssertEqual(MemoryEstimate(twoThreads).totalBytes - MemoryEstimate(one).totalBytes, perReplication)
        // More threads than replications cannot run at once.
        var manyThreads = one
        manyThreads.concurrentReplications = 64
        var fourThreads = one
        fourThreads.concurrentReplications = 4
        XCTAssertEqual(MemoryEstimate(manyThreads), MemoryEstimate(fourThreads))
    }

    func testMemoryGuardRefusesWithTheForceFlagAndExitsTwo() throws {
        let t = try TestEnvironment(availableBytes: 100 << 20)  // 100 MiB
        defer { t.cleanUp() }
        XCTAssertEqual(t.run(["run", "black-friday-flash-sale", "--replications", "2"]), .badInput)
        let text = t.err.text
        XCTAssertTrue(text.contains("refusing to run: the scenario needs about"), text)
        XCTAssertTrue(text.contains("but 100 MiB is available (test)"), text)
        XCTAssertTrue(text.contains("--force-memory"), text)
        XCTAssertTrue(text.contains("--jobs 1"), text)
        XCTAssertTrue(text.contains("5000000 devices"), text)
        // Nothing was started.
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent("results").path))
        XCTAssertEqual(MemoryGuard.formatBytes(100 << 20), "100 MiB")
        XCTAssertEqual(MemoryGuard.formatBytes(1536 << 20), "1.5 GiB")
    }
}
