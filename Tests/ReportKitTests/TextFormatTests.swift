import XCTest
@testable import ReportKit

final class TextFormatTests: XCTestCase {
    func testFixedDecimalsRoundHalfAwayFromZeroWithPointSeparator() {
        // Expected strings written by hand; 2.5, 0.125 and 12.5 are exact in binary so the halves are real halves.
        XCTAssertEqual(TextFormat.fixed(2.5, decimals: 0), "3")
        XCTAssertEqual(TextFormat.fixed(-2.5, decimals: 0), "-3")
        XCTAssertEqual(TextFormat.fixed(0.125, decimals: 2), "0.13")
        XCTAssertEqual(TextFormat.fixed(3, decimals: 3), "3.000")
        XCTAssertEqual(TextFormat.fixed(0.000123, decimals: 5), "0.00012")
        XCTAssertEqual(TextFormat.fixed(-12.34, decimals: 1), "-12.3")
        XCTAssertEqual(TextFormat.fixed(1234567.891, decimals: 2, grouping: true), "1,234,567.89")
        XCTAssertEqual(TextFormat.fixed(999.996, decimals: 2, grouping: true), "1,000.00")
    }

    func testFixedNeverPrintsNegativeZeroOrGarbage() {
        XCTAssertEqual(TextFormat.fixed(-0.001, decimals: 2), "0.00")
        XCTAssertEqual(TextFormat.fixed(-0.0, decimals: 0), "0")
        XCTAssertEqual(TextFormat.fixed(.nan, decimals: 2), "n/a")
        XCTAssertEqual(TextFormat.fixed(-.infinity, decimals: 2), "n/a")
        // Beyond 2^53 units the shortest round-trip form is used (still locale-free).
        XCTAssertEqual(TextFormat.fixed(1e300, decimals: 2), "1e+300")
        // Decimals are clamped to 0...9 instead of trapping.
        XCTAssertEqual(TextFormat.fixed(1.5, decimals: -3), "2")
        XCTAssertEqual(TextFormat.fixed(1, decimals: 40), "1.000000000")
    }

    func testCountsAndPercentages() {
        XCTAssertEqual(TextFormat.count(0), "0")
        XCTAssertEqual(TextFormat.count(999), "999")
        XCTAssertEqual(TextFormat.count(1000), "1,000")
        XCTAssertEqual(TextFormat.count(-1_234_567), "-1,234,567")
        XCTAssertEqual(TextFormat.count(Int.min), "-9,223,372,036,854,775,808")
        XCTAssertEqual(TextFormat.percent(fraction: 0.6171), "61.7%")
        XCTAssertEqual(TextFormat.percent(fraction: 1, decimals: 0), "100%")
    }

    func testXMLEscapingNeutralisesMarkupAndInvalidCharacters() {
        XCTAssertEqual(TextFormat.escapeXML("<a href=\"x\">Tom & Jerry's</a>"),
                       "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
        // C0 controls are not allowed in XML 1.0 even as references; tab/newline stay.
        XCTAssertEqual(TextFormat.escapeXML("a\u{1}b\u{FFFF}c\td\ne"), "a\u{FFFD}b\u{FFFD}c\td\ne")
        XCTAssertEqual(TextFormat.escapeXML("Zürich · 東京 ≤ 500 ms"), "Zürich · 東京 ≤ 500 ms")
    }

    func testMarkdownEscapingKeepsTextLiteralOnOneLine() {
        XCTAssertEqual(TextFormat.escapeMarkdown("<script>alert(1)</script> & co"), "\\<script\\>alert(1)\\</script\\> \\& co")
        XCTAssertEqual(TextFormat.escapeMarkdown("a|b\r\nc"), "a\\|b c")
        XCTAssertEqual(TextFormat.escapeMarkdown("*bold* _it_ [link](x) `code` # ~~s~~ \\"),
                       "\\*bold\\* \\_it\\_ \\[link\\](x) \\`code\\` \\# \\~\\~s\\~\\~ \\\\")
    }
}
