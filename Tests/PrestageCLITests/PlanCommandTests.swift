import Foundation
import ReportKit
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// `prestage plan` and the `slo` section end to end on a tiny world.
final class PlanCommandTests: XCTestCase {
    /// A small cold CDN whose cache key holds the signed token (every pre-stage fetch reaches the
    /// origin), with a 4-worker origin and a short queue: the 503 onset lies inside the range.
    static let scenario = """
    { "name": "plan-tiny", "question": "Highest send rate with no origin 503?",
      "run": { "replications": 2, "seed": 5 }, "population": { "devices": 600 },
      "slo": [ { "metric": "origin.rejected503", "op": "<=", "threshold": 0, "probability": 0.5, "confidence": 0.5 } ],
      "campaigns": [ { "name": "c", "sendStartSeconds": 10, "sendRatePerMinute": 6000, "providerQuotaPerMinute": 6000000,
                       "warm": { "mode": "none" }, "assets": [ { "name": "hero", "bytes": 40000 } ] } ],
      "infra": { "cacheKeyIncludesSignedToken": true, "origin": { "workers": 4, "queueMax": 16 } },
      "horizonSeconds": 300 }
    """

    func testPlanFindsABoundaryWritesItsFilesAndAReRunReusesEveryReplication() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", Self.scenario)
        let out = t.root.appendingPathComponent("plan").path
        let args = ["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "25%",
                    "--replications-max", "4", "--out", out]
        XCTAssertEqual(t.run(args), .ok, t.err.text)
        for name in ["plan.json", "plan.csv", "plan.md", "plan.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), name)
        }
        let first = try Data(contentsOf: URL(fileURLWithPath: out + "/plan.json"))
        let document = try JSONDecoder().decode(PlanDocument.self, from: first)
        let answer = try XCTUnwrap(document.frontier.first?.answer)
        XCTAssertEqual(answer.status, .boundary, t.out.text)
        let pass = try XCTUnwrap(answer.lastPass), fail = try XCTUnwrap(answer.firstNotPassing)
        XCTAssertLessThan(pass, fail)
        XCTAssertLessThanOrEqual(fail - pass, 0.25 * pass + 1e-9)
        // Every evaluation at the last passing value passed; at the first failing one it did not.
        let evaluations = try XCTUnwrap(document.frontier.first?.evaluations)
        XCTAssertEqual(evaluations.first { $0.value == pass }?.verdict, .pass)
        XCTAssertNotEqual(evaluations.first { $0.value == fail }?.verdict, .pass)
        // A rerun reads every replication back and writes the same plan.
        let t2 = try TestEnvironment()
        defer { t2.cleanUp() }
        XCTAssertEqual(t2.run(args), .ok, t2.err.text)
        XCTAssertTrue(t2.out.text.contains("(0 run now"), t2.out.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")), first)
    }

    /// The cluster path: each step written as a sweep file, run as two shards, merged, ingested;
    /// the plan it ends with is byte-identical to the one run locally.
    /// With `--provisional-midpoints` too (on a chance constraint needing 8 clean replications, so
    /// values steer provisionally), where the steps ask for the first replications, then the top-ups.
    func testEmitSweepAndIngestReachTheSamePlanAsALocalRun() throws {
        let chance = Self.scenario.replacingOccurrences(of: #""probability": 0.5, "confidence": 0.5"#, with: #""probability": 0.8, "confidence": 0.8"#)
        for (text, extra) in [(Self.scenario, ["--replications-max", "4"]), (chance, ["--provisional-midpoints"])] {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", text)
        let args = ["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "25%"] + extra
        let local = t.root.appendingPathComponent("local").path, cluster = t.root.appendingPathComponent("cluster").path
        XCTAssertEqual(t.run(args + ["--out", local]), .ok, t.err.text)
        let step = t.root.appendingPathComponent("step.json").path
        var steps = 0
        var ingest: [String] = []
        while true {
            let before = t.out.text.count
            XCTAssertEqual(t.run(args + ["--out", cluster, "--emit-sweep", step] + ingest), .ok, t.err.text)
            guard String(t.out.text.dropFirst(before)).contains("next step") else { break }
            steps += 1
            XCTAssertLessThan(steps, 30, "the plan converges")
            if steps >= 30 { return }
            let s0 = t.root.appendingPathComponent("s\(steps)-0").path, s1 = t.root.appendingPathComponent("s\(steps)-1").path
            let merged = t.root.appendingPathComponent("m\(steps)").path
            XCTAssertEqual(t.run(["sweep", step, "--shard", "0/2", "--out", s0]), .ok, t.err.text)
            XCTAssertEqual(t.run(["sweep", step, "--shard", "1/2", "--out", s1]), .ok, t.err.text)
            XCTAssertEqual(t.run(["merge", s0, s1, "--out", merged]), .ok, t.err.text)
            ingest = ["--ingest", merged]
        }
        XCTAssertGreaterThan(steps, 2, "\(extra)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cluster + "/plan.json")),
                       try Data(contentsOf: URL(fileURLWithPath: local + "/plan.json")), "\(extra)")
        if extra.contains("--provisional-midpoints") {
            let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: cluster + "/plan.json")))
            XCTAssertTrue(document.frontier.flatMap(\.evaluations).contains { $0.provisional != nil }, "some value steered provisionally")
        }
        }
    }

    /// The charts of plan.html and plan.md put the knob on the horizontal axis as its path and its
    /// unit (they once said "Virtual time (s)" whatever the knob): pushes/min for a send rate, s for
    /// a duration, count for an integer count, bytes scaled for people for a cache size.
    func testPlanChartsLabelTheKnobAxisWithItsPathAndUnit() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", Self.scenario)
        let out = t.root.appendingPathComponent("plan").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "50%",
                              "--replications-max", "2", "--out", out]), .ok, t.err.text)
        let html = try String(contentsOfFile: out + "/plan.html", encoding: .utf8)
        let markdown = try String(contentsOfFile: out + "/plan.md", encoding: .utf8)
        // Markdown escapes the brackets of the path.
        func escaped(_ s: String) -> String { s.replacingOccurrences(of: "[", with: "\\[").replacingOccurrences(of: "]", with: "\\]") }
        XCTAssertTrue(html.contains("campaigns[0].sendRatePerMinute (pushes/min)"), html)
        XCTAssertTrue(markdown.contains(escaped("campaigns[0].sendRatePerMinute (pushes/min)")), markdown)
        for text in [html, markdown] {
            XCTAssertFalse(text.contains("Virtual time") || text.contains("Peak at (s)"), text)
        }
        // The same evaluations as if another knob had been varied.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json"))) as? [String: Any])
        for (path, isInteger, title) in [("infra.edgeCache.capacityBytes", true, "infra.edgeCache.capacityBytes (kB)"),
                                         ("campaigns[0].warm.aheadSeconds", false, "campaigns[0].warm.aheadSeconds (s)"),
                                         ("infra.origin.workers", true, "infra.origin.workers (count)")] {
            var edited = json, knob = try XCTUnwrap(json["knob"] as? [String: Any])
            knob["path"] = path
            knob["isInteger"] = isInteger
            edited["knob"] = knob
            let document = try JSONDecoder().decode(PlanDocument.self, from: JSONSerialization.data(withJSONObject: edited))
            let html = HTMLRenderer().render(document.report), markdown = MarkdownRenderer().render(document.report)
            XCTAssertTrue(html.contains(title) && markdown.contains(escaped(title)), "\(path): \(markdown)")
        }
    }

    /// `--for-trend better` along the origin's workers (more workers never add 503s): the second
    /// value's search carries the first one's last pass instead of running it, reaches the same
    /// answer with fewer replications, and the plan says what it carried and on whose word.
    func testForTrendCarriesTheLastPassAndSaysSo() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", Self.scenario)
        let args = ["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "25%",
                    "--replications-max", "4", "--for", "infra.origin.workers=4,8"]
        let plain = t.root.appendingPathComponent("plain").path, trend = t.root.appendingPathComponent("trend").path
        XCTAssertEqual(t.run(args + ["--out", plain]), .ok, t.err.text)
        XCTAssertEqual(t.run(args + ["--for-trend", "better", "--out", trend]), .ok, t.err.text)
        let a = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: plain + "/plan.json")))
        let b = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: trend + "/plan.json")))
        XCTAssertNil(a.forTrend)
        XCTAssertEqual(b.forTrend, .better)
        XCTAssertEqual(b.frontier.map(\.answer), a.frontier.map(\.answer))
        let carried = b.frontier[1].evaluations.filter { $0.carriedFrom != nil }
        XCTAssertEqual(carried.map(\.value), [try XCTUnwrap(a.frontier[0].answer.lastPass)])
        XCTAssertEqual(carried.first?.carriedFrom, 4)
        XCTAssertTrue(b.frontier[0].evaluations.allSatisfy { $0.carriedFrom == nil }, "nothing carries into the first value")
        XCTAssertLessThan(b.frontier[1].replicationsUsed, a.frontier[1].replicationsUsed)
        XCTAssertEqual(b.frontier[1].replicationsUsed, b.frontier[1].evaluations.filter { $0.carriedFrom == nil }.reduce(0) { $0 + $1.replications })
        let csv = try String(contentsOfFile: trend + "/plan.csv", encoding: .utf8)
        XCTAssertTrue(csv.hasPrefix("for,value,replications,verdict,carried from,"), csv)
        XCTAssertFalse(try String(contentsOfFile: plain + "/plan.csv", encoding: .utf8).contains("carried from"))
        let md = try String(contentsOfFile: trend + "/plan.md", encoding: .utf8)
        XCTAssertTrue(md.contains("Stated, not checked: the objectives get no worse as infra.origin.workers grows (--for-trend better). 1 verdict carried"), md)
        XCTAssertTrue(md.contains("carried from infra.origin.workers=4"), md)
        for (extra, message) in [(["--for-trend", "up"], "--for-trend: expected better or worse, found \"up\""),
                                 (["--for-trend", "better", "--no-carry"], "--for-trend: carries verdicts from the previous --for value; --no-carry asks for none")] {
            let before = t.err.text.count
            XCTAssertEqual(t.run(args + extra + ["--out", t.root.appendingPathComponent("x").path]), .badInput, "\(extra)")
            XCTAssertTrue(String(t.err.text.dropFirst(before)).contains(message), "\(extra): \(t.err.text.dropFirst(before))")
        }
        let before = t.err.text.count
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--for-trend", "better",
                              "--out", t.root.appendingPathComponent("y").path]), .badInput)
        XCTAssertTrue(String(t.err.text.dropFirst(before)).contains("--for-trend: needs --for"), t.err.text)
    }

    /// `--provisional-midpoints` with `--for` and `--for-trend better`, on a chance constraint that
    /// needs 8 clean replications to pass (q = 0.8 at 80 %: 0.8^8 < 0.2 ≤ 0.8^7): every answer's last
    /// pass is proven on at least 8, the answers bracket the same boundary as the full search's
    /// within the tolerance, with no more replications; plan.json, plan.csv and plan.md mark the
    /// provisional values; a carried verdict is never provisional; a rerun resumes from the files.
    func testProvisionalMidpointsProveTheAnswerAndMarkTheRest() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let chance = Self.scenario.replacingOccurrences(of: #""probability": 0.5, "confidence": 0.5"#, with: #""probability": 0.8, "confidence": 0.8"#)
        XCTAssertNotEqual(chance, Self.scenario)
        let file = try t.file("plan-tiny.json", chance)
        let args = ["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "25%",
                    "--for", "infra.origin.workers=4,8", "--for-trend", "better"]
        let full = t.root.appendingPathComponent("full").path, provisional = t.root.appendingPathComponent("provisional").path
        XCTAssertEqual(t.run(args + ["--out", full]), .ok, t.err.text)
        XCTAssertEqual(t.run(args + ["--provisional-midpoints", "--out", provisional]), .ok, t.err.text)
        let a = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: full + "/plan.json")))
        let b = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: provisional + "/plan.json")))
        XCTAssertNil(a.provisional)
        XCTAssertEqual(b.provisional, true)
        XCTAssertTrue(a.frontier.allSatisfy { $0.evaluations.allSatisfy { $0.provisional == nil } })
        for (p, q) in zip(b.frontier, a.frontier) {
            XCTAssertEqual(p.answer.status, q.answer.status)
            let last = try XCTUnwrap(p.answer.lastPass), fullLast = try XCTUnwrap(q.answer.lastPass)
            let e = try XCTUnwrap(p.evaluations.first { $0.value == last })
            XCTAssertNil(e.provisional, "the last pass is proven")
            XCTAssertEqual(e.verdict, .pass)
            XCTAssertGreaterThanOrEqual(e.replications, 8)
            // Both brackets are at most 25 % wide; they agree within that when they hold the same boundary.
            XCTAssertLessThanOrEqual(abs(last - fullLast), 0.25 * max(last, fullLast) + 1e-9, "\(last) against \(fullLast)")
            for c in p.evaluations where c.carriedFrom != nil { XCTAssertNil(c.provisional, "a carried verdict is proven") }
        }
        let used = { (d: PlanDocument) in d.frontier.reduce(0) { $0 + $1.replicationsUsed } }
        XCTAssertLessThanOrEqual(used(b), used(a), t.out.text)
        let marked = b.frontier.flatMap(\.evaluations).filter { $0.provisional != nil }
        XCTAssertFalse(marked.isEmpty, "some midpoint steered provisionally: \(b.frontier.map(\.evaluations))")
        XCTAssertTrue(marked.allSatisfy { $0.replications == 2 }, "a provisional value ran only the first replications")
        let csv = try String(contentsOfFile: provisional + "/plan.csv", encoding: .utf8)
        XCTAssertTrue(csv.hasPrefix("for,value,replications,verdict,carried from,provisional,"), csv)
        XCTAssertTrue(csv.contains(",2,undecided,,pass,") || csv.contains(",2,undecided,,not passing,"), csv)
        XCTAssertFalse(try String(contentsOfFile: full + "/plan.csv", encoding: .utf8).contains("provisional"))
        let md = try String(contentsOfFile: provisional + "/plan.md", encoding: .utf8)
        XCTAssertTrue(md.contains("Provisional midpoints (--provisional-midpoints): a value that only steers the bisection was judged on its first 2 replications"), md)
        XCTAssertTrue(md.contains("passes by monotonicity, not by its own replications"), md)
        XCTAssertTrue(md.contains("2, provisional pass") || md.contains("2, provisional, not shown to pass"), md)
        XCTAssertFalse(try String(contentsOfFile: full + "/plan.md", encoding: .utf8).contains("provisional"))
        // An answer whose other end is only provisional says it is not shown to pass there, not that it fails.
        let provisionalEnds = b.frontier.filter { p in p.evaluations.contains { $0.value == p.answer.firstNotPassing && $0.provisional != nil } }
        XCTAssertFalse(provisionalEnds.isEmpty, "this world ends one answer at a provisional value (workers 8)")
        for p in provisionalEnds {
            let q = p.answer.firstNotPassing
            XCTAssertTrue(md.contains("is not shown to be met on its first 2 replications (provisional)"), md)
            XCTAssertNotEqual(p.answer.firstFail, q)
            XCTAssertTrue(b.answerLines.contains { $0.contains("not shown to pass on the first replications (provisional, not run further): ") }, "\(b.answerLines)")
        }
        // A rerun reads every replication back and writes the same plan.
        let t2 = try TestEnvironment()
        defer { t2.cleanUp() }
        XCTAssertEqual(t2.run(args + ["--provisional-midpoints", "--out", provisional]), .ok, t2.err.text)
        XCTAssertTrue(t2.out.text.contains("(0 run now"), t2.out.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: provisional + "/plan.json")), try CanonicalJSON.encode(b))
    }

    func testBadPlanArgumentsExitTwoNamingTheArgument() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan-tiny.json", Self.scenario)
        let cases: [([String], String)] = [
            (["--vary", "campaigns[0].sendRatPerMinute=1..2"], "did you mean \"sendRatePerMinute\""),
            (["--vary", "campaigns[0].name=1..2"], "--vary: campaigns[0].name is a string, not a numeric field"),
            (["--vary", "campaigns[0].sendRatePerMinute=5..2"], "--vary: expected a non-empty range"),
            (["--vary", "campaigns[0].sendRatePerMinute=5..5"], "--vary: expected a non-empty range"),
            (["--vary", "campaigns[0].sendRatePerMinute=1..9", "--tolerance", "0"], "--tolerance: expected a number > 0"),
            // Once ran every evaluation and then trapped (exit 132) before writing a plan file.
            (["--vary", "campaigns[0].sendRatePerMinute=600..600000", "--tolerance", "1e-15%"],
             "--tolerance: 1e-15 % is finer than the search can resolve: at least 1e-07 %"),
            (["--vary", "campaigns[0].sendRatePerMinute=600..600000", "--tolerance", "1e-6"], "is finer than the search can resolve over 600…600000"),
            (["--vary", "infra.origin.workers=1.2..1.7"], "--vary: infra.origin.workers holds integers"),
            (["--vary", "campaigns[0].sendRatePerMinute"], "--vary: expected PATH=LO..HI"),
            (["--vary", "campaigns[0].sendRatePerMinute=1..9", "--for", "campaigns[0].warm.aheadSecond=0,60"], "--for: "),
            ([], "--vary: required"),
            (["--vary", "campaigns[0].sendRatePerMinute=1..9", "--emit-sweep", t.root.appendingPathComponent("none/step.json").path],
             "--emit-sweep \(t.root.appendingPathComponent("none/step.json").path): the directory"),
        ]
        for (extra, message) in cases {
            let before = t.err.text.count
            XCTAssertEqual(t.run(["plan", file, "--out", t.root.appendingPathComponent("x").path] + extra), .badInput, "\(extra)")
            XCTAssertTrue(String(t.err.text.dropFirst(before)).contains(message), "\(extra): \(t.err.text.dropFirst(before))")
        }
        XCTAssertEqual(t.run(["plan", "default", "--vary", "infra.origin.workers=1..9"]), .badInput)
        XCTAssertTrue(t.err.text.contains("has no objectives"), t.err.text)
    }

    func testSLOsAreCheckedAtReadTimeAndByRunWithTheirOwnExitCode() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let typo = try t.file("typo.json", """
        { "name": "typo", "question": "q", "slo": [ { "metric": "origin.rejected530", "op": "<=", "threshold": 0 } ] }
        """)
        XCTAssertEqual(t.run(["validate", typo]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric") && t.err.text.contains("did you mean \\\"origin.rejected503\\\"")
                      || t.err.text.contains("did you mean \"origin.rejected503\""), t.err.text)
        let cannot = try t.file("cannot.json", """
        { "name": "cannot", "question": "q", "population": { "networkMix": { "slow-2g": 0 } },
          "slo": [ { "metric": "tapToPaint.slow-2g.p50Seconds", "op": "<=", "threshold": 1 } ] }
        """)
        XCTAssertEqual(t.run(["validate", cannot]), .badInput)
        XCTAssertTrue(t.err.text.contains("a metric this scenario can produce"), t.err.text)
        // A mean objective on the edge of its metric's range cannot be shown by any interval: refused,
        // naming the chance-constraint form; one that can never fail or never pass is refused too.
        for (slo, expected) in [
            (#"{ "metric": "origin.rejected503", "op": "<=", "threshold": 0 }"#, #"a chance constraint: {"metric": "origin.rejected503", "op": "<=", "threshold": 0, "probability": 0.95}"#),
            (#"{ "metric": "edge.prestageHitRatio", "op": ">=", "threshold": 1 }"#, "ask for the share of replications instead"),
            (#"{ "metric": "edge.prestageHitRatio", "op": "<=", "threshold": 1 }"#, "where <= can both pass and fail"),
            (#"{ "metric": "origin.rejected503", "op": "<=", "threshold": -1, "probability": 0.9 }"#, "a threshold inside origin.rejected503's range ≥ 0"),
            (#"{ "metric": "origin.rejected503", "op": "<=", "threshold": 0, "probability": 1 }"#, "slo[0].probability: expected a share of replications in [0.5, 0.999]"),
        ] {
            let edge = try t.file("edge.json", #"{ "name": "edge", "question": "q", "slo": [ \#(slo) ] }"#)
            XCTAssertEqual(t.run(["validate", edge]), .badInput, slo)
            XCTAssertTrue(t.err.text.contains(expected), t.err.text)
        }
        let chance = try t.file("chance.json", #"{ "name": "chance", "question": "q", "slo": [ { "metric": "origin.rejected503", "op": "<=", "threshold": 0, "probability": 0.9, "confidence": 0.9 } ] }"#)
        XCTAssertEqual(t.run(["validate", chance]), .ok, t.err.text)
        // Run: the SLO table on stdout and in summary.json; a failed objective exits 3 with --fail-on-slo.
        let failing = try t.file("failing.json", """
        { "name": "failing", "question": "q", "run": { "replications": 2 }, "population": { "devices": 150 },
          "slo": [ { "metric": "pushes.targeted", "op": "<=", "threshold": 1 } ] }
        """)
        let out = t.root.appendingPathComponent("r").path
        XCTAssertEqual(t.run(["run", failing, "--out", out]), .ok, t.err.text)
        XCTAssertTrue(t.out.text.contains("service-level objectives: fail"), t.out.text)
        let summary = try String(contentsOf: URL(fileURLWithPath: out + "/summary.json"), encoding: .utf8)
        XCTAssertTrue(summary.contains("\"verdict\" : \"fail\""), summary)
        XCTAssertEqual(t.run(["run", failing, "--out", out, "--fail-on-slo"]), .gateNotPassed)
        XCTAssertEqual(ExitCode.gateNotPassed.rawValue, 3)
    }

    /// No interval of a plan leaves the metric's range: a mean objective on 503 counts, whose t
    /// interval reaches below 0 at the onset, is stored and drawn from 0; a chance constraint is
    /// drawn as the share of replications meeting it, with its exact bounds inside [0, 1].
    func testPlanIntervalsStayInsideTheMetricsRange() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let mean = Self.scenario.replacingOccurrences(of: #""threshold": 0, "probability": 0.5, "confidence": 0.5"#, with: #""threshold": 5"#)
        XCTAssertNotEqual(mean, Self.scenario)
        for (name, text) in [("plan-mean.json", mean), ("plan-tiny.json", Self.scenario)] {
            let file = try t.file(name, text)
            let out = t.root.appendingPathComponent("plan-" + name).path
            XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=3000..300000", "--tolerance", "25%", "--out", out]), .ok, t.err.text)
            let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")))
            let evaluations = document.frontier.flatMap { $0.evaluations.compactMap { $0.slo.evaluations.first } }
            XCTAssertTrue(evaluations.allSatisfy { ($0.lower ?? 0) >= 0 && ($0.shareLower ?? 0) >= 0 && ($0.shareUpper ?? 1) <= 1 }, name)
            var drawn: [Double] = [], tops: [Double] = []
            for section in document.report.sections {
                for block in section.blocks {
                    if case let .chart(.line(chart)) = block {
                        drawn += chart.series.flatMap { $0.points.compactMap(\.lower) }
                        tops += chart.series.flatMap { $0.points.compactMap(\.upper) }
                    }
                }
            }
            XCTAssertFalse(drawn.isEmpty, name)
            XCTAssertGreaterThanOrEqual(drawn.min() ?? -1, 0, "\(name): an interval drawn below 0")
            if name == "plan-tiny.json" {
                XCTAssertLessThanOrEqual(tops.max() ?? 2, 1, "a share's bound drawn above 1")
                // The evaluation table says how many replications met the threshold, and the bounds.
                let md = try String(contentsOfFile: out + "/plan.md", encoding: .utf8)
                XCTAssertTrue(md.contains("Origin 503 rejections ≤ 0 on ≥ 50.0 % of replications"), md)
                XCTAssertTrue(md.contains(" of 2 within (P "), md)
            }
        }
    }
}
