import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
@testable import ScenarioFormat

/// Per-campaign results on the command line: summary.json's campaigns, campaigns.csv, the report's
/// Campaigns table, compare rows, objectives and plan naming `campaign:NAME/METRIC`, bad names
/// refused, and one-campaign results without any of it.
final class CampaignResultsCommandTests: XCTestCase {
    /// Two campaigns to the same 1 200 devices: "staged" pre-stages, "plain" carries no manifest
    /// (every push it delivers is skipped by policy), so the skipped share separates them.
    static func scenario(slo: String = "[]", name: String = "two-campaigns") -> String {
        """
        { "name": "\(name)", "question": "How does each campaign do?",
          "run": { "replications": 3, "seed": 7 }, "population": { "devices": 1200 }, "horizonSeconds": 900,
          "slo": \(slo),
          "campaigns": [ { "name": "staged", "sendStartSeconds": 30 },
                         { "name": "plain", "sendStartSeconds": 120, "preStage": false, "warm": { "mode": "none" } } ] }
        """
    }

    func json(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    func testSummaryCSVAndReportCarryEachCampaignInScenarioOrder() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("two.json", Self.scenario())
        let out = t.root.appendingPathComponent("two").path
        XCTAssertEqual(t.run(["run", file, "--out", out]), .ok, t.err.text)
        let summary = try json(out + "/summary.json")
        let campaigns = try XCTUnwrap(summary["campaigns"] as? [[String: Any]])
        XCTAssertEqual(campaigns.map { $0["name"] as? String }, ["staged", "plain"])
        let pooled = try XCTUnwrap(summary["metrics"] as? [[String: Any]])
        XCTAssertFalse(pooled.contains { ($0["name"] as? String ?? "").hasPrefix("campaign:") }, "per-campaign rows are not in the pooled list")
        func metric(_ c: [String: Any], _ name: String) -> [String: Any]? {
            (c["metrics"] as? [[String: Any]])?.first { $0["name"] as? String == name }
        }
        func mean(_ c: [String: Any], _ name: String) -> Double? { metric(c, name)?["mean"] as? Double }
        // Every pushed device is targeted once per campaign; the pooled count is their sum.
        let targeted = try XCTUnwrap(pooled.first { $0["name"] as? String == "pushes.targeted" }?["mean"] as? Double)
        XCTAssertEqual(try XCTUnwrap(mean(campaigns[0], "pushes.targeted")), 1200)
        XCTAssertEqual(try XCTUnwrap(mean(campaigns[1], "pushes.targeted")), 1200)
        XCTAssertEqual(targeted, 2400)
        // No manifest: every delivered push of "plain" is skipped, none completes.
        XCTAssertEqual(try XCTUnwrap(mean(campaigns[1], "outcomes.completedShare")), 0)
        XCTAssertGreaterThan(try XCTUnwrap(mean(campaigns[1], "outcomes.skippedByPolicyShare")), 0.9)
        XCTAssertGreaterThan(try XCTUnwrap(mean(campaigns[0], "outcomes.completedShare")), 0.5)
        XCTAssertNil(metric(campaigns[1], "edge.prestageHitRatio"), "no pre-stage request, no hit ratio")
        XCTAssertEqual(try XCTUnwrap(mean(campaigns[1], "bytes.background")), 0)
        // Intervals stay inside the metric's range.
        for c in campaigns {
            for m in c["metrics"] as? [[String: Any]] ?? [] {
                guard let name = m["name"] as? String, name.hasSuffix("Share") || name.hasSuffix("Ratio"),
                      let ci = m["confidenceInterval"] as? [String: Any] else { continue }
                XCTAssertGreaterThanOrEqual(ci["lower"] as? Double ?? 0, 0, name)
                XCTAssertLessThanOrEqual(ci["upper"] as? Double ?? 1, 1, name)
            }
        }
        let csv = try String(contentsOfFile: out + "/campaigns.csv", encoding: .utf8)
        let lines = csv.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "campaign,metric,unit,mean,ciLower,ciUpper,replications")
        XCTAssertTrue(lines.contains("staged,pushes.targeted,count,1200,1200,1200,3"), csv)
        XCTAssertTrue(lines.contains("plain,outcomes.completedShare,ratio,0,0,0,3"), csv)
        XCTAssertLessThan(try XCTUnwrap(lines.firstIndex { $0.hasPrefix("staged,") }), try XCTUnwrap(lines.firstIndex { $0.hasPrefix("plain,") }))
        let report = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        XCTAssertTrue(report.contains("## Campaigns"), report)
        XCTAssertTrue(report.contains("| staged "), report)
        XCTAssertTrue(report.contains("| plain "), report)
        XCTAssertFalse(report.contains("`campaign:"), "the every-metric table lists pooled metrics only")
        // compare matches the campaigns' metrics by name.
        let other = t.root.appendingPathComponent("other").path
        XCTAssertEqual(t.run(["run", file, "--out", other, "--seed", "8"]), .ok, t.err.text)
        XCTAssertEqual(t.run(["compare", out, other]), .ok, t.err.text)
        XCTAssertTrue(t.out.text.contains("campaign:plain/outcomes.skippedByPolicyShare"), t.out.text)
        XCTAssertTrue(t.out.text.contains("campaign:staged/tapToPaint.p95Seconds"), t.out.text)
    }

    func testOneCampaignWritesNoCampaignResults() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("one.json", """
        { "name": "one", "question": "One campaign?", "run": { "replications": 2, "seed": 3 },
          "population": { "devices": 500 }, "horizonSeconds": 600, "campaigns": [ { "name": "only", "sendStartSeconds": 30 } ] }
        """)
        let out = t.root.appendingPathComponent("one").path
        XCTAssertEqual(t.run(["run", file, "--out", out]), .ok, t.err.text)
        XCTAssertNil(try json(out + "/summary.json")["campaigns"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/campaigns.csv"))
        XCTAssertFalse(try String(contentsOfFile: out + "/report.md", encoding: .utf8).contains("## Campaigns"))
    }

    func testACampaignObjectivePassesOnOneCampaignAndFailsOnTheOther() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("slo.json", Self.scenario(slo: """
        [ { "metric": "campaign:staged/outcomes.skippedByPolicyShare", "op": "<=", "threshold": 0.5 },
          { "metric": "campaign:plain/outcomes.skippedByPolicyShare", "op": "<=", "threshold": 0.5 } ]
        """))
        let out = t.root.appendingPathComponent("slo").path
        XCTAssertEqual(t.run(["run", file, "--out", out, "--fail-on-slo"]), .gateNotPassed, t.err.text)
        let slo = try XCTUnwrap(try json(out + "/summary.json")["slo"] as? [String: Any])
        let evaluations = try XCTUnwrap(slo["evaluations"] as? [[String: Any]])
        XCTAssertEqual(evaluations.map { $0["verdict"] as? String }, ["pass", "fail"])
    }

    func testUnknownCampaignOrMetricIsBadInputNamingPathValueAndTheValidNames() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let campaign = try t.file("campaign.json", Self.scenario(slo: """
        [ { "metric": "campaign:stagd/outcomes.completedShare", "op": ">=", "threshold": 0.5 } ]
        """))
        XCTAssertEqual(t.run(["validate", campaign]), .badInput)
        XCTAssertTrue(t.err.text.contains(campaign + ": slo[0].metric: expected campaign:NAME/METRIC with NAME a campaign of this scenario (staged, plain), found \"campaign:stagd/outcomes.completedShare\""),
                      t.err.text)
        let metric = try t.file("metric.json", Self.scenario(slo: """
        [ { "metric": "campaign:staged/origin.rejected503", "op": "<=", "threshold": 1 } ]
        """))
        XCTAssertEqual(t.run(["validate", metric]), .badInput)
        XCTAssertTrue(t.err.text.contains(metric + ": slo[0].metric: expected campaign:NAME/METRIC with METRIC a metric reported per campaign: pushes.targeted, delivery.secondsTo99Percent"),
                      t.err.text)
        XCTAssertTrue(t.err.text.contains("found \"campaign:staged/origin.rejected503\""), t.err.text)
        let one = try t.file("one.json", """
        { "name": "one", "question": "One campaign?", "campaigns": [ { "name": "only" } ],
          "slo": [ { "metric": "campaign:only/tapToPaint.p95Seconds", "op": "<=", "threshold": 1 } ] }
        """)
        XCTAssertEqual(t.run(["validate", one]), .badInput)
        XCTAssertTrue(t.err.text.contains(one + ": slo[0].metric: expected a metric this scenario can produce (campaign:NAME/METRIC needs two campaigns or more"), t.err.text)
        let late = try t.file("late.json", Self.scenario(slo: """
        [ { "metric": "campaign:plain/delivery.secondsTo99Percent", "op": "<=", "threshold": 780 } ]
        """))
        XCTAssertEqual(t.run(["validate", late]), .badInput)
        XCTAssertTrue(t.err.text.contains(late + ": slo[0].threshold: expected less than the 780 s from campaign plain's first send to the horizon"), t.err.text)
    }

    /// A plan whose objective names one campaign: the second campaign's send rate is varied until
    /// its own time to 99 % meets the objective (the first campaign's rate stays fixed), locally
    /// and through emitted sweep steps ingested back, to the same plan.
    func testPlanOnACampaignObjectiveLocallyAndThroughIngest() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("plan.json", """
        { "name": "plan-campaign", "question": "Slowest send of the second campaign reaching 99 % within 60 s?",
          "run": { "replications": 2, "seed": 5 }, "population": { "devices": 600 }, "horizonSeconds": 600,
          "slo": [ { "metric": "campaign:second/delivery.secondsTo99Percent", "op": "<=", "threshold": 60 } ],
          "campaigns": [ { "name": "first", "sendStartSeconds": 10, "sendRatePerMinute": 600, "warm": { "mode": "none" } },
                         { "name": "second", "sendStartSeconds": 20, "warm": { "mode": "none" } } ] }
        """)
        let args = ["plan", file, "--vary", "campaigns[1].sendRatePerMinute=60..60000", "--minimize", "--tolerance", "25%", "--replications-max", "2"]
        let local = t.root.appendingPathComponent("local").path
        XCTAssertEqual(t.run(args + ["--out", local]), .ok, t.err.text)
        let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: local + "/plan.json")))
        let answer = try XCTUnwrap(document.frontier.first?.answer)
        XCTAssertEqual(answer.status, .boundary, t.out.text)
        // 600 devices reach 99 % in 60 s at ≥ 594 per minute (plus the delivery latency): the
        // boundary lies near 600–700 pushes per minute, while "first" at 600/min alone would take ~60 s.
        let pass = try XCTUnwrap(answer.lastPass)
        XCTAssertGreaterThan(pass, 500)
        XCTAssertLessThan(pass, 1500)
        let cluster = t.root.appendingPathComponent("cluster").path
        let step = t.root.appendingPathComponent("step.json").path
        var ingest: [String] = []
        for steps in 1...30 {
            let before = t.out.text.count
            XCTAssertEqual(t.run(args + ["--out", cluster, "--emit-sweep", step] + ingest), .ok, t.err.text)
            guard String(t.out.text.dropFirst(before)).contains("next step") else { break }
            XCTAssertLessThan(steps, 30, "the plan converges")
            let s = t.root.appendingPathComponent("s\(steps)").path
            XCTAssertEqual(t.run(["sweep", step, "--out", s]), .ok, t.err.text)
            ingest = ["--ingest", s]
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cluster + "/plan.json")), try Data(contentsOf: URL(fileURLWithPath: local + "/plan.json")))
    }

    /// The library's two-campaign worlds with Doze holds (doze-heavy-android) and one FCM quota
    /// shared by both campaigns (shared-fcm-quota), scaled down: every count of each campaign adds
    /// up to the pooled count, and every outcome share times its campaign's pushes to the pooled
    /// share's numerator, in each replication.
    func testLibraryCampaignsAddUpUnderDozeAndASharedProviderQuota() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        for name in ["doze-heavy-android", "shared-fcm-quota"] {
            let out = t.root.appendingPathComponent(name).path
            XCTAssertEqual(t.run(["run", name, "--devices", "3000", "--replications", "2", "--out", out]), .ok, t.err.text)
            let summary = try JSONDecoder().decode(RunSummary.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json")))
            let campaigns = try XCTUnwrap(summary.campaigns, name)
            XCTAssertEqual(campaigns.count, 2, name)
            func values(_ m: MetricSummary?) -> [Double] { (m?.values ?? []).map { $0 ?? .nan } }
            let counts = ["pushes.targeted", "extension.fetchesStarted", "taps.count", "tapToPaint.count", "taps.abandoned", "reads.count",
                          "bytes.background", "bytes.foreground", "bytes.cellular", "bytes.neverOpened"]
            for m in counts {
                let pooled = values(summary.metric(m))
                XCTAssertEqual(pooled.count, 2, m)
                for r in pooled.indices {
                    XCTAssertEqual(campaigns.map { values($0.metric(m))[r] }.reduce(0, +), pooled[r], "\(name) \(m) replication \(r)")
                }
            }
            let targeted = values(summary.metric("pushes.targeted"))
            for m in summary.metrics.map(\.name) where m.hasPrefix("outcomes.") && m.hasSuffix("Share") {
                let pooled = values(summary.metric(m))
                for r in pooled.indices {
                    let sum = campaigns.map { (values($0.metric(m))[r] * values($0.metric("pushes.targeted"))[r]).rounded() }.reduce(0, +)
                    XCTAssertEqual(sum, (pooled[r] * targeted[r]).rounded(), "\(name) \(m) replication \(r)")
                }
            }
        }
        XCTAssertGreaterThan(try XCTUnwrap(JSONDecoder().decode(RunSummary.self, from: Data(contentsOf: t.root.appendingPathComponent("doze-heavy-android/summary.json")))
            .metric("os.dozeDeferred")?.mean), 0, "Doze held some pushes")
    }
}
