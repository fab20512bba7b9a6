import Foundation
import SimStats
import XCTest
@testable import Experiments
@testable import PrestageCLI
import PushModel
@testable import ScenarioFormat

final class RunCommandTests: XCTestCase {
    static let files = ["summary.json", "run-info.json", "scenario.json", "timeseries.csv", "tap-to-paint-windows.csv", "histograms.csv",
                        "pops.csv", "region-misses.csv", "report.md", "report.html", "bandwidth-pops.csv", "bandwidth-regions.csv"]

    /// `prestage run default` with a tiny population, in-process.
    private func runDefault(_ t: TestEnvironment, out: String, extra: [String] = []) -> ExitCode {
        t.run(["run", "default", "--devices", "150", "--replications", "3", "--out", t.root.appendingPathComponent(out).path] + extra)
    }

    func testRunDefaultWritesEveryFileAndASummaryWithConfidenceIntervals() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(runDefault(t, out: "a"), .ok, t.err.text)
        let dir = t.root.appendingPathComponent("a")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), Self.files.sorted())
        XCTAssertEqual(RunResults.earlierResults.files, Set(Self.files + ["campaigns.csv"]), "the files a later run may replace are exactly these (campaigns.csv: with two campaigns or more)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent(ResultsDirectory.incompleteMarkerName).path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + ".partial"))
        XCTAssertTrue(t.out.text.contains("report:  " + dir.appendingPathComponent("report.html").path), t.out.text)

        let summary = try JSONDecoder().decode(RunSummary.self, from: Data(contentsOf: dir.appendingPathComponent("summary.json")))
        XCTAssertEqual(summary.replications, 3)
        XCTAssertEqual(summary.seed, 1)
        XCTAssertEqual(summary.eventsProcessed.count, 3)
        XCTAssertFalse(summary.metrics.isEmpty)
        XCTAssertEqual(summary.metrics.map(\.name), summary.metrics.map(\.name).sorted())
        var withCI = 0
        for m in summary.metrics {
            XCTAssertEqual(m.values.count, 3, m.name)
            guard let values = m.finiteValues, let ci = m.confidenceInterval else { continue }
            withCI += 1
            // The interval is the t interval of the per-replication values: recompute it here from
            // the definition (mean ± t_{0.975,2} s/√3, t_{0.975,2} = 4.302653 from tables).
            let mean = values.reduce(0, +) / 3
            let s = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 2).squareRoot()
            XCTAssertEqual(ci.mean, mean, accuracy: 1e-9 * max(1, abs(mean)), m.name)
            XCTAssertEqual(ci.halfWidth, 4.302653 * s / 3.0.squareRoot(), accuracy: 1e-5 * max(1, ci.halfWidth), m.name)
            XCTAssertEqual(ci.n, 3)
        }
        XCTAssertGreaterThan(withCI, 10)
        // The resolved scenario is in summary.json, with the --devices override folded in, and
        // its hash is the SHA-256 of its canonical form.
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("summary.json"))) as? [String: Any]
        let population = (document?["scenario"] as? [String: Any])?["population"] as? [String: Any]
        XCTAssertEqual(population?["devices"] as? Int, 150)
        let resolved = try ScenarioLoader.decode(Data(contentsOf: dir.appendingPathComponent("scenario.json")), label: "scenario.json")
        XCTAssertEqual(try resolved.hash(), summary.scenarioHash)
        XCTAssertEqual(resolved.world.population.devices, 150)
        // CSVs: a header and one row per second of the horizon; histogram rows have 6 fields.
        let series = try String(contentsOf: dir.appendingPathComponent("timeseries.csv"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(series.first, "second,pushesSent,deliveries,prestageEdgeRequests,prestageEdgeHits,originRequests,origin503,taps,paints,edgeBytes,shieldBytes,originBytes,prestageEdgeHitRatio")
        XCTAssertEqual(series.count, 1 + Int(resolved.world.horizonSeconds))
        let histograms = try String(contentsOf: dir.appendingPathComponent("histograms.csv"), encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(histograms.count, 1)
        XCTAssertTrue(histograms.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 6 })
        let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("<svg") && html.contains("Tap to paint") && html.contains("Edge hit ratio"))
        XCTAssertFalse(html.contains("<script src") || html.contains("<link "), "report.html must be self-contained")
    }

    /// `--out` naming a directory that is not earlier results is refused before the run, and
    /// nothing in it is touched; earlier results are replaced.
    func testOutThatIsNotEarlierResultsIsRefusedAndKept() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let project = t.root.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: project.appendingPathComponent("Sources"), withIntermediateDirectories: true)
        try Data("// keep".utf8).write(to: project.appendingPathComponent("Package.swift"))
        XCTAssertEqual(runDefault(t, out: "project"), .badInput)
        XCTAssertTrue(t.err.text.contains("\(project.path): cannot replace: it is not earlier results: it holds \"Package.swift\", \"Sources\", which a run does not write"), t.err.text)
        XCTAssertFalse(t.err.text.contains("replication(s)"), "refused before the run started")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: project.path).sorted(), ["Package.swift", "Sources"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: project.path + ".partial"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent(".project.lock").path),
                       "a refused --out leaves no lock file beside the user's directory")

        // A symbolic link, here one pointing nowhere, is refused the same way and left as it is.
        let link = t.root.appendingPathComponent("linked")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: t.root.appendingPathComponent("nowhere").path)
        XCTAssertEqual(runDefault(t, out: "linked"), .badInput)
        XCTAssertTrue(t.err.text.contains("\(link.path): cannot replace: it is a symbolic link"), t.err.text)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), t.root.appendingPathComponent("nowhere").path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent(".linked.lock").path))

        XCTAssertEqual(runDefault(t, out: "a"), .ok, t.err.text)
        XCTAssertEqual(runDefault(t, out: "a", extra: ["--seed", "2"]), .ok, t.err.text)
        let summary = try JSONDecoder().decode(RunSummary.self, from: Data(contentsOf: t.root.appendingPathComponent("a/summary.json")))
        XCTAssertEqual(summary.seed, 2, "earlier results are replaced")
    }

    /// Same scenario and seed → byte-identical summary, series, histograms and reports, whatever
    /// the thread count (results are collected by replication index).
    func testTwoRunsAreByteIdenticalAcrossThreadCounts() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(runDefault(t, out: "one", extra: ["--jobs", "1"]), .ok, t.err.text)
        XCTAssertEqual(runDefault(t, out: "two", extra: ["--jobs", "2"]), .ok, t.err.text)
        for f in ["summary.json", "scenario.json", "timeseries.csv", "histograms.csv", "pops.csv", "region-misses.csv", "report.md", "report.html"] {
            let a = try Data(contentsOf: t.root.appendingPathComponent("one").appendingPathComponent(f))
            let b = try Data(contentsOf: t.root.appendingPathComponent("two").appendingPathComponent(f))
            XCTAssertEqual(a, b, "\(f) differs between --jobs 1 and --jobs 2 (seed 1)")
        }
        // The machine-dependent file records the thread count.
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: t.root.appendingPathComponent("two/run-info.json"))) as? [String: Any]
        XCTAssertEqual(info?["jobs"] as? Int, 2)
    }

    func testCompareUsesPairedDifferencesForSameSeedAndWelchOtherwise() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        XCTAssertEqual(runDefault(t, out: "base"), .ok, t.err.text)
        XCTAssertEqual(runDefault(t, out: "cold", extra: ["--set", "campaigns[0].warm.mode=\"none\""]), .ok, t.err.text)
        XCTAssertEqual(runDefault(t, out: "seed2", extra: ["--seed", "2"]), .ok, t.err.text)
        let base = t.root.appendingPathComponent("base").path
        let before = t.out.text.count
        XCTAssertEqual(t.run(["compare", base, t.root.appendingPathComponent("cold").path]), .ok, t.err.text)
        let paired = String(t.out.text.dropFirst(before))
        XCTAssertTrue(paired.contains("paired differences over common random numbers"), paired)
        XCTAssertTrue(paired.contains("tapToPaint.p50Seconds"), paired)
        let mid = t.out.text.count
        XCTAssertEqual(t.run(["compare", base, t.root.appendingPathComponent("seed2").path]), .ok, t.err.text)
        XCTAssertTrue(String(t.out.text.dropFirst(mid)).contains("Welch"), t.out.text)
    }

    func testCompareRefusesIncompleteAndMissingDirectories() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        // An interrupted run: the directory was begun and partly written but never committed.
        let partial = try ResultsDirectory.begin(in: t.root, name: "cut")
        try partial.write(Data("{}".utf8), named: "scenario.json")
        RunCommand.markIncomplete(partial, reason: "It was interrupted (SIGINT); these are partial results.")
        let marker = try String(contentsOf: partial.partialURL.appendingPathComponent("INCOMPLETE"), encoding: .utf8)
        XCTAssertTrue(marker.contains("interrupted"), marker)
        XCTAssertEqual(t.run(["compare", partial.finalURL.path, partial.finalURL.path]), .badInput)
        XCTAssertTrue(t.err.text.contains("did not complete"), t.err.text)
        XCTAssertEqual(t.run(["compare", partial.partialURL.path, t.root.appendingPathComponent("nothing").path]), .badInput)
        XCTAssertTrue(t.err.text.contains("INCOMPLETE marker"), t.err.text)
        XCTAssertTrue(t.err.text.contains("nothing: expected a result directory, found nothing"), t.err.text)
        // Once its owner is gone, a rerun to the same place replaces the marked leftover and completes.
        partial.lock.release()
        XCTAssertEqual(t.run(["run", "default", "--devices", "50", "--replications", "2", "--out", partial.finalURL.path]), .ok, t.err.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.partialURL.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.finalURL.appendingPathComponent("summary.json").path))
    }
}

final class ProgressBoardTests: XCTestCase {
    func testNonTerminalProgressIsOneLinePerReplication() {
        let out = CapturedOutput()
        let board = ProgressBoard(output: out, live: false, replications: 3, horizonSeconds: 100)
        for r in [1, 0, 2] {
            board.started(replication: r)
            board.update(replication: r, ProgressReport(virtualSeconds: 50, horizonSeconds: 100, eventsProcessed: 10, pendingEvents: 5, pushesSent: 1, pushesPlanned: 2))
            board.finished(replication: r, eventsProcessed: 20, virtualSeconds: 100)
        }
        board.finish()
        let lines = out.text.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, out.text)
        XCTAssertTrue(lines[0].hasPrefix("replication 2/3 done: 20 events, 100 s virtual (1/3 complete"), out.text)
        XCTAssertFalse(out.text.contains("\r"))
    }

    /// Off a terminal, a replication that runs long still gets a line from the heartbeat (the
    /// timer calls `beat`), whatever the run's size; nothing when no replication is running.
    func testSlowRunsGetStillRunningLines() {
        let out = CapturedOutput()
        let board = ProgressBoard(output: out, live: false, replications: 2, horizonSeconds: 100)
        board.beat(now: DispatchTime.now().uptimeNanoseconds)
        XCTAssertEqual(out.text, "")
        board.started(replication: 0)
        // Before its first push a replication has no forecast: 0 %, not its share of virtual time.
        board.update(replication: 0, ProgressReport(virtualSeconds: 25, horizonSeconds: 100, eventsProcessed: 1_000, pendingEvents: 10,
                                                    pushesSent: 0, pushesPlanned: 4))
        board.beat(now: DispatchTime.now().uptimeNanoseconds)
        XCTAssertTrue(out.text.hasPrefix("still running: [........................] 0% · "), out.text)
        XCTAssertFalse(out.text.contains("ETA"), out.text)
        XCTAssertTrue(out.text.contains(" elapsed · 0/2 replications · "), out.text)
        XCTAssertTrue(out.text.hasSuffix("\n"))
        board.finish()
    }

    func testTerminalProgressRedrawsOneLiveLine() {
        let out = CapturedOutput()
        let board = ProgressBoard(output: out, live: true, replications: 2, horizonSeconds: 100, columns: { 200 })
        board.started(replication: 0)
        // 1 000 events done, 500 pending, half the pushes sent with no background: 3 000 expected
        // for this replication and (the mean) for the other: a sixth of the work.
        board.update(replication: 0, ProgressReport(virtualSeconds: 50, horizonSeconds: 100, eventsProcessed: 1_000, pendingEvents: 500,
                                                    pushesSent: 5, pushesPlanned: 10))
        board.finished(replication: 0, eventsProcessed: 2_000, virtualSeconds: 100)
        board.finish()
        XCTAssertTrue(out.text.hasPrefix("\r[####....................] 16% · 0:"), out.text)
        XCTAssertTrue(out.text.contains(" elapsed · 0/2 replications · "), out.text)
        XCTAssertTrue(out.text.contains("\r[############............] 50% · "), "one of two replications done: half the work")
        XCTAssertTrue(out.text.contains(" elapsed · 1/2 replications · "), out.text)
        XCTAssertTrue(out.text.hasSuffix("\n"))
        XCTAssertEqual(out.text.filter { $0 == "\n" }.count, 1, "one line, redrawn in place")
    }
}
