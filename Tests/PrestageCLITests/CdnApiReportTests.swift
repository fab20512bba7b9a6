import Foundation
import ReportKitTesting
import XCTest
@testable import PrestageCLI

/// The report's "CDN API" section: present with a profile, with the run's `cdnApi.*` figures
/// pooled and per campaign (the campaigns' counts adding up to the pooled ones) and what
/// `validate` says binds; absent without a profile.
final class CdnApiReportTests: XCTestCase {
    /// Two campaigns on Fastly (no warm API: one lookup per PoP and object), each warmed into the
    /// 8 PoPs and its creative swapped 10 s before its send, re-warmed 5 s after.
    static func scenario(cdnApi: String?) -> String {
        let api = cdnApi.map { #", "cdnApi": \#($0)"# } ?? ""
        return """
        { "name": "api-report", "question": "What do the CDN API calls cost each campaign?",
          "run": { "seed": 5, "replications": 2 }, "population": { "devices": 1500 }, "horizonSeconds": 1200,
          "infra": { "topology": { "popCount": 8, "shieldCount": 2 }\(api) },
          "campaigns": [
            { "name": "early", "sendStartSeconds": 300, "warm": { "mode": "allPops", "aheadSeconds": 200 },
              "creativeSwap": { "secondsBeforeSend": 10, "rewarmDelaySeconds": 5 } },
            { "name": "late", "sendStartSeconds": 700, "warm": { "mode": "allPops", "aheadSeconds": 200 },
              "creativeSwap": { "secondsBeforeSend": 10, "rewarmDelaySeconds": 5 } } ] }
        """
    }

    private func means(_ metrics: Any?) -> [String: Double] {
        var out: [String: Double] = [:]
        for m in metrics as? [[String: Any]] ?? [] { if let n = m["name"] as? String, let v = m["mean"] as? Double { out[n] = v } }
        return out
    }

    func testTheSectionCarriesTheRunsFiguresPooledAndPerCampaign() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("api.json", Self.scenario(cdnApi: #"{ "profile": "fastly", "failureProbability": 0.2, "retryBaseSeconds": 0.2 }"#))
        let out = t.root.appendingPathComponent("api").path
        XCTAssertEqual(t.run(["run", file, "--out", out]), .ok, t.err.text)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as? [String: Any])
        let pooled = means(summary["metrics"])
        let campaigns = try XCTUnwrap(summary["campaigns"] as? [[String: Any]])
        let early = means(campaigns[0]["metrics"]), late = means(campaigns[1]["metrics"])
        // Counts: the campaigns' add up to the pooled ones (means of sums are sums of means).
        for m in ["cdnApi.purgeCalls", "cdnApi.purgeItems", "cdnApi.purgeRequests", "cdnApi.warmCalls", "cdnApi.warmItems",
                  "cdnApi.warmRequests", "cdnApi.failures", "cdnApi.retries", "cdnApi.batchesAbandoned"] {
            let sum = try XCTUnwrap(early[m], m) + (try XCTUnwrap(late[m], m))
            XCTAssertEqual(sum, try XCTUnwrap(pooled[m], m), accuracy: 1e-9, m)
        }
        // Each campaign: one purge of its one key, two warm calls (warm and re-warm) of 8 lookups per URL.
        for c in [early, late] {
            XCTAssertEqual(c["cdnApi.purgeCalls"], 1)
            XCTAssertEqual(c["cdnApi.purgeItems"], 1, "Fastly purges by key")
            XCTAssertEqual(c["cdnApi.warmCalls"], 2)
            XCTAssertEqual(try XCTUnwrap(c["cdnApi.warmRequests"]), try 8 * XCTUnwrap(c["cdnApi.warmItems"]))
        }
        let md = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        let section = try XCTUnwrap(md.components(separatedBy: "## CDN API\n").dropFirst().first?.components(separatedBy: "\n## ").first, md)
        XCTAssertTrue(section.contains("fastly profile"), section)
        // The tables: the pooled row, then each campaign's, as the summary has them.
        func column(_ title: String) throws -> [String: String] {
            let tables = section.components(separatedBy: "\n\n").map { $0.split(separator: "\n").map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } } }
            let table = try XCTUnwrap(tables.first { $0.first?.contains(title) == true }, title)
            let index = try XCTUnwrap(table[0].firstIndex(of: title))
            XCTAssertEqual(table.dropFirst(2).map { $0[0] }, ["all campaigns", "early", "late"], title)
            return Dictionary(uniqueKeysWithValues: table.dropFirst(2).map { ($0[0], $0[index]) })
        }
        for (m, title) in [("cdnApi.warmRequests", "warm requests"), ("cdnApi.purgeRequests", "purge requests"), ("cdnApi.retries", "retries")] {
            let cells = try column(title)
            for (name, values) in [("all campaigns", pooled), ("early", early), ("late", late)] {
                XCTAssertEqual(Double(cells[name]?.replacingOccurrences(of: ",", with: "") ?? ""), values[m], "\(m) \(name)")
            }
        }
        // The latest warm: the re-warm, 5 s before the send, its 8 lookups per URL done well before it.
        XCTAssertTrue(try column("latest warm done").values.allSatisfy { $0.hasSuffix(" s before") }, section)
        XCTAssertTrue(section.contains("fastly has no pre-warm API: campaign early's warm is requests to each of 8 PoPs"), section)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains(">CDN API<"), "the HTML report has the section")
    }

    /// The section's tables fit the page in Chromium at desktop and phone width, like every report
    /// (one campaign: the Campaigns section's table is not there to judge).
    func testTheSectionIsLaidOutInChromium() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let out = t.root.appendingPathComponent("poc").path
        XCTAssertEqual(t.run(["run", "purge-on-cloudflare", "--devices", "400", "--replications", "2", "--out", out]), .ok, t.err.text)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        XCTAssertTrue(html.contains(">CDN API<"))
        try assertReportLayout(html: html, name: "run-cdn-api", expectedCharts: html.components(separatedBy: "<figure").count - 1)
    }

    func testNoProfileNoSection() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let file = try t.file("free.json", Self.scenario(cdnApi: nil))
        let out = t.root.appendingPathComponent("free").path
        XCTAssertEqual(t.run(["run", file, "--out", out]), .ok, t.err.text)
        let md = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        XCTAssertFalse(md.contains("## CDN API"), md)
        let summary = try String(contentsOfFile: out + "/summary.json", encoding: .utf8)
        XCTAssertFalse(summary.contains("cdnApi."), "no cdnApi metric without a profile")
    }
}
