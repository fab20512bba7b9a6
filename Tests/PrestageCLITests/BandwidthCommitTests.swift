import Foundation
import ReportKit
import ReportKitTesting
import XCTest
@testable import Experiments
@testable import PrestageCLI

/// Bandwidth objectives end to end: a world whose edge peak follows from the send rate × the asset
/// bytes by arithmetic, an objective on it as a commit, `plan` finding the highest send rate inside
/// the commit, and the report drawing the commit line.
final class BandwidthCommitTests: XCTestCase {
    /// Every push reaches an iOS alert extension that fetches one 125 000-byte asset (1 Mbit) from a
    /// warmed PoP at once: delivery, network round trip and edge processing are constants, no user
    /// taps, nothing fails, no device is skipped by policy (no Low Data Mode or Save-Data, ample
    /// free storage). Pushes leave evenly at R per minute, so each second's responses are
    /// the pushes sent in one second shifted by the same constant delay: ⌊R/60⌋ or ⌈R/60⌉ of them,
    /// and the edge peak is that count × 10⁶ bit/s. The commit of 800 Mbit/s holds up to 800
    /// responses a second: R* = 800 × 60 = 48 000 pushes/min.
    static let scenario = """
    { "name": "edge-commit", "question": "Highest send rate inside an 800 Mbit/s edge commit?",
      "run": { "replications": 2, "seed": 5 },
      "population": { "devices": 6000, "iosShare": 1, "lowDataModeShare": 0, "saveDataShare": 0,
                      "freeStorageBytes": { "kind": "constant", "value": 64000000000 },
                      "networkMix": { "wifi": 1, "5g": 0, "lte": 0, "4g": 0, "3g": 0, "2g": 0, "slow-2g": 0 } },
      "users": { "segments": [ { "name": "all", "iosOpenProbability": 0, "androidOpenProbability": 0 } ] },
      "slo": [ { "metric": "edge.peakBitsPerSecond", "op": "<=", "threshold": 800000000 } ],
      "campaigns": [ { "name": "c", "sendStartSeconds": 10, "sendRatePerMinute": 24000, "providerQuotaPerMinute": 6000000,
                       "deliveryLatencySeconds": { "kind": "constant", "value": 0.01 },
                       "warm": { "mode": "allPops", "aheadSeconds": 10 }, "assets": [ { "name": "hero", "bytes": 125000 } ] } ],
      "infra": { "topology": { "popCount": 2, "shieldCount": 1, "regions": [ { "popIndex": 0 } ] },
                 "tiers": { "edgeProcessingSeconds": { "kind": "constant", "value": 0.001 } },
                 "networks": { "wifi": { "rttSeconds": { "kind": "constant", "value": 0.02 }, "failureProbability": 0, "stallProbability": 0 } } },
      "horizonSeconds": 120 }
    """

    private func values(_ name: String, in dir: String) throws -> [Double] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/summary.json"))
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metrics = try XCTUnwrap(summary["metrics"] as? [[String: Any]])
        let m = try XCTUnwrap(metrics.first { $0["name"] as? String == name }, name)
        return try XCTUnwrap(m["values"] as? [Double], name)
    }

    /// At 24 000 pushes/min (400 a second) the edge peak is 400 × 10⁶ bit/s up to one response
    /// either way; the run passes the commit, and its report draws it on the CDN egress chart
    /// (Chromium-checked at 1400 and 390 px). timeseries.csv carries the bytes per second, whose
    /// busiest second is the peak; pops.csv and bandwidth-*.csv carry the PoP's and region's bytes.
    func testEdgePeakFollowsFromTheSendRateAndTheCommitLineIsDrawn() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("edge-commit.json", Self.scenario)
        let out = t.root.appendingPathComponent("run").path
        XCTAssertEqual(t.run(["run", file, "--out", out, "--fail-on-slo"]), .ok, t.out.text + t.err.text)
        for v in try values("edge.peakBitsPerSecond", in: out) {
            XCTAssertGreaterThanOrEqual(v, 399e6)
            XCTAssertLessThanOrEqual(v, 401e6)
        }
        // Every byte is in a second: Σ edgeBytes (means per replication) = bytes.cdnEgress's mean.
        let csv = try String(contentsOfFile: out + "/timeseries.csv", encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try XCTUnwrap(csv.first)
        let edge = try XCTUnwrap(header.firstIndex(of: "edgeBytes"))
        XCTAssertNotNil(header.firstIndex(of: "shieldBytes"))
        XCTAssertNotNil(header.firstIndex(of: "originBytes"))
        let sum = csv.dropFirst().reduce(0.0) { $0 + (Double($1[edge]) ?? 0) }
        let egress = try values("bytes.cdnEgress", in: out)
        XCTAssertEqual(sum, egress.reduce(0, +) / Double(egress.count), accuracy: 1e-6 * sum)
        let peakSecond = csv.dropFirst().map { Double($0[edge]) ?? 0 }.max() ?? 0
        XCTAssertEqual(peakSecond * 8, try values("edge.peakBitsPerSecond", in: out).reduce(0, +) / 2, accuracy: 1e6 + 1)
        let pops = try String(contentsOfFile: out + "/pops.csv", encoding: .utf8)
        XCTAssertTrue(pops.hasPrefix("pop,name,regions,regionNames,prestageRequests,prestageHits,prestageMisses,hitRatio,hitRatioMean,hitRatioLower,hitRatioUpper,upstreamFetches,bytes,peakBitsPerSecond,billedBitsPerSecond\n"), pops)
        let regions = try String(contentsOfFile: out + "/bandwidth-regions.csv", encoding: .utf8)
        XCTAssertTrue(regions.hasPrefix("region,regionName,binStartSecond,binSeconds,bytes,bitsPerSecond\n0,"), regions)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/bandwidth-pops.csv"))
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("CDN egress (edge → devices)"), "the edge bandwidth chart")
        XCTAssertTrue(html.contains("edge commit peak &lt;= 800 Mbit/s") || html.contains("edge commit peak <= 800 Mbit/s"), "the commit line's label")
        XCTAssertTrue(html.contains("Regions with the highest edge bandwidth"), "the region table")
        let charts = html.components(separatedBy: "<figure").count - 1
        try assertReportLayout(html: html, name: "run-edge-commit", expectedCharts: charts)
    }

    /// A contract's commit (`costs.commit`) is drawn on its tier's chart as well, labelled as the
    /// contract's, without any objective.
    func testTheContractsCommitIsDrawnOnItsTiersChart() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("edge-commit.json", Self.scenario)
        let out = t.root.appendingPathComponent("contract").path
        XCTAssertEqual(t.run(["run", file, "--out", out, "--set", "slo=[]",
                              "--set", "costs={\"currency\":\"USD\",\"cdn\":[{\"tiers\":[{\"fromGB\":0,\"pricePerGB\":0.085}]}],\"commit\":{\"tier\":\"edge\",\"rateGbps\":0.6,\"billing\":\"percentile95\"}}"]),
                       .ok, t.out.text + t.err.text)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains("edge contract commit 600 Mbit/s (billed p95 of 5 min)"), "the contract's commit line")
        XCTAssertFalse(html.contains("edge commit peak"), "no objective, no objective line")
    }

    /// `plan` on the send rate finds the boundary of the commit: the bracket it ends with holds
    /// the arithmetic boundary (R/60 responses a second ≤ 800 while R ≤ 48 000 up to the one
    /// response a second either way the even spacing allows: 47 940 … 48 060) and is within the
    /// 5 % tolerance asked for.
    func testPlanFindsTheHighestSendRateInsideTheCommit() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("edge-commit.json", Self.scenario)
        let out = t.root.appendingPathComponent("plan").path
        XCTAssertEqual(t.run(["plan", file, "--vary", "campaigns[0].sendRatePerMinute=6000..600000", "--tolerance", "5%",
                              "--replications-max", "4", "--out", out]), .ok, t.err.text)
        let document = try JSONDecoder().decode(PlanDocument.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/plan.json")))
        let answer = try XCTUnwrap(document.frontier.first?.answer)
        XCTAssertEqual(answer.status, .boundary, t.out.text)
        let pass = try XCTUnwrap(answer.lastPass), fail = try XCTUnwrap(answer.firstNotPassing)
        XCTAssertLessThanOrEqual(pass, 48_060, "the last passing rate is at most the boundary")
        XCTAssertGreaterThanOrEqual(fail, 47_940, "the first failing rate is at least the boundary")
        XCTAssertLessThanOrEqual(fail - pass, 0.05 * pass + 1e-9, "within the tolerance")
    }

    /// Bandwidth objectives are objectives like any other: the chance form reads per replication,
    /// a typo is named with the closest metric, a mean objective at 0 is refused for the chance
    /// form, and a shield objective in a world without shields is refused.
    func testBandwidthObjectivesValidate() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("edge-commit.json", Self.scenario)
        let chance = #"slo=[{"metric":"edge.billedBitsPerSecond","op":"<=","threshold":800000000,"probability":0.5,"confidence":0.5}]"#
        let out = t.root.appendingPathComponent("chance").path
        XCTAssertEqual(t.run(["run", file, "--set", chance, "--out", out, "--fail-on-slo"]), .ok, t.out.text + t.err.text)
        XCTAssertTrue(t.out.text.contains("edge.billedBitsPerSecond <= 800000000 in ≥ 50 % of replications at 50 %"), t.out.text)
        XCTAssertEqual(t.run(["validate", file, "--set", #"slo=[{"metric":"edge.peakBitPerSecond","op":"<=","threshold":1}]"#]), .badInput)
        XCTAssertTrue(t.err.text.contains("did you mean \"edge.peakBitsPerSecond\""), t.err.text)
        XCTAssertEqual(t.run(["validate", file, "--set", #"slo=[{"metric":"origin.p95BitsPerSecond","op":"<=","threshold":0}]"#]), .badInput)
        XCTAssertTrue(t.err.text.contains("a chance constraint"), t.err.text)
        XCTAssertEqual(t.run(["validate", file, "--set", "infra.tiers.tieringEnabled=false",
                              "--set", #"slo=[{"metric":"shield.peakBitsPerSecond","op":"<=","threshold":1000}]"#]), .badInput)
        XCTAssertTrue(t.err.text.contains("slo[0].metric: expected a metric this scenario can produce (infra.tiers.tieringEnabled is false"), t.err.text)
        XCTAssertEqual(t.run(["validate", file]), .ok, t.err.text)
    }
}
