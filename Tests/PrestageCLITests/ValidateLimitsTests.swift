import Foundation
import XCTest
@testable import PrestageCLI

/// `validate` refuses what `run` refuses, and its messages stay bounded and printable whatever
/// the input.
final class ValidateLimitsTests: XCTestCase {
    /// A scenario of 100 devices with `campaign` as its one campaign and `extra` top-level members.
    static func scenario(campaign: String = #"{"name": "c"}"#, extra: String = "") -> String {
        #"{"name": "limits", "question": "q?", "population": {"devices": 100}, "campaigns": ["# + campaign + "]" + extra + "}"
    }

    func assertValidateAndRunRefuse(_ text: String, mention: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let path = try t.file("s.json", text)
        XCTAssertEqual(t.run(["validate", path]), .badInput, t.err.text, file: file, line: line)
        XCTAssertTrue(t.err.text.contains(mention), t.err.text, file: file, line: line)
        let before = t.err.text.count
        XCTAssertEqual(t.run(["run", path, "--replications", "1", "--out", t.root.appendingPathComponent("o").path]), .badInput,
                       t.err.text, file: file, line: line)
        XCTAssertTrue(String(t.err.text.dropFirst(before)).contains(mention), t.err.text, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: t.root.appendingPathComponent("o.partial").path), file: file, line: line)
    }

    func testAssetAndVariantBytesAboveWhatPreloadKitAccepts() throws {
        try assertValidateAndRunRefuse(Self.scenario(campaign: #"{"name": "c", "assets": [{"bytes": 60000000}]}"#),
                                       mention: "campaigns[0].assets[0].bytes: expected an integer in 1...50000000, found 60000000")
        try assertValidateAndRunRefuse(
            Self.scenario(campaign: #"{"name": "c", "assets": [{"type": "video", "bytes": 1000, "variants": [{"network": "wifi", "bytes": 60000000}]}]}"#),
            mention: "campaigns[0].assets[0].variants[0].bytes: expected an integer in 1...50000000")
    }

    /// Every field in range, but the push payload they make (11 KB) is over the APNs/FCM 4 KB
    /// limit (checked on the encoded push before PreloadKit's own 8 KiB document limit).
    func testCampaignWhosePayloadExceedsTheLimit() throws {
        let assets = (0..<16).map { i in
            #"{"name": "asset-\#(i)-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "bytes": 1000000, "variants": ["#
                + ["wifi", "5g", "4g", "3g"].map { #"{"network": "\#($0)", "bytes": 500000}"# }.joined(separator: ",") + "]}"
        }.joined(separator: ",")
        try assertValidateAndRunRefuse(Self.scenario(campaign: #"{"name": "c", "assets": [\#(assets)]}"#),
                                       mention: "campaigns[0]: the push payload is 11344 bytes (payloadForm \"inline\", 16 assets, signature included), over the APNs/FCM limit of 4096 bytes")
    }

    func testCatalogueAboveTheCategoricalTableLimitIsShortToReport() throws {
        let background = #", "infra": {"edgeCache": {"background": {"kind": "explicitStream", "requestsPerSecond": 10, "catalogueObjects": 1000000, "zipfExponent": 0.8, "objectBytes": 1000}}}"#
        try assertValidateAndRunRefuse(Self.scenario(extra: background),
                                       mention: "infra.edgeCache.background.catalogueObjects: expected an integer in 1...100000, found 1000000")
    }

    /// A 2 MB unknown key costs a few hundred bytes of messages, not megabytes.
    func testHugeUnknownKeyIsQuotedShort() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let path = try t.file("s.json", Self.scenario(extra: #", "\#(String(repeating: "k", count: 2_000_000))": 1"#))
        XCTAssertEqual(t.run(["validate", path]), .badInput)
        XCTAssertLessThan(t.err.text.utf8.count, 2_000, String(t.err.text.prefix(400)))
        XCTAssertTrue(t.err.text.contains("unknown key \"" + String(repeating: "k", count: 200) + "…\""), String(t.err.text.prefix(400)))
    }

    /// 1 000 unknown keys (150 000 behave the same, slower): 100 listed, "… and 900 more", and the
    /// count says 1000.
    func testManyProblemsAreCountedAndElided() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let keys = (0..<1_000).map { #""unknown\#($0)": 1"# }.joined(separator: ", ")
        let path = try t.file("s.json", Self.scenario(extra: ", " + keys))
        XCTAssertEqual(t.run(["validate", path]), .badInput)
        XCTAssertTrue(t.err.text.contains("… and 900 more"), String(t.err.text.suffix(300)))
        XCTAssertTrue(t.err.text.contains("s.json: 1000 problems"), String(t.err.text.suffix(300)))
    }

    /// A right-to-left override in a key is shown escaped, never raw.
    func testBidirectionalCharactersAreEscaped() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let path = try t.file("s.json", Self.scenario(extra: ", \"ab\u{202E}cd\": 1"))
        XCTAssertEqual(t.run(["validate", path]), .badInput)
        XCTAssertFalse(t.err.text.unicodeScalars.contains("\u{202E}"), t.err.text)
        XCTAssertTrue(t.err.text.contains("ab\\u{202E}cd"), t.err.text)
    }

    /// Deeper than 16 nested shifts: one true problem, no false "is null".
    func testDeepNestingReportsNoFalseNull() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        var distribution = #"{"kind": "constant", "value": 1}"#
        for _ in 0..<19 { distribution = #"{"kind": "shift", "offset": 0.1, "distribution": \#(distribution)}"# }
        let path = try t.file("s.json", Self.scenario(campaign: #"{"name": "c", "deliveryLatencySeconds": \#(distribution)}"#))
        XCTAssertEqual(t.run(["validate", path]), .badInput)
        XCTAssertTrue(t.err.text.contains("mixtures and shifts nest 17 deep, at most 16 allowed"), t.err.text)
        XCTAssertFalse(t.err.text.contains("is null"), t.err.text)
    }

    /// A pipe (what `/dev/stdin` and `<(…)` are) is read; an unreadable file says why.
    func testPipesAreReadAndFailuresSayWhy() throws {
        let t = try TestEnvironment()
        defer { t.cleanUp() }
        let fifo = t.root.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let text = Self.scenario()
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)
            handle?.write(Data(text.utf8))
            try? handle?.close()
        }
        writer.start()
        XCTAssertEqual(t.run(["validate", fifo]), .ok, t.err.text)
        let locked = try t.file("locked.json", text)
        chmod(locked, 0)
        defer { chmod(locked, 0o600) }
        if getuid() != 0 {
            XCTAssertEqual(t.run(["validate", locked]), .badInput)
            XCTAssertTrue(t.err.text.contains("cannot read the file: Permission denied"), t.err.text)
        }
    }
}
