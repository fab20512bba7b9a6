import XCTest
@testable import ReportKit

/// Units as people read them, and headline metrics built from measured units.
final class HumanUnitsTests: XCTestCase {
    func testQuantitiesReadInTheUnitThatSuitsTheirSize() {
        XCTAssertEqual(HumanScale.format(0.4123, unit: .seconds), "412 ms")
        XCTAssertEqual(HumanScale.format(0.0456, unit: .seconds), "45.6 ms")
        XCTAssertEqual(HumanScale.format(1.314, unit: .seconds), "1.31 s")
        XCTAssertEqual(HumanScale.format(0.9721, unit: .ratio), "97.2 %")
        // Bandwidth in decimal bit-rate units, the unit CDN commits are stated in.
        XCTAssertEqual(HumanScale.format(4e11, unit: .bitsPerSecond), "400 Gbit/s")
        XCTAssertEqual(HumanScale.format(8.5e8, unit: .bitsPerSecond), "850 Mbit/s")
        XCTAssertEqual(HumanScale.format(1.25e9, unit: .bitsPerSecond), "1.25 Gbit/s")
        XCTAssertEqual(HumanScale.format(640, unit: .bitsPerSecond), "640 bit/s")
        XCTAssertEqual(MeasuredUnit(code: "bit/s"), .bitsPerSecond)
        XCTAssertEqual(HumanScale.format(35.6, unit: .perSecond(noun: "req")), "35.6 req/s")
        // The card that read "23,812.00 1/s".
        XCTAssertEqual(HumanScale.format(23_812, unit: MeasuredUnit(code: "1/s")), "23.8 k/s")
        XCTAssertEqual(HumanScale.format(2_000_000, unit: .count), "2.00 M")
        XCTAssertEqual(HumanScale.format(1_234, unit: .count), "1,234")
        // The compare row that read "2.257e+10".
        XCTAssertEqual(HumanScale.format(2.257e10, unit: .bytes), "22.6 GB")
        XCTAssertEqual(HumanScale.format(512, unit: .bytes), "512 B")
        XCTAssertEqual(HumanScale.format(.nan, unit: .seconds), TextFormat.notANumber)
    }

    func testUnitCodesMapToMeasuredUnits() {
        XCTAssertEqual(MeasuredUnit(code: "s"), .seconds)
        XCTAssertEqual(MeasuredUnit(code: "ratio"), .ratio)
        XCTAssertEqual(MeasuredUnit(code: "bytes"), .bytes)
        XCTAssertEqual(MeasuredUnit(code: "req/s"), .perSecond(noun: "req"))
        XCTAssertEqual(MeasuredUnit(code: "1/s"), .perSecond(noun: ""))
        XCTAssertEqual(MeasuredUnit(code: "devices per PoP"), .other("devices per PoP"))
    }

    func testHeadlineFromMeasuredUnitsScalesValueIntervalAndAlarmAlike() {
        let metric = HeadlineMetric(name: "Extension download p95", id: "extension.download.p95Seconds", measuredValue: 0.84,
                                    measured: .seconds, ciHalfWidth: 0.031, threshold: Threshold(value: 1.2, alarmWhen: .above))
        XCTAssertEqual(metric.unit, "ms")
        XCTAssertEqual(metric.valueText, "840")
        XCTAssertEqual(metric.halfWidthText, "± 31")
        XCTAssertEqual(metric.thresholdText, "above 1,200 ms")
        XCTAssertEqual(metric.thresholdStatus, .clear)
        XCTAssertEqual(metric.id, "extension.download.p95Seconds")
    }

    func testMetricIDsBreakOnlyAfterDotsInHTML() {
        var report = SampleReport.report()
        report.headlines = [HeadlineMetric(name: "Tap-to-paint p50", id: "tapToPaint.p50Seconds", measuredValue: 0.2, measured: .seconds, ciHalfWidth: nil)]
        let html = HTMLRenderer().render(report)
        XCTAssertTrue(html.contains("<h3>Tap-to-paint p50</h3>\n<p class=\"metric-id\"><code>tapToPaint.<wbr>p50Seconds</code></p>"))
        XCTAssertFalse(html.contains("overflow-wrap: anywhere"), "no rule may split a word at an arbitrary letter")
    }

    func testHeaderShowsFactsEveryOverrideAndTheSourceRevision() {
        let report = SampleReport.report()
        let html = HTMLRenderer().render(report)
        XCTAssertTrue(html.contains("<dt>Devices</dt><dd>2,000,000</dd>"))
        XCTAssertTrue(html.contains("<code>--devices 2000000</code> <code>--set world.campaigns[0].warm.aheadSeconds=600</code>"))
        XCTAssertTrue(html.contains("<dt>Source revision</dt><dd><code>99d84ea</code></dd>"))
        let markdown = MarkdownRenderer().render(report)
        XCTAssertTrue(markdown.contains("**Run:** devices 2,000,000 · horizon 1,800 s · campaigns 1 · 20 replications · seed 20261129  \n"), markdown)
        XCTAssertTrue(markdown.contains("**Overrides:** `--devices 2000000` `--set world.campaigns[0].warm.aheadSeconds=600`"))
        XCTAssertTrue(markdown.contains("source `99d84ea`"))
    }
}
