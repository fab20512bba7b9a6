import XCTest
@testable import PreloadKit

final class CacheControlTests: XCTestCase {
    func testArticleHeaders() {
        XCTAssertEqual(CacheControl.parse("public, max-age=14400, stale-while-revalidate=86400"),
                       CacheControl(maxAgeSeconds: 14_400, staleWhileRevalidateSeconds: 86_400))
        XCTAssertEqual(CacheControl.parse("public, max-age=86400, stale-while-revalidate=3600"),
                       CacheControl(maxAgeSeconds: 86_400, staleWhileRevalidateSeconds: 3_600))
    }

    func testStaleIfError() {
        // RFC 5861 §4: `stale-if-error=N`, delta-seconds like the other lifetimes.
        XCTAssertEqual(CacheControl.parse("public, max-age=60, stale-while-revalidate=0, stale-if-error=86400"),
                       CacheControl(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 0, staleIfErrorSeconds: 86_400))
        XCTAssertEqual(CacheControl.parse("Stale-If-Error = \"30\", stale-if-error=10"), CacheControl(staleIfErrorSeconds: 10),
                       "quoted, case-insensitive, repeated: the most restrictive")
        XCTAssertEqual(CacheControl.parse("stale-if-error"), CacheControl(), "no value: ignored")
        XCTAssertEqual(CacheControl.parse("stale-if-error=-5"), CacheControl(), "negative ignored")
    }

    func testDirectives() {
        XCTAssertEqual(CacheControl.parse("no-store"), CacheControl(noStore: true))
        XCTAssertEqual(CacheControl.parse("no-cache"), CacheControl(noCache: true))
        XCTAssertEqual(CacheControl.parse(#"no-cache="Set-Cookie", max-age=5"#), CacheControl(maxAgeSeconds: 5, noCache: true))
        XCTAssertEqual(CacheControl.parse("s-maxage=600"), CacheControl(), "s-maxage is for shared caches")
        XCTAssertEqual(CacheControl.parse("s-maxage=600, max-age=60"), CacheControl(maxAgeSeconds: 60))
        XCTAssertEqual(CacheControl.parse("private, must-revalidate, max-age=0"), CacheControl(maxAgeSeconds: 0))
        XCTAssertEqual(CacheControl.parse(""), CacheControl())
    }

    func testRobustness() {
        XCTAssertEqual(CacheControl.parse("MAX-AGE=60,  Stale-While-Revalidate = 30 "), CacheControl(maxAgeSeconds: 60, staleWhileRevalidateSeconds: 30))
        XCTAssertEqual(CacheControl.parse(#"max-age="120""#), CacheControl(maxAgeSeconds: 120))
        XCTAssertEqual(CacheControl.parse("max-age=-1"), CacheControl(), "negative ignored")
        XCTAssertEqual(CacheControl.parse("max-age=1.5"), CacheControl(), "fraction ignored")
        XCTAssertEqual(CacheControl.parse("max-age="), CacheControl(), "empty ignored")
        XCTAssertEqual(CacheControl.parse("max-age=60 junk, no-store"), CacheControl(noStore: true), "junk value makes only that directive ignored")
        XCTAssertEqual(CacheControl.parse("max-age=99999999999999999999999999"), CacheControl(maxAgeSeconds: CacheControl.deltaSecondsMax), "clamped to 2^31")
        XCTAssertEqual(CacheControl.parse("max-age=300, max-age=60"), CacheControl(maxAgeSeconds: 60), "repeated: the most restrictive")
        XCTAssertEqual(CacheControl.parse(",,, ,max-age=7,,"), CacheControl(maxAgeSeconds: 7))
        XCTAssertEqual(CacheControl.parse(#"max-age="12"#), CacheControl(), "unterminated quote ignored")
        XCTAssertEqual(CacheControl.parse("no-store=1"), CacheControl(), "no-store takes no argument")
        XCTAssertEqual(CacheControl.parse("max-age=60, " + String(repeating: "x", count: 2_000)), CacheControl(), "over-long header ignored")
    }

    func testFuzzNeverCrashesAndOnlyKnownDirectivesSet() {
        let seed: UInt64 = 0xC0FFEE
        var rng = CoreRNG(seed: seed)
        let alphabet = Array("max-agestale-while-revalidateno-storecache=,\" 0123456789\t;".utf8)
        for _ in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<rng.below(80) { bytes.append(alphabet[rng.below(alphabet.count)]) }
            let text = String(decoding: bytes, as: UTF8.self)
            let cc = CacheControl.parse(text)
            if let m = cc.maxAgeSeconds { XCTAssert(m >= 0 && m <= CacheControl.deltaSecondsMax, "seed \(seed): \(text)") }
            if let s = cc.staleWhileRevalidateSeconds { XCTAssert(s >= 0 && s <= CacheControl.deltaSecondsMax, "seed \(seed): \(text)") }
            if cc.maxAgeSeconds != nil { XCTAssert(text.lowercased().contains("max-age"), "seed \(seed): \(text)") }
            if cc.noStore { XCTAssert(text.lowercased().contains("no-store"), "seed \(seed): \(text)") }
        }
    }
}
