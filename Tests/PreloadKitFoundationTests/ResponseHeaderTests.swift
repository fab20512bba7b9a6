import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// Response header names are matched ignoring ASCII case only, byte for byte otherwise.
final class ResponseHeaderTests: XCTestCase {
    func headers(_ fields: [String: String]) throws -> FetchHeaders {
        let url = try XCTUnwrap(URL(string: "https://cdn.example.com/a.png"))
        let response = try XCTUnwrap(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields))
        return FetchTransport.headers(of: response)
    }

    func testNamesMatchIgnoringASCIICase() throws {
        let h = try headers(["CONTENT-TYPE": "image/png", "cache-control": "max-age=60", "Content-Length": "12"])
        XCTAssertEqual(h.contentType, "image/png")
        XCTAssertEqual(h.cacheControl, "max-age=60")
        XCTAssertEqual(h.contentLength, 12)
    }

    /// Look-alike names (CYRILLIC SMALL LETTER IE for "e", a combining mark after the name) are
    /// other headers, not the ones PreloadKit checks.
    func testLookAlikeNamesAreOtherHeaders() throws {
        XCTAssertEqual(FetchTransport.nameIs("content-typ\u{0435}", "content-type"), false)
        XCTAssertEqual(FetchTransport.nameIs("content-type\u{0301}", "content-type"), false)
        XCTAssertEqual(FetchTransport.nameIs("Content-Type", "content-type"), true)
        let h = try headers(["content-typ\u{0435}": "image/png"])
        XCTAssertNil(h.contentType)
    }
}
