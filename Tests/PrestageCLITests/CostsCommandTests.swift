import Foundation
import XCTest
@testable import Experiments
@testable import PrestageCLI
import ReportKitTesting
@testable import ScenarioFormat

/// The `costs` section on the command line: bad prices are refused with their path, value and
/// expectation; cost metrics are objectives; reports and comparisons show them.
final class CostsCommandTests: XCTestCase {
    func testBadPricesAreRefusedWithPathValueAndExpectation() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let bad = try t.file("bad.json", """
        { "name": "priced", "question": "Are bad prices refused?",
          "infra": { "topology": { "popCount": 2, "shieldCount": 1, "regions": [ { "popIndex": 0 }, { "popIndex": 1 } ] } },
          "costs": { "currency": "USD", "originPricePerGB": -0.09,
            "cdn": [ { "regions": [0, 7], "tiers": [ { "fromGB": 0, "pricePerGB": 0.085 }, { "fromGB": 0, "pricePerGB": 0.08 } ] } ],
            "commit": { "rateGbps": 0, "billing": "percentile95", "overagePricePerGB": 1 },
            "cellular": [ { "pricePerGB": 5 }, { "pricePerGB": 6 } ] } }
        """)
        XCTAssertEqual(t.run(["validate", bad]), .badInput)
        let lines = t.err.text.split(separator: "\n").map(String.init)
        func line(_ path: String) -> String? { lines.first { $0.hasPrefix(bad + ": " + path + ": ") } }
        XCTAssertEqual(line("costs.originPricePerGB"), bad + ": costs.originPricePerGB: expected a finite price ≥ 0, found -0.09", t.err.text)
        XCTAssertEqual(line("costs.cdn[0].tiers[1].fromGB"),
                       bad + ": costs.cdn[0].tiers[1].fromGB: expected tiers in ascending order: more than the previous tier's 0 GB, found 0", t.err.text)
        XCTAssertEqual(line("costs.commit.rateGbps"), bad + ": costs.commit.rateGbps: expected a finite rate > 0 Gbit/s, found 0", t.err.text)
        XCTAssertNotNil(line("costs.commit.overagePricePerGB"), t.err.text)
        XCTAssertEqual(line("costs.cellular[1].regions"),
                       bad + ": costs.cellular[1].regions: expected at most one price list without \"regions\" (it prices every region no other list names), found absent",
                       t.err.text)
        // Cross-checks against the topology run once the section itself is valid.
        let unknownRegion = try t.file("region.json", """
        { "name": "priced", "question": "Is an unknown region refused?",
          "infra": { "topology": { "popCount": 2, "shieldCount": 1, "regions": [ { "popIndex": 0 }, { "popIndex": 1 } ] } },
          "costs": { "currency": "USD", "cdn": [ { "regions": [0, 7], "tiers": [ { "fromGB": 0, "pricePerGB": 0.085 } ] } ] } }
        """)
        XCTAssertEqual(t.run(["validate", unknownRegion]), .badInput)
        XCTAssertTrue(t.err.text.contains(unknownRegion + ": costs.cdn[0].regions[1]: expected a region of infra.topology.regions, 0..<2, found 7"), t.err.text)
        XCTAssertTrue(t.err.text.contains(unknownRegion + ": costs.cdn: expected a price for every region: name region 1 in a list"), t.err.text)
    }

    func testCostMetricsAreObjectivesOnlyWithPrices() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let priced = try t.file("priced.json", """
        { "name": "priced", "question": "Is the campaign within budget?",
          "slo": [ { "metric": "cost.total", "op": "<=", "threshold": 1000 },
                   { "metric": "cost.campaign.campaign.neverOpened", "op": "<=", "threshold": 100 },
                   { "metric": "userData.cellular.neverOpenedMeanBytes", "op": "<=", "threshold": 2000000 } ],
          "costs": { "currency": "USD", "cdn": [ { "tiers": [ { "fromGB": 0, "pricePerGB": 0.085 } ] } ] } }
        """)
        XCTAssertEqual(t.run(["validate", priced]), .ok, t.err.text)
        let unpriced = try t.file("unpriced.json", """
        { "name": "unpriced", "question": "Is a budget without prices refused?",
          "slo": [ { "metric": "cost.total", "op": "<=", "threshold": 1000 } ] }
        """)
        XCTAssertEqual(t.run(["validate", unpriced]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric: expected a metric this scenario can produce (money metrics need a \"costs\" section)"), t.err.text)
        let otherCampaign = try t.file("other.json", """
        { "name": "other", "question": "Is an unknown campaign's cost refused?",
          "slo": [ { "metric": "cost.campaign.nope.total", "op": "<=", "threshold": 1000 } ],
          "costs": { "currency": "USD" } }
        """)
        XCTAssertEqual(t.run(["validate", otherCampaign]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric: expected cost.campaign.NAME.PART with NAME a campaign of this scenario (campaign)"), t.err.text)
        // The commit's utilisation needs a commit; with one, "inside the commit" is `<= 1` (a factor, not a share).
        let noCommit = try t.file("no-commit.json", """
        { "name": "no-commit", "question": "Is a commit objective without a commit refused?",
          "slo": [ { "metric": "cost.commitUtilisation", "op": "<=", "threshold": 1 } ],
          "costs": { "currency": "USD" } }
        """)
        XCTAssertEqual(t.run(["validate", noCommit]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric: expected a metric this scenario can produce (the commit's cost and utilisation need costs.commit)"), t.err.text)
        let commit = try t.file("commit.json", """
        { "name": "commit", "question": "Do we stay inside our commit?",
          "slo": [ { "metric": "cost.commitUtilisation", "op": "<=", "threshold": 1 } ],
          "costs": { "currency": "USD", "commit": { "tier": "edge", "rateGbps": 400, "billing": "percentile95" } } }
        """)
        XCTAssertEqual(t.run(["validate", commit]), .ok, t.err.text)
    }

    /// A priced run's report and summary carry the cost table; `compare` of two runs shows the cost
    /// metrics; an unpriced run shows no money.
    func testReportSummaryAndCompareShowCosts() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let priced = try t.file("priced.json", """
        { "name": "priced", "question": "What does the campaign cost?",
          "run": { "devices": 400, "replications": 2 },
          "costs": { "currency": "EUR", "originPricePerGB": 0.09, "cellular": [ { "pricePerGB": 5 } ],
                     "cdn": [ { "tiers": [ { "fromGB": 0, "pricePerGB": 0.085 } ], "pricePer10kRequests": 0.01 } ] } }
        """)
        let a = t.root.appendingPathComponent("a").path, b = t.root.appendingPathComponent("b").path
        XCTAssertEqual(t.run(["run", priced, "--out", a, "--jobs", "1"]), .ok, t.err.text)
        XCTAssertEqual(t.run(["run", priced, "--out", b, "--jobs", "1", "--set", "campaigns[0].warm.aheadSeconds=300",
                              "--set", "campaigns[0].warm.mode=\"allPops\""]), .ok, t.err.text)
        let report = try String(contentsOfFile: a + "/report.md", encoding: .utf8)
        XCTAssertTrue(report.contains("## Cost"), report)
        XCTAssertTrue(report.contains("Total, EUR"), report)
        XCTAssertTrue(report.contains("## Users' data"), report)
        XCTAssertEqual(report.components(separatedBy: "Never-opened, p95").count - 1, 2, "p95 columns by network class and by region")
        // The cost and users' data tables fit a desktop and a phone (headless Chromium at 1400 and 390 px).
        let html = try String(contentsOfFile: a + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("Total, EUR"))
        XCTAssertTrue(html.contains("What users pay their carriers"))
        try assertReportLayout(html: html, name: "run-priced", expectedCharts: html.components(separatedBy: "<figure").count - 1)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: a + "/summary.json"))) as? [String: Any]
        let costs = try XCTUnwrap(summary?["costs"] as? [String: Any])
        XCTAssertEqual(costs["currency"] as? String, "EUR")
        XCTAssertEqual(t.run(["compare", a, b]), .ok, t.err.text)
        XCTAssertTrue(t.out.text.contains("cost.total"), t.out.text)
        XCTAssertTrue(t.out.text.contains("cost.warm"), t.out.text)
        // Without prices: no money anywhere.
        let plain = try t.file("plain.json", #"{ "name": "plain", "question": "No prices?", "run": { "devices": 400, "replications": 2 } }"#)
        let c = t.root.appendingPathComponent("c").path
        XCTAssertEqual(t.run(["run", plain, "--out", c, "--jobs", "1"]), .ok, t.err.text)
        let plainReport = try String(contentsOfFile: c + "/report.md", encoding: .utf8)
        XCTAssertFalse(plainReport.contains("## Cost"))
        let plainSummary = try String(contentsOfFile: c + "/summary.json", encoding: .utf8)
        XCTAssertFalse(plainSummary.contains("\"cost."), "no cost metric without prices")
        XCTAssertFalse(plainSummary.contains("\"costs\""), "no cost table without prices")
    }
}
