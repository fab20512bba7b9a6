import XCTest
@testable import PreloadKit

/// Table tests of the strict asset URL parser.
final class AssetURLTests: XCTestCase {
    static let allowlist: HostAllowlist = ["cdn.example.com", "*.img.example.com", "127.0.0.1"]
    static let policy = URLPolicy(allowlist: allowlist, plainHTTPHosts: ["127.0.0.1"])

    private struct Accepted {
        let input: String
        let host: String
        let port: UInt16?
        let path: String
        let absoluteString: String
        let cacheKey: String
    }

    private let acceptedCases: [Accepted] = [
        Accepted(input: "https://cdn.example.com/a/b.jpg", host: "cdn.example.com", port: nil, path: "/a/b.jpg",
            absoluteString: "https://cdn.example.com/a/b.jpg", cacheKey: "https://cdn.example.com/a/b.jpg"),
        Accepted(input: "HTTPS://CDN.Example.COM/A.jpg", host: "cdn.example.com", port: nil, path: "/A.jpg",
            absoluteString: "https://cdn.example.com/A.jpg", cacheKey: "https://cdn.example.com/A.jpg"),
        Accepted(input: "https://cdn.example.com", host: "cdn.example.com", port: nil, path: "/",
            absoluteString: "https://cdn.example.com/", cacheKey: "https://cdn.example.com/"),
        Accepted(input: "https://cdn.example.com:443/x", host: "cdn.example.com", port: nil, path: "/x",
            absoluteString: "https://cdn.example.com/x", cacheKey: "https://cdn.example.com/x"),
        Accepted(input: "https://a.img.example.com/p.png?w=100&token=abc&h=50&Expires=123&Signature=zz&Key-Pair-Id=K",
            host: "a.img.example.com", port: nil, path: "/p.png",
            absoluteString: "https://a.img.example.com/p.png?w=100&token=abc&h=50&Expires=123&Signature=zz&Key-Pair-Id=K",
            cacheKey: "https://a.img.example.com/p.png?w=100&h=50"),
        Accepted(input: "https://x.y.img.example.com/p?a=1&&b&c=", host: "x.y.img.example.com", port: nil, path: "/p",
            absoluteString: "https://x.y.img.example.com/p?a=1&b&c=", cacheKey: "https://x.y.img.example.com/p?a=1&b&c="),
        Accepted(input: "https://cdn.example.com/%7euser/a%2db%c3%a9.jpg", host: "cdn.example.com", port: nil,
            path: "/~user/a-b%C3%A9.jpg", absoluteString: "https://cdn.example.com/~user/a-b%C3%A9.jpg",
            cacheKey: "https://cdn.example.com/~user/a-b%C3%A9.jpg"),
        Accepted(input: "http://127.0.0.1:8080/asset.jpg", host: "127.0.0.1", port: 8080, path: "/asset.jpg",
            absoluteString: "http://127.0.0.1:8080/asset.jpg", cacheKey: "http://127.0.0.1:8080/asset.jpg"),
        Accepted(input: "http://127.0.0.1:65535/a", host: "127.0.0.1", port: 65535, path: "/a",
            absoluteString: "http://127.0.0.1:65535/a", cacheKey: "http://127.0.0.1:65535/a"),
        Accepted(input: "http://127.0.0.1:80/a", host: "127.0.0.1", port: nil, path: "/a",
            absoluteString: "http://127.0.0.1/a", cacheKey: "http://127.0.0.1/a"),
        Accepted(input: "https://cdn.example.com/a..b/...x/.hidden/..c", host: "cdn.example.com", port: nil,
            path: "/a..b/...x/.hidden/..c", absoluteString: "https://cdn.example.com/a..b/...x/.hidden/..c",
            cacheKey: "https://cdn.example.com/a..b/...x/.hidden/..c"),
        Accepted(input: "https://cdn.example.com/a;v=1/b.jpg?next=%2fx%2F", host: "cdn.example.com", port: nil,
            path: "/a;v=1/b.jpg", absoluteString: "https://cdn.example.com/a;v=1/b.jpg?next=%2Fx%2F",
            cacheKey: "https://cdn.example.com/a;v=1/b.jpg?next=%2Fx%2F"),
        Accepted(input: "https://cdn.example.com/only?X-Amz-Signature=1&X-Amz-Date=2", host: "cdn.example.com",
            port: nil, path: "/only", absoluteString: "https://cdn.example.com/only?X-Amz-Signature=1&X-Amz-Date=2",
            cacheKey: "https://cdn.example.com/only"),
        Accepted(input: "https://xn--bcher-kva.img.example.com/a", host: "xn--bcher-kva.img.example.com", port: nil,
            path: "/a", absoluteString: "https://xn--bcher-kva.img.example.com/a",
            cacheKey: "https://xn--bcher-kva.img.example.com/a"),
        Accepted(input: "https://cdn.example.com/a?b=c?d/e", host: "cdn.example.com", port: nil, path: "/a",
            absoluteString: "https://cdn.example.com/a?b=c?d/e", cacheKey: "https://cdn.example.com/a?b=c?d/e"),
        // A token name hidden behind percent-encoding is still a token name.
        Accepted(input: "https://cdn.example.com/a?%74oken=1&v=2", host: "cdn.example.com", port: nil, path: "/a",
            absoluteString: "https://cdn.example.com/a?token=1&v=2", cacheKey: "https://cdn.example.com/a?v=2"),
        // Names are matched case-sensitively: "TOKEN" is not in the default set, "Expires" is.
        Accepted(input: "https://cdn.example.com/a?TOKEN=1&expires=2&Expires=3", host: "cdn.example.com", port: nil,
            path: "/a", absoluteString: "https://cdn.example.com/a?TOKEN=1&expires=2&Expires=3",
            cacheKey: "https://cdn.example.com/a?TOKEN=1"),
        Accepted(input: "https://cdn.example.com/a//b", host: "cdn.example.com", port: nil, path: "/a//b",
            absoluteString: "https://cdn.example.com/a//b", cacheKey: "https://cdn.example.com/a//b"),
    ]

    func testAcceptedURLs() {
        for testCase in acceptedCases {
            let url: AssetURL
            do {
                url = try AssetURL.parse(testCase.input, policy: Self.policy)
            } catch {
                XCTFail("\(testCase.input) was rejected: \(error)")
                continue
            }
            XCTAssertEqual(url.host, testCase.host, testCase.input)
            XCTAssertEqual(url.port, testCase.port, testCase.input)
            XCTAssertEqual(url.path, testCase.path, testCase.input)
            XCTAssertEqual(url.absoluteString, testCase.absoluteString, testCase.input)
            XCTAssertEqual(url.cacheKey, testCase.cacheKey, testCase.input)
            XCTAssertEqual(try? AssetURL.parse(url.absoluteString, policy: Self.policy), url,
                "re-parsing \(url.absoluteString)")
        }
    }

    private enum Expected {
        case exactly(URLRejection)
        /// `.malformed` whose reason contains this text.
        case malformed(containing: String)
    }

    private let rejectedCases: [(input: String, expected: Expected)] = [
        ("http://cdn.example.com/a.jpg", .exactly(.notHTTPS("http"))),
        ("javascript:alert(1)", .exactly(.notHTTPS("javascript"))),
        ("JavaScript:alert(document.cookie)//https://cdn.example.com/", .exactly(.notHTTPS("javascript"))),
        ("data:image/png;base64,iVBORw0KGgo=", .exactly(.notHTTPS("data"))),
        ("file:///etc/passwd", .exactly(.notHTTPS("file"))),
        ("ftp://cdn.example.com/a", .exactly(.notHTTPS("ftp"))),
        ("http://127.0.0.1.evil.com/", .exactly(.notHTTPS("http"))),
        ("https://cdn.example.com@evil.com/", .exactly(.userInfoPresent)),
        ("https://user:pass@cdn.example.com/", .exactly(.userInfoPresent)),
        ("https://cdn.example.com\\@evil.com/", .exactly(.userInfoPresent)),
        ("https://evil.com/cdn.example.com", .exactly(.hostNotAllowed("evil.com"))),
        ("https://cdn.example.com.evil.com/", .exactly(.hostNotAllowed("cdn.example.com.evil.com"))),
        ("https://evilimg.example.com/a", .exactly(.hostNotAllowed("evilimg.example.com"))),
        ("https://img.example.com/a", .exactly(.hostNotAllowed("img.example.com"))),
        ("https://example.com/a", .exactly(.hostNotAllowed("example.com"))),
        ("https://a.cdn.example.com/a", .exactly(.hostNotAllowed("a.cdn.example.com"))),
        ("https://127.0.0.2/a", .exactly(.hostNotAllowed("127.0.0.2"))),
        ("https://cdn.example.com/a/../../etc/passwd", .exactly(.pathTraversal("/a/../../etc/passwd"))),
        ("https://cdn.example.com/a/%2e%2e/b", .exactly(.pathTraversal("/a/%2e%2e/b"))),
        ("https://cdn.example.com/a/.%2E/b", .exactly(.pathTraversal("/a/.%2E/b"))),
        ("https://cdn.example.com/%2E./b", .exactly(.pathTraversal("/%2E./b"))),
        ("https://cdn.example.com/./a", .exactly(.pathTraversal("/./a"))),
        ("https://cdn.example.com/a/..", .exactly(.pathTraversal("/a/.."))),
        ("https://cdn.example.com/a/%2e", .exactly(.pathTraversal("/a/%2e"))),
        ("https://cdn.example.com/..;/a", .exactly(.pathTraversal("/..;/a"))),
        ("https://cdn.example.com/a%2F..%2Fb", .exactly(.pathTraversal("/a%2F..%2Fb"))),
        ("https://cdn.example.com/a%2fb", .exactly(.pathTraversal("/a%2fb"))),
        ("https://cdn.example.com/a%5Cb", .exactly(.pathTraversal("/a%5Cb"))),
        ("https://cdn.example.com/%252e%252e/x", .exactly(.pathTraversal("/%252e%252e/x"))),
        ("https://cdn.example.com/a%252Fb", .exactly(.pathTraversal("/a%252Fb"))),
        ("https://cdn.example.com/%25%32%65%25%32%65/x", .exactly(.pathTraversal("/%25%32%65%25%32%65/x"))),
        ("https://cdn.example.com/a%255c", .exactly(.pathTraversal("/a%255c"))),
        ("https://cdn.example.com/a%00.jpg", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a\u{0}.jpg", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a.jpg\r\nSet-Cookie: x=1", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a\n", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a\t", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a\u{7F}", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a%0d%0aSet-Cookie:x", .exactly(.controlCharacter)),
        ("https://cdn.example.com/a?x=%7F", .exactly(.controlCharacter)),
        ("https://cdn.example.com/" + String(repeating: "a", count: 5000 - 24), .exactly(.tooLong(length: 5000, max: 2048))),
        ("https:///a", .exactly(.emptyHost)),
        ("https://:443/a", .exactly(.emptyHost)),
        ("https://", .exactly(.emptyHost)),
        ("https://cdn.example.com/a#frag", .exactly(.fragmentPresent)),
        ("https://cdn.example.com#@evil.com", .exactly(.fragmentPresent)),
        ("https://cdn.example.com/a?b#", .exactly(.fragmentPresent)),
        ("https://cdn.example.com/a%zz", .exactly(.badPercentEncoding)),
        ("https://cdn.example.com/a%2", .exactly(.badPercentEncoding)),
        ("https://cdn.example.com/a?b=%", .exactly(.badPercentEncoding)),
        ("https://cdn.example.com/a b.jpg", .malformed(containing: "space")),
        ("https://cdn.example.com /a", .malformed(containing: "host contains byte 0x20")),
        ("https://cdn.example.com\\evil.com/", .malformed(containing: "authority contains '\\'")),
        ("https://cdn.example.com/a\\..\\b", .malformed(containing: "path contains '\\'")),
        ("https://cdn.example.com/a?b=\\", .malformed(containing: "query contains '\\'")),
        ("https://cdn.example.com:8443/a", .malformed(containing: "port 8443")),
        ("https://127.0.0.1:8080/a", .malformed(containing: "port 8080")),
        ("https://cdn.example.com:0443/a", .malformed(containing: "leading zero")),
        ("https://cdn.example.com:99999/a", .malformed(containing: "above 65535")),
        ("http://127.0.0.1:0/a", .malformed(containing: "port 0 is not a usable port")),
        ("http://127.0.0.1:65536/a", .malformed(containing: "above 65535")),
        ("http://127.0.0.1:00/a", .malformed(containing: "leading zero")),
        ("https://cdn.example.com:/a", .malformed(containing: "port after ':' is empty")),
        ("https://cdn.example.com:44a/a", .malformed(containing: "not a decimal number")),
        ("https://cdn.example.com:443:443/a", .malformed(containing: "not a decimal number")),
        ("https://bücher.img.example.com/", .malformed(containing: "punycode")),
        ("https://cdn.example.com./a", .malformed(containing: "empty label")),
        ("https://cdn..example.com/a", .malformed(containing: "empty label")),
        ("https://-cdn.example.com/a", .malformed(containing: "starts or ends with '-'")),
        ("https://" + String(repeating: "a", count: 64) + ".img.example.com/", .malformed(containing: "at most 63")),
        ("https://cdn_example.com/a", .malformed(containing: "'_'")),
        ("https://cdn%2eexample.com/a", .malformed(containing: "'%'")),
        ("https://[::1]/a", .malformed(containing: "IP-literal")),
        ("https:cdn.example.com/a", .malformed(containing: "\"//\"")),
        ("https:/cdn.example.com/a", .malformed(containing: "\"//\"")),
        ("cdn.example.com/a", .malformed(containing: "no scheme")),
        ("//cdn.example.com/a", .malformed(containing: "no scheme")),
        ("", .malformed(containing: "no scheme")),
        ("1https://cdn.example.com/", .malformed(containing: "scheme must start with a letter")),
        ("https://cdn.example.com/a<script>", .malformed(containing: "'<'")),
        ("https://cdn.example.com/a\"b", .malformed(containing: "'\"'")),
        ("https://cdn.example.com/\u{202E}gpj.exe", .malformed(containing: "non-ASCII")),
        ("https://cdn.example.com/a?q=\u{00E9}", .malformed(containing: "non-ASCII")),
    ]

    func testRejectedURLs() {
        for (input, expected) in rejectedCases {
            let display = input.count > 80 ? "\(input.prefix(60))… (\(input.utf8.count) bytes)" : input.debugDescription
            do {
                let url = try AssetURL.parse(input, policy: Self.policy)
                XCTFail("\(display) was accepted as \(url.absoluteString)")
            } catch {
                switch expected {
                case .exactly(let rejection):
                    XCTAssertEqual(error, rejection, display)
                case .malformed(let fragment):
                    if case .malformed(let reason) = error {
                        XCTAssertTrue(reason.contains(fragment), "\(display): reason \"\(reason)\" lacks \"\(fragment)\"")
                    } else {
                        XCTFail("\(display): expected .malformed(…\(fragment)…), got \(error)")
                    }
                }
            }
        }
    }

    func testWildcardAllowlistNeverMatchesBareSuffixTrick() throws {
        let policy = URLPolicy(allowlist: ["*.cdn.example.com"])
        XCTAssertThrowsError(try AssetURL.parse("https://evilcdn.example.com/a", policy: policy)) {
            XCTAssertEqual($0 as? URLRejection, .hostNotAllowed("evilcdn.example.com"))
        }
        XCTAssertThrowsError(try AssetURL.parse("https://cdn.example.com/a", policy: policy)) {
            XCTAssertEqual($0 as? URLRejection, .hostNotAllowed("cdn.example.com"))
        }
        XCTAssertEqual(try AssetURL.parse("https://EU.cdn.example.com/a", policy: policy).host, "eu.cdn.example.com")
        XCTAssertEqual(try AssetURL.parse("https://a.b.cdn.example.com/a", policy: policy).host, "a.b.cdn.example.com")
    }

    func testPlainHTTPHostMustAlsoBeAllowlisted() {
        let policy = URLPolicy(allowlist: ["cdn.example.com"], plainHTTPHosts: ["127.0.0.1"])
        XCTAssertThrowsError(try AssetURL.parse("http://127.0.0.1:8080/a", policy: policy)) {
            XCTAssertEqual($0 as? URLRejection, .hostNotAllowed("127.0.0.1"))
        }
        var mixedCase = URLPolicy(allowlist: ["localhost"])
        mixedCase.plainHTTPHosts = ["LocalHost"]
        XCTAssertEqual(try AssetURL.parse("http://localhost:9/a", policy: mixedCase).port, 9)
    }

    func testLengthLimitIsInclusiveAndHoldsAfterNormalisation() throws {
        let exact = "https://cdn.example.com/" + String(repeating: "b", count: 100)
        var policy = Self.policy
        policy.urlLengthMax = exact.utf8.count
        XCTAssertNoThrow(try AssetURL.parse(exact, policy: policy))
        XCTAssertThrowsError(try AssetURL.parse(exact + "c", policy: policy)) {
            XCTAssertEqual($0 as? URLRejection, .tooLong(length: exact.utf8.count + 1, max: exact.utf8.count))
        }
        // "https://cdn.example.com" normalises to ".../" — one byte longer than the input.
        let bare = "https://cdn.example.com"
        policy.urlLengthMax = bare.utf8.count
        XCTAssertThrowsError(try AssetURL.parse(bare, policy: policy)) {
            XCTAssertEqual($0 as? URLRejection, .tooLong(length: bare.utf8.count + 1, max: bare.utf8.count))
        }
    }

    func testDescriptionRedactsTokenValues() throws {
        let url = try AssetURL.parse("https://cdn.example.com/a.jpg?w=1&token=SECRET&Signature=ALSO", policy: Self.policy)
        XCTAssertEqual(url.description, "https://cdn.example.com/a.jpg?w=1&token=<redacted>&Signature=<redacted>")
        XCTAssertEqual(url.queryItems.map(\.isToken), [false, true, true])
        XCTAssertEqual(url.queryItems.map(\.name), ["w", "token", "Signature"])
        XCTAssertEqual(url.queryItems.map(\.value), ["1", "SECRET", "ALSO"])
    }

    /// `AssetURL` stores its fields in one shared object; equality and hashing are still by value:
    /// separately parsed equal URLs are equal with equal hashes (also when normalisation made them
    /// equal), and URLs differing in any field are not, even when their cache keys agree.
    func testEqualityAndHashingAreByValue() throws {
        let a = try AssetURL.parse("https://cdn.example.com/a.jpg?w=1&token=X", policy: Self.policy)
        let b = try AssetURL.parse("HTTPS://CDN.example.com:443/%61.jpg?w=1&token=X", policy: Self.policy)
        XCTAssertFalse(a.storage === b.storage)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b]).count, 1)
        XCTAssertEqual(try AssetURL.parse(a.absoluteString, policy: Self.policy), a)

        let rotated = try AssetURL.parse("https://cdn.example.com/a.jpg?w=1&token=Y", policy: Self.policy)
        XCTAssertEqual(rotated.cacheKey, a.cacheKey)
        XCTAssertNotEqual(rotated, a)
        for other in ["https://cdn.example.com/b.jpg?w=1&token=X", "https://x.img.example.com/a.jpg?w=1&token=X",
                      "https://cdn.example.com/a.jpg?w=2&token=X", "http://127.0.0.1/a.jpg?w=1&token=X"] {
            XCTAssertNotEqual(try AssetURL.parse(other, policy: Self.policy), a, other)
        }
    }

    func testCustomTokenParameters() throws {
        var policy = Self.policy
        policy.tokenQueryParameters = ["v"]
        let url = try AssetURL.parse("https://cdn.example.com/a?v=9&token=1", policy: policy)
        XCTAssertEqual(url.cacheKey, "https://cdn.example.com/a?token=1")
    }

    func testRejectionDescriptionsNameTheValue() {
        XCTAssertEqual(URLRejection.tooLong(length: 5000, max: 2048).description,
            "URL is 5000 bytes long; at most 2048 bytes are allowed.")
        XCTAssertTrue(URLRejection.hostNotAllowed("evil.com").description.contains("\"evil.com\""))
        XCTAssertTrue(URLRejection.notHTTPS("javascript").description.contains("\"javascript\""))
        XCTAssertTrue(URLRejection.pathTraversal("/a/../b").description.contains("\"/a/../b\""))
        XCTAssertTrue(URLRejection.malformed("the port is odd").description.hasSuffix("the port is odd."))
    }
}
