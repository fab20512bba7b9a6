import XCTest
@testable import PreloadKit

/// Security decisions match names by their UTF-8 bytes. Swift's `String ==` (and `Set<String>`,
/// `switch` over strings) compares by canonical equivalence: U+212A KELVIN SIGN equals "K", and
/// "é" equals "e" + U+0301. These tests spell names in a canonically equivalent but different way
/// and check that they are treated as the different names they are.
final class ExactNameMatchingTests: XCTestCase {
    static let policy = URLPolicy(allowlist: ["cdn.example.com"])

    /// `?%E2%84%AAey-Pair-Id=x` (KELVIN SIGN) is not CloudFront's `Key-Pair-Id` token: it stays in
    /// the cache key, so the URL does not share a store key with the URL without it.
    func testKelvinSignSpellingIsNotTheKeyPairIdToken() throws {
        let spoofed = try AssetURL.parse("https://cdn.example.com/a.webp?%E2%84%AAey-Pair-Id=x", policy: Self.policy)
        let bare = try AssetURL.parse("https://cdn.example.com/a.webp", policy: Self.policy)
        XCTAssertEqual(spoofed.queryItems.map(\.isToken), [false])
        XCTAssertEqual(spoofed.cacheKey, "https://cdn.example.com/a.webp?%E2%84%AAey-Pair-Id=x")
        XCTAssertNotEqual(spoofed.storeKey, bare.storeKey)

        let real = try AssetURL.parse("https://cdn.example.com/a.webp?Key-Pair-Id=x", policy: Self.policy)
        XCTAssertEqual(real.queryItems.map(\.isToken), [true])
        XCTAssertEqual(real.storeKey, bare.storeKey)
    }

    /// A configured token name matches only its own bytes: precomposed "é" (U+00E9) does not match
    /// the decomposed spelling "e" + U+0301, and a name listed with KELVIN SIGN does not match "K".
    func testConfiguredTokenNamesMatchTheirExactBytes() throws {
        var policy = Self.policy
        policy.tokenQueryParameters = ["\u{E9}", "\u{212A}ey"]
        let composed = try AssetURL.parse("https://cdn.example.com/a?%C3%A9=1", policy: policy)
        let decomposed = try AssetURL.parse("https://cdn.example.com/a?e%CC%81=1", policy: policy)
        let kelvin = try AssetURL.parse("https://cdn.example.com/a?%E2%84%AAey=1", policy: policy)
        let ascii = try AssetURL.parse("https://cdn.example.com/a?Key=1", policy: policy)
        XCTAssertEqual(composed.queryItems.map(\.isToken), [true])
        XCTAssertEqual(decomposed.queryItems.map(\.isToken), [false])
        XCTAssertEqual(kelvin.queryItems.map(\.isToken), [true])
        XCTAssertEqual(ascii.queryItems.map(\.isToken), [false])
    }

    /// A name whose percent-decoded bytes are not valid UTF-8 is never a token, not even one named
    /// U+FFFD (the character such bytes would be replaced with when decoded leniently).
    func testInvalidUTF8NameIsNeverAToken() throws {
        var policy = Self.policy
        policy.tokenQueryParameters = ["\u{FFFD}"]
        XCTAssertEqual(try AssetURL.parse("https://cdn.example.com/a?%FF=1", policy: policy).queryItems.map(\.isToken), [false])
        XCTAssertEqual(try AssetURL.parse("https://cdn.example.com/a?%EF%BF%BD=1", policy: policy).queryItems.map(\.isToken), [true])
    }

    /// Payload keys are looked up by their bytes: a member spelled with KELVIN SIGN is not "Key".
    func testPayloadMemberLookupIsByBytes() {
        let object = PayloadValue.object([PayloadMember(key: "\u{212A}ey", value: .integer(1))])
        XCTAssertNil(object["Key"])
        XCTAssertEqual(object["\u{212A}ey"], .integer(1))
    }

    /// Keys that differ in bytes are different keys, even when canonically equivalent: the reader
    /// neither refuses them as duplicates nor merges them, and each is found under its own spelling.
    func testCanonicallyEquivalentKeysAreDistinctKeys() throws {
        let value = try PayloadValue.parseJSON(Array(#"{"\u00e9":1,"e\u0301":2,"K":3,"\u212a":4}"#.utf8))
        XCTAssertEqual(value["\u{E9}"], .integer(1))
        XCTAssertEqual(value["e\u{301}"], .integer(2))
        XCTAssertEqual(value["K"], .integer(3))
        XCTAssertEqual(value["\u{212A}"], .integer(4))
        // Byte-identical keys are still duplicates, however they were escaped.
        XCTAssertThrowsError(try PayloadValue.parseJSON(Array(#"{"\u00e9":1,"é":2}"#.utf8))) { error in
            XCTAssertEqual((error as? PayloadRejection)?.reason, .duplicateKey("\u{E9}"))
        }
    }

    /// A fetched manifest's `manifest_id` must be byte-identical to the reference's. (Identifiers
    /// are restricted to ASCII, whose only spelling is its bytes; this pins the check regardless.)
    func testReferencedManifestIDMustMatchExactly() throws {
        let options = Fixtures.options(.none)
        let reference = try PayloadParser.parse(json: Array(#"{"cdn_preload":{"manifest_id":"m1","manifest_url":"https://cdn.example.com/m.json"}}"#.utf8), options: options)
        let other = Array(#"{"manifest_id":"m2","assets":[]}"#.utf8)
        XCTAssertThrowsError(try PayloadParser.parseReferencedManifest(json: other, for: reference, options: options, now: .zero)) { error in
            XCTAssertEqual((error as? PayloadRejection)?.reason, .manifestMismatch(expected: "m1", found: "m2"))
        }
    }
}
