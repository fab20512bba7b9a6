import XCTest
@testable import LogFit

/// Each reader parses its shipped sample field by field; malformed lines are counted and quoted
/// with their line numbers.
final class ReaderTests: XCTestCase {
    /// 2026-11-27T09:55:00Z.
    static let sampleStart = 1_795_773_300.0

    func testCloudFrontSampleFieldByField() throws {
        let (rows, problems) = try records("cloudfront.log") { try CloudFrontReader.read($0, problems: &$1, emit: $2) }
        XCTAssertEqual(rows.count, 480)
        XCTAssertEqual(rows[0], EdgeRecord(timeSeconds: Self.sampleStart, pop: "NRT", cache: .hit, firstByteSeconds: 0.003,
                                           totalSeconds: 0.012, originSeconds: nil, bytes: 76685, status: 200, originStatus: nil))
        XCTAssertEqual(rows.filter { $0.cache == .error }.allSatisfy { $0.status == 503 }, true)
        XCTAssertEqual(Set(rows.map(\.pop)), ["FRA", "IAD", "NRT"])
        XCTAssertEqual(problems.count, 2)
        XCTAssertTrue(problems.quoted[0].hasSuffix("cloudfront.log:104: expected at least 28 tab-separated fields, found 1: «this line is not a CloudFront record»"), problems.quoted[0])
        XCTAssertTrue(problems.quoted[1].contains("cloudfront.log:205:"), problems.quoted[1])
    }

    func testGzipAndPlainGiveTheSameRecords() throws {
        let (plain, _) = try records("cloudfront.log") { try CloudFrontReader.read($0, problems: &$1, emit: $2) }
        let (gz, problems) = try records("cloudfront.log.gz") { try CloudFrontReader.read($0, problems: &$1, emit: $2) }
        XCTAssertEqual(plain, gz)
        XCTAssertEqual(problems.count, 2)
        XCTAssertTrue(problems.fileNotes.isEmpty)
    }

    func testTruncatedGzipKeepsTheLinesBeforeAndSaysSo() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let data = try Data(contentsOf: URL(fileURLWithPath: Samples.path("cloudfront.log.gz")))
        let cut = dir.url.appendingPathComponent("cut.log.gz")
        try data.prefix(data.count / 2).write(to: cut)
        var problems = ReadProblems()
        var n = 0
        try CloudFrontReader.read(try LineSource(path: cut.path), problems: &problems) { _ in n += 1 }
        XCTAssertGreaterThan(n, 50)
        XCTAssertLessThan(n, 480)
        XCTAssertEqual(problems.fileNotes.count, 1)
        XCTAssertTrue(problems.fileNotes.first?.contains("the input ends early") == true, "\(problems.fileNotes)")
    }

    func testCloudFrontHeaderWithoutARequiredFieldIsRejected() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let path = try dir.file("bad.log", "#Version: 1.0\n#Fields: date time x-edge-location\n2026-11-27\t10:00:00\tFRA1\n")
        var problems = ReadProblems()
        XCTAssertThrowsError(try CloudFrontReader.read(try LineSource(path: path), problems: &problems) { _ in }) { e in
            XCTAssertTrue("\(e)".contains("line 2: #Fields: lacks x-edge-result-type, time-taken"), "\(e)")
        }
    }

    func testCloudflareSampleFieldByField() throws {
        let (rows, problems) = try records("cloudflare.ndjson") { CloudflareReader.read($0, problems: &$1, emit: $2) }
        XCTAssertEqual(rows.count, 451)
        let first = rows[0]
        XCTAssertEqual(first.timeSeconds, Self.sampleStart + 0.199017, accuracy: 1e-6)
        XCTAssertEqual(first.pop, "IAD")
        XCTAssertEqual(first.cache, .hit)
        XCTAssertEqual(first.firstByteSeconds, 0.006)
        XCTAssertEqual(first.totalSeconds!, 0.037, accuracy: 1e-6)
        XCTAssertNil(first.originSeconds)
        XCTAssertEqual(first.bytes, 44263)
        XCTAssertEqual(first.status, 200)
        XCTAssertNil(first.originStatus)
        // The last row uses unix nanoseconds and a lowercase colo.
        XCTAssertEqual(rows.last, EdgeRecord(timeSeconds: Self.sampleStart + 300, pop: "FRA", cache: .hit, firstByteSeconds: 0.007,
                                             bytes: 1800, status: 200))
        let misses = rows.filter { $0.cache == .miss }
        XCTAssertTrue(misses.allSatisfy { $0.originSeconds != nil && $0.originStatus != nil })
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.quoted[0].contains("cloudflare.ndjson:79: the object is cut off"), problems.quoted[0])
    }

    func testGenericCSVSampleThroughAMapping() throws {
        let mapping = try CSVMapping(parsing: ["time=timestamp,pop=pop,cache=cache_status", "ttfb=ttfb_ms:ms,total=elapsed_ms:ms,bytes=resp_bytes,status=status"])
        let (rows, problems) = try records("fastly.csv") { try CSVReader.readEdge($0, mapping: mapping, problems: &$1, emit: $2) }
        XCTAssertEqual(rows.count, 320)
        XCTAssertEqual(rows[0].timeSeconds, Self.sampleStart)
        XCTAssertEqual(rows[0].pop, "AMS")
        XCTAssertEqual(rows[0].cache, .hit)
        XCTAssertEqual(rows[0].firstByteSeconds!, 0.00524, accuracy: 1e-12)
        XCTAssertEqual(rows[0].totalSeconds!, 0.02978, accuracy: 1e-12)
        XCTAssertEqual(rows[0].bytes, 42160)
        XCTAssertEqual(rows[0].status, 200)
        XCTAssertTrue(rows.contains { $0.cache == .other })  // PASS
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.quoted[0].contains("fastly.csv:53: ttfb_ms: expected a number >= 0"), problems.quoted[0])
        XCTAssertThrowsError(try CSVMapping(parsing: ["ttfb=x:minutes"]))
        XCTAssertThrowsError(try CSVMapping(parsing: ["ttfb=x"])) { e in XCTAssertTrue("\(e)".contains("time column is required")) }
        let wrong = try CSVMapping(parsing: ["time=when,cache=cache_status"])
        var p = ReadProblems()
        XCTAssertThrowsError(try CSVReader.readEdge(try LineSource(path: Samples.path("fastly.csv")), mapping: wrong, problems: &p) { _ in }) { e in
            XCTAssertTrue("\(e)".contains("no column \"when\""), "\(e)")
        }
    }

    func testPushSampleFieldByFieldWithTimeZones() throws {
        let (rows, problems) = try records("pushes.csv") { try CSVReader.readPushes($0, problems: &$1, emit: $2) }
        XCTAssertEqual(rows.count, 800)
        let sent = Self.sampleStart + 300  // 2026-11-27T11:00:00.000+01:00
        XCTAssertEqual(rows[0], PushRecord(sentSeconds: sent, deliveredSeconds: sent + 0.144,
                                           openedSeconds: sent + 4 * 3600 + 50 * 60 + 43.636, platform: "android", network: "lte"))
        XCTAssertEqual(rows[1].sentSeconds, sent + 0.05, accuracy: 1e-9)  // 05:00:00.050-05:00
        XCTAssertNil(rows[1].openedSeconds)
        XCTAssertEqual(Set(rows.map(\.platform)), ["ios", "android"])
        XCTAssertTrue(rows.contains { $0.network == nil })
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.quoted[0].contains("pushes.csv:303: sent_at: expected"), problems.quoted[0])
    }

    func testTimestampsInEachFormat() {
        func t(_ s: String) -> Double? { Array(s.utf8).withUnsafeBufferPointer { Timestamp.parse($0) } }
        XCTAssertEqual(t("2026-11-27T09:55:00Z"), Self.sampleStart)
        XCTAssertEqual(t("2026-11-27 09:55:00"), Self.sampleStart)
        XCTAssertEqual(t("2026-11-27T10:55:00+01:00"), Self.sampleStart)
        XCTAssertEqual(t("2026-11-27T04:55:00-0500"), Self.sampleStart)
        XCTAssertEqual(t("2026-11-27T09:55:00.250Z"), Self.sampleStart + 0.25)
        XCTAssertEqual(t("1795773300"), Self.sampleStart)
        XCTAssertEqual(t("1795773300000"), Self.sampleStart)
        XCTAssertEqual(t("1795773300000000000"), Self.sampleStart)
        XCTAssertEqual(t("2024-02-29T00:00:00Z"), 1_709_164_800)
        XCTAssertNil(t("2026-02-30T00:00:00Z"))
        XCTAssertNil(t("2026-11-27T25:00:00Z"))
        XCTAssertNil(t("2026-11-27T09:55:00+1"))
        XCTAssertNil(t("yesterday"))
        XCTAssertNil(t("1e400"))
        XCTAssertNil(t("nan"))
        XCTAssertNil(t("-5"))
    }

    /// Garbage of any kind is counted, the first few quoted, and never traps; a file with nothing
    /// usable is an error naming the reason.
    func testGarbageIsCountedBoundedAndNoUsableRowsIsAnError() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        var text = "{\"EdgeStartTimestamp\":\"not a time\"}\n\u{0}\u{1}binary\n{\"a\":[1,{\"b\":\"}\"}]}\n"
        for i in 0..<1000 { text += "{\"EdgeStartTimestamp\": \(i % 2 == 0 ? "\"2026-13-01T00:00:00Z\"" : "[") }\n" }
        text += String(repeating: "x", count: LineSource.lineBytesMax + 10) + "\n"
        let path = try dir.file("garbage.ndjson", text)
        var request = FitRequest(logs: [path], format: .cloudflare)
        request.bootstrapReplicates = 0
        XCTAssertThrowsError(try LogFitter.run(request)) { e in
            guard case let LogFitError.noUsableRows(reason) = e else { return XCTFail("\(e)") }
            XCTAssertTrue(reason.contains("1004 malformed line(s)"), reason)
            XCTAssertTrue(reason.contains("garbage.ndjson:1: EdgeStartTimestamp"), reason)
        }
        var problems = ReadProblems()
        CloudflareReader.read(try LineSource(path: path), problems: &problems) { _ in }
        XCTAssertEqual(problems.quoted.count, ReadProblems.quotedMax)
        XCTAssertTrue(problems.quoted.allSatisfy { $0.count < 400 })
        XCTAssertThrowsError(try LineSource(path: dir.url.appendingPathComponent("missing.log").path))
        XCTAssertThrowsError(try LineSource(path: dir.url.path)) { e in XCTAssertTrue("\(e)".contains("is a directory"), "\(e)") }
        // Infinite or absurd numbers never reach the accumulators' integer conversions.
        let inf = try dir.file("inf.csv", "t,c,ttfb\n1e400,HIT,1\n1795773600,HIT,1e400\n1795773600,MISS,1e999\n")
        var csv = FitRequest(logs: [inf], format: .csv)
        csv.mapping = try CSVMapping(parsing: ["time=t,cache=c,ttfb=ttfb"])
        let outcome = try LogFitter.run(csv)
        XCTAssertEqual(outcome.problems.count, 1)
        XCTAssertEqual(outcome.rowsUsed, 2)
    }
}
