import XCTest
@testable import Experiments
import ScenarioFormat

/// The report's objectives table speaks in the cards' titles and units, not raw numbers.
final class SLODisplayTests: XCTestCase {
    func testObjectiveRowsUseTheCardsTitlesAndHumanUnits() throws {
        let objectives = try JSONDecoder().decode([ServiceLevelObjective].self, from: Data("""
            [{"metric": "edge.prestageHitRatio", "op": ">=", "threshold": 0.9},
             {"metric": "tapToPaint.p95Seconds", "op": "<=", "threshold": 1.2},
             {"metric": "outcomes.completedShare", "op": ">=", "threshold": 0.5}]
            """.utf8))
        let values: [String: [Double]] = ["edge.prestageHitRatio": [0.8801, 0.8838, 0.8875],
                                          "tapToPaint.p95Seconds": [0.85, 0.88, 0.92],
                                          "outcomes.completedShare": [1, 1, 1]]
        let slo = SLOReport(objectives) { values[$0] ?? [] }
        let table = slo.displayTable
        let rows = table.rows.map { $0.map(\.text) }
        XCTAssertEqual(rows[0][0], "Pre-stage edge hit ratio ≥ 90.0 %")
        XCTAssertEqual(rows[0][1], "edge.prestageHitRatio")
        XCTAssertEqual(rows[0][3], "88.4 %", "a share as a percentage, not 0.8838")
        XCTAssertTrue(rows[0][4].hasSuffix(" %") && rows[0][4].contains(" – "), rows[0][4])
        XCTAssertEqual(rows[1][0], "Tap to paint, p95 ≤ 1.20 s")
        XCTAssertEqual(rows[1][3], "883 ms")
        XCTAssertEqual(rows[2][4], "100.0 % in every replication", "not [1, 1]")
        XCTAssertEqual(rows[2][5], "pass")
        for row in rows { XCTAssertFalse(row.contains { $0.hasPrefix("[") }, "no bracketed raw intervals: \(row)") }
        // A count's interval stops at 0, as the plan's charts draw it.
        let rejections = try JSONDecoder().decode([ServiceLevelObjective].self, from: Data(#"[{"metric": "origin.rejected503", "op": "<=", "threshold": 5}]"#.utf8))
        let counts = SLOReport(rejections) { _ in [0, 0, 36] }
        XCTAssertTrue(counts.displayTable.rows[0][4].text.hasPrefix("0.0 – ") && !counts.displayTable.rows[0][4].text.contains("-"), counts.displayTable.rows[0][4].text)
        XCTAssertEqual(counts.displayTable.rows[0][0].text, "Origin 503 rejections ≤ 5.00")
        // A chance constraint: the replications within, and the bounds on the chance of one.
        let days = try JSONDecoder().decode([ServiceLevelObjective].self, from: Data(#"[{"metric": "origin.rejected503", "op": "<=", "threshold": 0, "probability": 0.9, "confidence": 0.9}]"#.utf8))
        let chance = SLOReport(days) { _ in [0, 0, 0] }.displayTable.rows[0]
        XCTAssertEqual(chance[0].text, "Origin 503 rejections ≤ 0 on ≥ 90.0 % of replications")
        XCTAssertEqual(chance[3].text, "0 (3 of 3 within)")
        XCTAssertEqual(chance[4].text, "P 46.4 % – 100.0 %")
        XCTAssertEqual(chance[5].text, "undecided")
        guard case .paragraph(let verdict) = slo.displaySection.blocks[0] else { return XCTFail("the verdict first") }
        XCTAssertTrue(verdict.hasPrefix("Verdict: FAIL — "), verdict)
        XCTAssertTrue(verdict.hasSuffix("(mean 88.4 %)."), verdict)
    }
}
