import XCTest
@testable import PreloadKit

final class StoreKeyTests: XCTestCase {
    private let policy = URLPolicy(allowlist: ["cdn.example.com", "*.img.example.com"])

    /// Expected values are the first 32 hex digits of SHA-256 computed by Python:
    /// `python3 -c "import hashlib; print(hashlib.sha256(b'<cacheKey>').hexdigest()[:32])"`.
    func testKeyIsFirst128BitsOfSHA256OfCacheKey() {
        XCTAssertEqual(StoreKey(cacheKey: "https://cdn.example.com/a.jpg").hex, "e32fb90c42019277786be0aaccfc4a78")
        XCTAssertEqual(StoreKey(cacheKey: "https://a.img.example.com/p.png?w=100&h=50").hex,
            "f7de0f605b16de9bfa2cd884c6ba410a")
        XCTAssertEqual(StoreKey(cacheKey: "").hex, "e3b0c44298fc1c149afbf4c8996fb924")
    }

    func testHiAndLoAreBigEndianHalves() {
        let key = StoreKey(hi: 0x0123_4567_89AB_CDEF, lo: 1)
        XCTAssertEqual(key.hex, "0123456789abcdef0000000000000001")
        XCTAssertEqual(key.fileName, "0123456789abcdef0000000000000001.asset")
        let fromDigest = StoreKey(cacheKey: "https://cdn.example.com/a.jpg")
        XCTAssertEqual(fromDigest.hi, 0xE32F_B90C_4201_9277)
        XCTAssertEqual(fromDigest.lo, 0x786B_E0AA_CCFC_4A78)
    }

    func testRotatingTokensGiveTheSameKey() throws {
        let first = try AssetURL.parse(
            "https://a.img.example.com/p.png?w=100&Expires=1700000000&Signature=abc&Key-Pair-Id=K1&h=50", policy: policy)
        let second = try AssetURL.parse(
            "https://A.IMG.example.com:443/p.png?w=100&Expires=1800000000&Signature=xyz&h=50&Key-Pair-Id=K2",
            policy: policy)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(first.storeKey, second.storeKey)
        XCTAssertEqual(first.storeKey.hex, "f7de0f605b16de9bfa2cd884c6ba410a")
    }

    func testDifferentAssetsGiveDifferentKeys() throws {
        let urls = [
            "https://cdn.example.com/a.jpg", "https://cdn.example.com/b.jpg", "https://cdn.example.com/a.jpg?w=1",
            "https://cdn.example.com/a.jpg?w=2", "https://x.img.example.com/a.jpg", "https://cdn.example.com/A.jpg",
            "https://cdn.example.com/a.jpg?h=1&w=1", "https://cdn.example.com/a.jpg?w=1&h=1",
        ]
        let keys = try urls.map { try AssetURL.parse($0, policy: policy).storeKey }
        XCTAssertEqual(Set(keys).count, urls.count, "keys: \(keys)")
    }

    func testFileNameIsAlways32LowercaseHexPlusExtension() {
        let seed: UInt64 = 0x5701_E4E7
        var rng = CoreRNG(seed: seed)
        let hexDigits = Set("0123456789abcdef")
        for trial in 0..<500 {
            // Arbitrary (even hostile) text as cache key: the name never reflects it.
            let text = String(decoding: rng.bytes(rng.below(64)), as: UTF8.self) + "/../\u{0}"
            let name = StoreKey(cacheKey: text).fileName
            XCTAssertEqual(name.count, 38, "seed \(seed) trial \(trial)")
            XCTAssertTrue(name.hasSuffix(".asset"), "seed \(seed) trial \(trial)")
            XCTAssertTrue(name.dropLast(6).allSatisfy { hexDigits.contains($0) }, "seed \(seed) trial \(trial): \(name)")
        }
    }

    func testHexRoundTripAndOrdering() {
        let seed: UInt64 = 0x0DE2_0001
        var rng = CoreRNG(seed: seed)
        var keys: [StoreKey] = []
        for _ in 0..<200 { keys.append(StoreKey(hi: rng.next() >> UInt64(rng.below(64)), lo: rng.next())) }
        for key in keys {
            XCTAssertEqual(StoreKey(hex: key.hex), key, "seed \(seed)")
            XCTAssertEqual(StoreKey(hex: key.hex.uppercased()), key, "seed \(seed)")
        }
        for (a, b) in zip(keys, keys.dropFirst()) {
            XCTAssertEqual(a < b, a.hex < b.hex, "seed \(seed): \(a) vs \(b)")
        }
        XCTAssertTrue(StoreKey(hi: 1, lo: 0) > StoreKey(hi: 0, lo: .max))
    }

    func testHexParserRejectsAnythingElse() {
        for bad in ["", "0123", String(repeating: "0", count: 31), String(repeating: "0", count: 33),
                    String(repeating: "g", count: 32), "0123456789abcdef0123456789abcde/",
                    "0123456789abcdef0123456789abcdef.asset", " 123456789abcdef0123456789abcdef"] {
            XCTAssertNil(StoreKey(hex: bad), bad)
        }
    }
}
