import Foundation
import XCTest
@testable import ReportKit

final class RendererTests: XCTestCase {
    func testRenderingIsByteIdenticalForEqualInput() {
        // Two independently built (equal) reports, each rendered twice.
        let first = SampleReport.report()
        let second = SampleReport.report()
        let markdown = MarkdownRenderer().render(first)
        XCTAssertEqual(Data(markdown.utf8), Data(MarkdownRenderer().render(first).utf8))
        XCTAssertEqual(Data(markdown.utf8), Data(MarkdownRenderer().render(second).utf8))
        let html = HTMLRenderer().render(first)
        XCTAssertEqual(Data(html.utf8), Data(HTMLRenderer().render(first).utf8))
        XCTAssertEqual(Data(html.utf8), Data(HTMLRenderer().render(second).utf8))
        // And the output depends on the data: a changed value changes the bytes.
        var changed = first
        changed.headlines[0].value += 1
        XCTAssertNotEqual(HTMLRenderer().render(changed), html)
        XCTAssertNotEqual(MarkdownRenderer().render(changed), markdown)
    }

    func testHostileTitleAndScenarioNameAreEscapedInHTML() {
        let report = SampleReport.report(title: "<script>alert('x')</script> & Co",
                                         scenarioName: "\"><img src=x onerror=alert(1)>")
        let html = HTMLRenderer().render(report)
        XCTAssertFalse(html.contains("<script"), "no script element may appear")
        XCTAssertFalse(html.contains("<img"), "no injected element may appear")
        XCTAssertTrue(html.contains("<h1>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; Co</h1>"))
        XCTAssertTrue(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        XCTAssertTrue(html.contains("<title>&lt;script&gt;"), "the document title is escaped too")
    }

    func testHostileTitleIsEscapedInMarkdown() {
        let report = SampleReport.report(title: "<script>alert(1)</script> & Co | x", scenarioName: "a*b*\nc")
        let markdown = MarkdownRenderer().render(report)
        XCTAssertTrue(markdown.hasPrefix("# \\<script\\>alert(1)\\</script\\> \\& Co \\| x\n"), String(markdown.prefix(80)))
        XCTAssertTrue(markdown.contains("**Scenario:** a\\*b\\* c — "), "newline folded, emphasis escaped")
    }

    func testHTMLIsSelfContainedWithOneSVGPerChart() {
        let html = HTMLRenderer().render(SampleReport.report())
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 2 * SampleReport.chartCount, "a wide and a narrow drawing per chart")
        XCTAssertEqual(html.components(separatedBy: "class=\"chart-box narrow\"").count - 1, SampleReport.chartCount)
        XCTAssertEqual(html.components(separatedBy: "<figure").count - 1, SampleReport.chartCount)
        XCTAssertEqual(html.components(separatedBy: "<details").count - 1, SampleReport.chartCount, "every chart has its data table")
        XCTAssertEqual(html.components(separatedBy: "<details open>").count - 1, 1, "the breakdown's counts are shown without a click")
        XCTAssertFalse(html.contains("<script"))
        for reference in [" src=", "href=", "url(", "@import", "<link"] {
            XCTAssertFalse(html.contains(reference), "external reference \(reference)")
        }
        // The only URL is the SVG namespace name, which is an identifier, not a fetched resource.
        XCTAssertFalse(html.contains("https:"))
        XCTAssertEqual(html.components(separatedBy: "http:").count - 1, html.components(separatedBy: "http://www.w3.org/2000/svg").count - 1)
        XCTAssertTrue(html.contains("default-src 'none'"), "CSP forbids any fetch")
        // Chart ids are unique in the page.
        XCTAssertEqual(html.components(separatedBy: "id=\"chart-1-title\"").count - 1, 1)
        XCTAssertEqual(html.components(separatedBy: "id=\"chart-5-title\"").count - 1, 1)
    }

    func testHTMLHeadlineCardsShowStatusNotOnlyByColour() {
        let html = HTMLRenderer().render(SampleReport.report())
        // Extension download p95 1.314 ± 0.052 s against an alarm above 1.2 s: breached.
        XCTAssertTrue(html.contains("<span class=\"badge breached\">ALARM</span>alarm above 1.20 s"), "status is written out")
        // Origin peak 1840 ± 175 against 2000: the interval reaches 2015 → "CI crosses".
        XCTAssertTrue(html.contains("<span class=\"badge within\">CI crosses</span>alarm above 2,000 req/s"))
    }

    /// Every Markdown table: the same number of cells on each line, a separator row of alignment markers,
    /// and the expected header and rows.
    func testMarkdownTablesAreWellShaped() throws {
        let report = SampleReport.report()
        let markdown = MarkdownRenderer().render(report)
        let tables = Self.tableBlocks(markdown)
        XCTAssertEqual(tables.count, 1 + SampleReport.chartCount + 1, "headlines + one data table per chart + the cost table")
        for table in tables {
            let widths = table.map { Self.cells($0).count }
            XCTAssertEqual(Set(widths).count, 1, "cell counts differ: \(table.joined(separator: "\n"))")
            XCTAssertGreaterThanOrEqual(table.count, 2)
            let separator = Self.cells(table[1])
            XCTAssertTrue(separator.allSatisfy { $0.range(of: "^(:-+|-+:)$", options: .regularExpression) != nil }, table[1])
            XCTAssertEqual(Set(table.map { $0.count }).count, 1, "padded columns make every line the same length:\n\(table.joined(separator: "\n"))")
        }
        let headline = tables[0]
        XCTAssertEqual(Self.cells(headline[0]), ["Metric", "Value", "95% CI", "Unit", "Alarm", "Status", "ID"])
        XCTAssertEqual(headline.count, 2 + report.headlines.count)
        // Extension download p95: 1.314 → "1.31", ± 0.052 → "± 0.05", threshold 1.2 at 2 decimals.
        XCTAssertEqual(Self.cells(headline[4]), ["Extension download p95", "1.31", "± 0.05", "s", "above 1.20 s", "ALARM", ""])
        XCTAssertEqual(Self.cells(headline[3]), ["Tap-to-paint p95", "412", "± 18", "ms", "—", "—", "`tapToPaint.p95Seconds`"],
                       "seconds below one read as ms; the id as code; no threshold, no status")
        // The breakdown table: outcomes as rows, populations as columns, plus the total row.
        let breakdown = try XCTUnwrap(tables.first { Self.cells($0[0]).first == "Outcome" })
        XCTAssertEqual(Self.cells(breakdown[0]), ["Outcome", "iOS", "Android", "All pushes"])
        XCTAssertEqual(breakdown.count, 2 + SampleReport.preloadOutcomes.categories.count + 1)
        XCTAssertEqual(Self.cells(breakdown[2]), ["Completed", "712,400 (84.8%)", "861,000 (74.2%)", "1,573,400 (78.7%)"])
    }

    func testCIColumnNamesEachLevelWhenLevelsDiffer() {
        var report = SampleReport.report()
        report.headlines[1].ciLevel = 0.999
        let table = MarkdownRenderer.headlineTable(report.headlines)
        XCTAssertEqual(table.columns[2].title, "CI")
        XCTAssertEqual(table.rows[1][2].text, "± 18 (99.9%)")
        XCTAssertEqual(table.rows[0][2].text, "± 0.6 (95%)")
    }

    // MARK: Helpers

    /// Consecutive lines starting with "|".
    static func tableBlocks(_ markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("|") {
                current.append(line)
            } else if !current.isEmpty {
                blocks.append(current)
                current = []
            }
        }
        if !current.isEmpty { blocks.append(current) }
        return blocks
    }

    /// A table line's cells, split on unescaped pipes and trimmed.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" { current.append(character); escaped = true; continue }
            if character == "|" { cells.append(current); current = ""; continue }
            current.append(character)
        }
        cells.append(current)
        // Drop the empty text before the first and after the last pipe.
        return cells.dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
