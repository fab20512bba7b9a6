import Foundation
import ReportKit
import XCTest

extension XCTestCase {
    /// Smallest acceptable rendered text, CSS px.
    package static var reportTextPxMin: Double { 11 }
    /// Height of the review screenshots, CSS px (the top of the report: header, headlines, first charts).
    package static var reportScreenshotHeight: Int { 3000 }

    /// Renders `report` (HTMLRenderer), measures an instrumented copy at 1400 and 390 px and keeps a screenshot of the
    /// real (script-free) page at each width.
    package func assertReportLayout(of report: Report, name: String, expectedCharts: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertReportLayout(html: HTMLRenderer().render(report), name: name, expectedCharts: expectedCharts, file: file, line: line)
    }

    /// The same checks for a rendered report page (e.g. a report.html a command wrote).
    package func assertReportLayout(html: String, name: String, expectedCharts: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let chromium = try ChromiumHarness.executable()
        let directory = try ChromiumHarness.scratchDirectory("reportkit-layout")
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent(name + "-report.html")
        try Data(html.utf8).write(to: page)
        var kept = [page]
        for width in [1400, 390] {
            let label = name + "-" + String(width)
            let probe = directory.appendingPathComponent(label + "-probe.html")
            let framedPage = directory.appendingPathComponent(label + "-framed.html")
            try Data(LayoutProbe.framed(LayoutProbe.instrumented(html), width: width, height: 900).utf8).write(to: probe)
            try Data(LayoutProbe.framed(html, width: width, height: Self.reportScreenshotHeight).utf8).write(to: framedPage)
            let dom = try ChromiumHarness.run(chromium, arguments: ["--window-size=\(width),900", "--dump-dom", probe.absoluteString],
                                              in: directory, name: label + "-dom")
            XCTAssertEqual(dom.exitCode, 0, "\(label): chromium exit status; stderr tail:\n\(dom.stderr.suffix(2000))", file: file, line: line)
            XCTAssertEqual(ChromiumHarness.loadProblems(dom.stderr), [], "\(label): page load problems", file: file, line: line)
            guard let measured = LayoutProbe.measurements(inDump: dom.stdout) else {
                XCTFail("\(label): no layout measurements in the DOM (did the probe script run?)", file: file, line: line)
                continue
            }
            let innerWidth = measured["innerWidth"] as? Double ?? -1
            let scrollWidth = measured["scrollWidth"] as? Double ?? .infinity
            XCTAssertEqual(innerWidth, Double(width), "\(label): the viewport is the requested width", file: file, line: line)
            XCTAssertLessThanOrEqual(scrollWidth, innerWidth, "\(label): the page scrolls sideways", file: file, line: line)
            XCTAssertEqual(measured["visibleCharts"] as? Double, Double(expectedCharts), "\(label): one visible drawing per chart", file: file, line: line)
            let minFont = measured["minFontPx"] as? Double ?? 0
            XCTAssertGreaterThanOrEqual(minFont, Self.reportTextPxMin - 0.05,
                                        "\(label): smallest text \(minFont) px: \"\(measured["minFontText"] ?? "")\"", file: file, line: line)
            XCTAssertEqual(measured["problems"] as? [String] ?? ["(unreadable)"], [], "\(label): layout problems", file: file, line: line)

            let png = directory.appendingPathComponent(label + ".png")
            let shot = try ChromiumHarness.run(chromium, arguments: ["--screenshot=" + png.path, "--window-size=\(width),\(Self.reportScreenshotHeight)",
                                                                     framedPage.absoluteString],
                                               in: directory, name: label + "-shot")
            XCTAssertEqual(shot.exitCode, 0, "\(label): screenshot exit status", file: file, line: line)
            let bytes = [UInt8]((try? Data(contentsOf: png)) ?? Data())
            let size = ChromiumHarness.pngSize(bytes)
            XCTAssertEqual(size?.width, width, "\(label): screenshot width", file: file, line: line)
            // A blank page compresses to a few kB; text and charts make it far larger.
            XCTAssertGreaterThan(bytes.count, 20_000, "\(label): screenshot size in bytes", file: file, line: line)
            if size != nil { kept.append(png) }
        }
        try ChromiumHarness.keep(kept)
    }
}
