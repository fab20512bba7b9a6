import Foundation
import XCTest
@testable import PreloadKit

final class HostAllowlistTests: XCTestCase {
    func testExactAndWildcardMatching() throws {
        let allowlist = try HostAllowlist(["CDN.example.com", "*.Img.Example.com"])
        let cases: [(host: String, allowed: Bool)] = [
            ("cdn.example.com", true), ("CDN.EXAMPLE.COM", true), ("a.img.example.com", true),
            ("a.b.img.example.com", true), ("A.IMG.EXAMPLE.COM", true),
            ("img.example.com", false),          // the bare suffix is not a subdomain
            ("evilimg.example.com", false),      // suffix without a label boundary
            (".img.example.com", false),         // nothing before the dot
            ("x.cdn.example.com", false),        // exact entries do not cover subdomains
            ("cdn.example.com.evil.com", false), ("example.com", false), ("com", false), ("", false),
            ("img.example.com.evil", false), ("a.img.example.co", false),
        ]
        for (host, allowed) in cases {
            XCTAssertEqual(allowlist.allows(host), allowed, host)
        }
    }

    func testInvalidPatternsAreRefusedWithTheirReason() {
        let cases: [(pattern: String, reasonFragment: String)] = [
            ("*", "'*'"), ("*.", "empty"), ("**.example.com", "'*'"), ("a.*.example.com", "'*'"),
            ("*example.com", "'*'"), ("", "empty"), ("bücher.de", "punycode"), ("exa mple.com", "byte 0x20"),
            ("cdn.example.com.", "empty label"), ("cdn.example.com:443", "':'"), ("-a.example.com", "'-'"),
            ("user@cdn.example.com", "'@'"),
        ]
        for (pattern, fragment) in cases {
            do {
                _ = try HostAllowlist([pattern])
                XCTFail("pattern \(pattern.debugDescription) was accepted")
            } catch {
                XCTAssertEqual(error.pattern, pattern)
                XCTAssertTrue(error.description.contains(fragment), "\(pattern): \(error.description)")
            }
        }
    }

    func testCanonicalFormIsSortedUniqueLowercaseAndOrderIndependent() throws {
        let a = try HostAllowlist(["b.example.com", "*.z.example.com", "A.example.com", "a.example.com", "*.Y.example.com"])
        let b = try HostAllowlist(["*.y.example.com", "a.example.com", "*.z.example.com", "b.example.com"])
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.patterns, ["a.example.com", "b.example.com", "*.y.example.com", "*.z.example.com"])
    }

    func testCodableRoundTripAndValidationOnDecode() throws {
        let allowlist: HostAllowlist = ["cdn.example.com", "*.img.example.com"]
        let data = try JSONEncoder().encode(allowlist)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["cdn.example.com","*.img.example.com"]"#)
        XCTAssertEqual(try JSONDecoder().decode(HostAllowlist.self, from: data), allowlist)
        XCTAssertThrowsError(try JSONDecoder().decode(HostAllowlist.self, from: Data(#"["*"]"#.utf8))) { error in
            guard case DecodingError.dataCorrupted(let context) = error else {
                return XCTFail("expected dataCorrupted, got \(error)")
            }
            XCTAssertTrue(context.debugDescription.contains("\"*\""), context.debugDescription)
        }
    }
}
