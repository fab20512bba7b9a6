import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PreloadKit
import SimKernel
import SimStats
import XCTest
@testable import Experiments
@testable import ScenarioFormat

/// The gate's decisions and renderings, as pure functions of hand-made values.
final class BenchGateTests: XCTestCase {
    let p95 = BenchMetricGate("tapToPaint.p95Seconds", better: .lower, relative: 0.05, absolute: 0.050, text: "+5 % or +50 ms")
    let hit = BenchMetricGate("edge.prestageHitRatio", better: .higher, absolute: 0.01, text: "−1 point")
    let base: [Double?] = [1.00, 1.10, 0.90, 1.05, 0.95, 1.00]

    func testThresholdIsTheLargerOfRelativeAndAbsolute() {
        XCTAssertEqual(p95.threshold(baselineMean: 0.4), 0.050)  // 5 % of 0.4 = 0.02 < 0.05
        XCTAssertEqual(p95.threshold(baselineMean: 2.0), 0.10, accuracy: 1e-12)  // 5 % of 2 = 0.1 > 0.05
        XCTAssertEqual(hit.threshold(baselineMean: 0.9), 0.01)
    }

    func testIdenticalValuesPass() {
        let c = BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: base, now: base)
        XCTAssertEqual(c.verdict, .pass)
        XCTAssertEqual(c.difference?.mean, 0)
        XCTAssertEqual(c.difference?.halfWidth, 0)
    }

    func testSignificantShiftBeyondThresholdIsARegression() {
        // A constant +0.2 s shift: every paired difference is 0.2, so the interval is [0.2, 0.2]
        // (significant), and 0.2 > max(5 % × 1.0, 0.05) = 0.05.
        let now = base.map { $0.map { $0 + 0.2 } }
        let c = BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: base, now: now)
        XCTAssertEqual(c.verdict, .regression)
        XCTAssertEqual(c.difference?.mean ?? 0, 0.2, accuracy: 1e-12)
        XCTAssertEqual(c.threshold ?? 0, 0.05, accuracy: 1e-12)
        XCTAssertTrue(c.verdict.fails)
    }

    func testSignificantShiftWithinThresholdPasses() {
        // +0.03 s on every replication: significant, but below the 0.05 s threshold.
        let now = base.map { $0.map { $0 + 0.03 } }
        let c = BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: base, now: now)
        XCTAssertEqual(c.verdict, .pass)
        XCTAssertTrue(c.note.contains("within"), c.note)
    }

    func testLargeButNoisyDifferenceIsNotSignificant() {
        // Differences +0.5, −0.4, +0.6, −0.5, +0.4, −0.3: mean 0.05, s ≈ 0.49, so the 99 % half-width
        // t(5) 4.03 × 0.49 / √6 ≈ 0.8 covers 0: noise, not a regression.
        let d = [0.5, -0.4, 0.6, -0.5, 0.4, -0.3]
        let now: [Double?] = base.indices.map { i in base[i].map { $0 + d[i] } }
        let c = BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: base, now: now)
        XCTAssertEqual(c.verdict, .pass)
        XCTAssertTrue(c.note.contains("no significant"), c.note)
    }

    func testHigherIsBetterDirection() {
        let hb: [Double?] = [0.90, 0.92, 0.91, 0.93]
        let worse = hb.map { $0.map { $0 - 0.05 } }, better = hb.map { $0.map { $0 + 0.05 } }
        XCTAssertEqual(BenchGate.check(scenario: "s", gate: hit, unit: "ratio", baseline: hb, now: worse).verdict, .regression)
        XCTAssertEqual(BenchGate.check(scenario: "s", gate: hit, unit: "ratio", baseline: hb, now: better).verdict, .improvement)
        XCTAssertFalse(BenchVerdict.improvement.fails)
    }

    func testMissingAndUnpairedValues() {
        XCTAssertEqual(BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: base, now: nil).verdict, .missing)
        XCTAssertEqual(BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: nil, now: base).verdict, .skipped)
        // Only one replication has a value on both sides: too few pairs.
        let sparse: [Double?] = [1.0, nil, nil, nil, nil, nil]
        XCTAssertEqual(BenchGate.check(scenario: "s", gate: p95, unit: "s", baseline: base, now: sparse).verdict, .skipped)
    }

    func testCPUTimeRatioIsInformationalAndNeverFails() {
        let slow = BenchGate.checkSpeed(baselineRatio: 2.0, nowRatio: 6.0)
        XCTAssertEqual(slow.factor ?? 0, 3, accuracy: 1e-12)
        XCTAssertFalse(slow.verdict.fails)
        var r = sampleReport()
        r.metrics = []
        r.fingerprints = []
        r.speed = slow
        XCTAssertFalse(r.fails, r.text())
    }

    /// A report with one regression, one pass, a changed fingerprint and names needing escapes.
    func sampleReport() -> BenchReport {
        let regression = BenchGate.check(scenario: "a<&\"b", gate: p95, unit: "s", baseline: base, now: base.map { $0.map { $0 + 0.2 } })
        let pass = BenchGate.check(scenario: "a<&\"b", gate: hit, unit: "ratio", baseline: [0.9, 0.8], now: [0.9, 0.8])
        let f1 = BenchFingerprint(replication: 0, events: 10, sha256: "sha256:" + String(repeating: "a", count: 64))
        let f2 = BenchFingerprint(replication: 0, events: 11, sha256: "sha256:" + String(repeating: "b", count: 64))
        return BenchReport(metrics: [regression, pass], fingerprints: [BenchGate.check(scenario: "a<&\"b", baseline: f1, now: f2)],
                           instructions: .skipped("not counted"), speed: BenchGate.checkSpeed(baselineRatio: 2, nowRatio: 2.1),
                           errors: [], notes: ["x | y"])
    }

    func testJUnitIsWellFormedWithOneTestcasePerCheck() throws {
        let xml = sampleReport().junitXML()
        let counter = JUnitCounter()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "?")\n\(xml)")
        // 2 metrics + 1 fingerprint + the instruction count + the CPU-time ratio.
        XCTAssertEqual(counter.testcases, ["tapToPaint.p95Seconds", "edge.prestageHitRatio", "fingerprint", "instructions", "cpuTimeRatio"])
        XCTAssertEqual(counter.failuresIn, ["tapToPaint.p95Seconds", "fingerprint"])
        XCTAssertEqual(counter.suites.first, "a<&\"b")  // the escaped name reads back unchanged
        XCTAssertEqual(counter.rootFailures, "2")
        XCTAssertEqual(counter.rootTests, "5")
    }

    func testMarkdownAndTextNameEveryFailure() {
        let r = sampleReport()
        XCTAssertTrue(r.fails)
        XCTAssertEqual(r.failures.count, 2)
        let md = r.markdown(), text = r.text()
        XCTAssertTrue(md.contains("❌ failed"))
        XCTAssertTrue(md.contains("| `tapToPaint.p95Seconds` |"))
        XCTAssertTrue(md.contains("x \\| y"), "a pipe in a note must not break the table")
        XCTAssertTrue(text.contains("bench: FAILED — a<&\"b tapToPaint.p95Seconds: regression"), text)
        XCTAssertTrue(text.contains("a<&\"b fingerprint: changed"), text)
    }

    func testTraceHasherHashesTheDocumentedByteLayout() {
        // 5 000 events (more than the 2 048-event buffer, so flushing is exercised), encoded here
        // independently: time Int64, kind UInt16, target UInt32, payload UInt64, little-endian.
        var sink = TraceHasher()
        var bytes: [UInt8] = []
        for i in 0..<5_000 {
            let e = Event(time: SimTime(ticks: Int64(i) * 7_919 - 3), kind: EventKind(UInt16(i % 300)), target: UInt32(i * 31), payload: UInt64(i) &* 0x9E37_79B9_7F4A_7C15)
            sink.record(e)
            withUnsafeBytes(of: e.time.ticks.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: e.kind.rawValue.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: e.target.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: e.payload.littleEndian) { bytes += $0 }
        }
        let f = sink.fingerprint(replication: 3)
        XCTAssertEqual(bytes.count, 5_000 * 22)
        XCTAssertEqual(f.sha256, "sha256:" + SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(f.events, 5_000)
        XCTAssertEqual(f.replication, 3)
    }

    func testCalibrationWorkloadIsDeterministicAndTakesCPUTime() {
        let a = BenchSpeed.calibrationWorkload(steps: 20_000, entries: 512, tableEntries: 1_024)
        let t0 = BenchSpeed.threadCPUSeconds()
        let b = BenchSpeed.calibrationWorkload(steps: 20_000, entries: 512, tableEntries: 1_024)
        let t1 = BenchSpeed.threadCPUSeconds()
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, BenchSpeed.calibrationWorkload(steps: 20_001, entries: 512, tableEntries: 1_024))
        XCTAssertGreaterThan(t1, t0, "thread CPU clock did not advance over 20 000 heap steps")
    }

    func testSuiteRatioIsTheMedianOfPerRoundRatiosToTheAdjacentCalibrations() {
        // Calibrations 1, 1, 2, 2 s around rounds of 5, 10, 8 s: per-round ratios 5 / 1 = 5,
        // 10 / 1.5 ≈ 6.67, 8 / 2 = 4; the median is 5.
        let m = BenchSpeedMeasurement(calibrationChecksum: 0, calibrationBestSeconds: 1, calibrationSeconds: [1, 1, 2, 2],
                                      roundSums: [5, 10, 8], scenarios: [])
        XCTAssertEqual(m.suiteRatio, 5, accuracy: 1e-12)
    }

    func testSpeedBaselineRoundsToFourSignificantDigits() {
        XCTAssertEqual(BenchSpeedBaseline.rounded(3.14159), 3.142)
        XCTAssertEqual(BenchSpeedBaseline.rounded(0.0123456), 0.01235)
        XCTAssertEqual(BenchSpeedBaseline.rounded(12_345.6), 12_350)
    }
}

/// Counts JUnit elements while parsing.
final class JUnitCounter: NSObject, XMLParserDelegate {
    var testcases: [String] = []
    var failuresIn: [String] = []
    var suites: [String] = []
    var rootTests = "", rootFailures = ""

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "testsuites":
            rootTests = attributes["tests"] ?? ""
            rootFailures = attributes["failures"] ?? ""
        case "testsuite": suites.append(attributes["name"] ?? "")
        case "testcase": testcases.append(attributes["name"] ?? "")
        case "failure": failuresIn.append(testcases.last ?? "")
        default: break
        }
    }
}
