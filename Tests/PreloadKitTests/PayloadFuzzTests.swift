import XCTest
@testable import PreloadKit

/// Fuzz-style tests over mutated payloads. Each input must be refused with a reason, or accepted
/// only when valid: an accepted payload under `.required` has exactly the canonical form the app's
/// key signed, and every URL in it is https on the allowlist.
final class PayloadFuzzTests: XCTestCase {
    static let signed = [Payloads.inline(), Payloads.reference, Payloads.silent, Payloads.rich]

    /// Checks what an accepted request must satisfy, whatever the input.
    func assertValid(_ r: PreStageRequest, _ msg: String) {
        let limits = PayloadLimits()
        var urls = r.assets.map(\.url) + r.assets.flatMap { $0.variants.map(\.url) }
        if let m = r.manifestURL { urls.append(m) }
        for u in urls {
            XCTAssertEqual(u.scheme, "https", msg)
            XCTAssertTrue(Fixtures.urlPolicy().allowlist.allows(u.host), msg)
        }
        XCTAssertLessThanOrEqual(r.assets.count, limits.assetsMax, msg)
        XCTAssertTrue(r.ttlSeconds >= limits.ttlSecondsMin && r.ttlSeconds <= limits.ttlSecondsMax, msg)
        for a in r.assets {
            XCTAssertEqual(a.key, StoreKey(cacheKey: a.url.cacheKey), msg)
            if let d = a.declaredBytes { XCTAssertTrue(d >= 1 && d <= limits.declaredBytesMax, msg) }
        }
    }

    func canonical(_ json: [UInt8]) -> [UInt8]? {
        guard let v = try? PayloadValue.parseJSON(json) else { return nil }
        return try? PayloadParser.canonicalForm(of: v, options: Fixtures.options())
    }

    func testMutatedSignedPayloadsAreRefusedUnlessTheSignedContentIsIntact() {
        let seed: UInt64 = 0xF022_0001
        var rng = CoreRNG(seed: seed)
        var accepted = 0, refused = 0
        let alphabet = Array("{}[]\":,0123456789-.eE truefalsnul\\/abcxyz%@#?=&|\n".utf8) + [0x00, 0x7F, 0xC3, 0xFF]
        for i in 0..<4_000 {
            let base = Self.signed[i % Self.signed.count]
            var bytes = Array(base.utf8)
            let original = canonical(bytes)
            for _ in 0..<(1 + rng.below(4)) {
                guard !bytes.isEmpty else { break }
                let at = rng.below(bytes.count)
                switch rng.below(5) {
                case 0: bytes[at] = alphabet[rng.below(alphabet.count)]
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet[rng.below(alphabet.count)], at: at)
                case 3: bytes = Array(bytes.prefix(at))
                default: bytes[at] ^= UInt8(1 << rng.below(8))
                }
            }
            let msg = "seed \(seed) case \(i): \(String(decoding: bytes, as: UTF8.self).debugDescription)"
            do {
                let r = try PayloadParser.parse(json: bytes, options: Fixtures.options())
                accepted += 1
                XCTAssertEqual(r.signature, .verified, msg)
                XCTAssertEqual(canonical(bytes), original, "accepted with different signed content: \(msg)")
                assertValid(r, msg)
            } catch {
                refused += 1
                XCTAssertFalse(error.description.isEmpty, msg)
                XCTAssertTrue(error.path.hasPrefix("$"), msg)
            }
        }
        // Both outcomes must occur, or the mutations are not testing anything.
        XCTAssertGreaterThan(accepted, 0, "seed \(seed)")
        XCTAssertGreaterThan(refused, 2_000, "seed \(seed)")
    }

    func testRandomBytesAreRefusedWithAReason() {
        let seed: UInt64 = 0xF022_0002
        var rng = CoreRNG(seed: seed)
        for i in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<rng.below(300) { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
            if rng.chance(0.3) { bytes.insert(UInt8(ascii: "{"), at: 0) }
            XCTAssertThrowsError(try PayloadParser.parse(json: bytes, options: Fixtures.options(.none)), "seed \(seed) case \(i)") { e in
                XCTAssertFalse((e as? PayloadRejection)?.description.isEmpty ?? true)
            }
        }
    }

    /// Replaces one random node of a decoded payload with a hostile value.
    func mutate(_ v: PayloadValue, _ rng: inout CoreRNG, depth: Int = 0) -> PayloadValue {
        switch v {
        case .object(var members) where !members.isEmpty && rng.chance(0.7):
            let i = rng.below(members.count)
            members[i].value = mutate(members[i].value, &rng, depth: depth + 1)
            return .object(members)
        case .array(var elements) where !elements.isEmpty && rng.chance(0.7):
            let i = rng.below(elements.count)
            elements[i] = mutate(elements[i], &rng, depth: depth + 1)
            return .array(elements)
        default:
            let hostile: [PayloadValue] = [
                .null, .bool(true), .integer(.max), .integer(.min), .integer(-1), .integer(0), .number(1e308), .number(-0.5),
                .string(""), .string(String(repeating: "A", count: 2_000)), .string("critical"), .string("image"),
                .string("http://cdn.example.com/a.jpg"), .string("https://evil.example.org/a.jpg"), .string("https://cdn.example.com.evil.org/a.jpg"),
                .string("https://cdn.example.com@evil.org/a.jpg"), .string("https://cdn.example.com/../../etc/passwd"),
                .string("https://cdn.example.com/%2e%2e/%2e%2e/secret"), .string("https://cdn.example.com/a%2Fb"), .string("file:///etc/passwd"),
                .string("javascript:alert(1)"), .string("https://cdn.example.com/a.jpg#frag"), .string("https://cdn.example.com/a\u{0}.jpg"),
                .string("v1=" + String(repeating: "f", count: 64)), .string("../../Library/Preferences"), .string("x\ny"),
                .array([]), .object([]), .array(Array(repeating: .integer(1), count: 200)),
            ]
            return hostile[rng.below(hostile.count)]
        }
    }

    func testStructuredMutationsAreRefusedOrValid() throws {
        let seed: UInt64 = 0xF022_0003
        var rng = CoreRNG(seed: seed)
        var refusedBySignature = 0
        for i in 0..<3_000 {
            let base = try PayloadValue.parseJSON(Fixtures.bytes(Self.signed[i % Self.signed.count]))
            let original = try PayloadParser.canonicalForm(of: base, options: Fixtures.options())
            let mutated = mutate(base, &rng)
            let msg = "seed \(seed) case \(i): \(mutated)"
            for requirement in [SignatureRequirement.required, .none] {
                do {
                    let r = try PayloadParser.parse(mutated, options: Fixtures.options(requirement))
                    assertValid(r, msg)
                    if requirement == .required {
                        XCTAssertEqual(try PayloadParser.canonicalForm(of: mutated, options: Fixtures.options()), original, msg)
                    }
                } catch {
                    if requirement == .required, error.reason == .signatureMismatch { refusedBySignature += 1 }
                    XCTAssertFalse(error.description.isEmpty, msg)
                }
            }
        }
        XCTAssertGreaterThan(refusedBySignature, 0, "seed \(seed): signature checks were never the deciding reason")
    }

    func testHostileURLsAreRefusedWithTheURLReason() {
        let urls = [
            "http://cdn.example.com/a.jpg", "https://evil.example.org/a.jpg", "https://cdn.example.com.evil.org/a.jpg",
            "https://evilcdn.example.net/a.jpg", "https://cdn.example.net/a.jpg", "https://cdn.example.com@evil.org/a.jpg",
            "https://cdn.example.com/../../etc/passwd", "https://cdn.example.com/%2e%2e/x", "https://cdn.example.com/a%2Fb",
            "file:///etc/passwd", "javascript:alert(1)", "https://cdn.example.com/a.jpg#frag", "https://cdn.example.com/a%0a.jpg",
            "https:///a.jpg", "https://cdn.example.com/" + String(repeating: "a", count: 2_100), "//cdn.example.com/a.jpg", "",
        ]
        for u in urls {
            let escaped = u.replacingOccurrences(of: "\\", with: "\\\\")
            let json = #"{"aps":{"content-available":1},"pre_stage_url":"\#(escaped)","pre_stage_id":"p"}"#
            XCTAssertThrowsError(try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(.none)), u) { e in
                guard let r = e as? PayloadRejection else { return XCTFail("\(u): \(e)") }
                switch r.reason {
                case .url: XCTAssertEqual(r.path, "$.pre_stage_url", u)
                case .stringTooLong: XCTAssertEqual(r.path, "$", "the JSON reader refuses it before any field is read")
                default: XCTFail("\(u): \(r)")
                }
            }
        }
    }

    func testDeepNestingAndHugeNumbersInsideAValidEnvelope() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let payloads: [(String, PayloadRejection.Reason)] = [
            (#"{"x":\#(deep),"au":"https://cdn.example.com/a.jpg","at":"jpg"}"#, .nestingTooDeep(max: 16)),
            (#"{"cdn_preload":{"manifest_id":"m","ttl":1e400,"assets":[]}}"#, .numberOutOfRange(value: "1e400", min: .min, max: .max)),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","bytes":99999999999999999999}]}}"#,
             .numberOutOfRange(value: "99999999999999999999", min: .min, max: .max)),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","bytes":-5}]}}"#,
             .numberOutOfRange(value: "-5", min: 1, max: 50_000_000)),
        ]
        for (json, reason) in payloads {
            XCTAssertThrowsError(try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(.none)), json) { e in
                XCTAssertEqual((e as? PayloadRejection)?.reason, reason, json)
            }
        }
    }
}
