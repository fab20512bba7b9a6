import XCTest
@testable import PreloadKit

final class PayloadParserTests: XCTestCase {
    func parse(_ json: String, _ requirement: SignatureRequirement = .required) throws -> PreStageRequest {
        try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(requirement))
    }

    func rejection(_ json: String, _ requirement: SignatureRequirement = .required) -> PayloadRejection? {
        do {
            _ = try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(requirement))
            return nil
        } catch {
            return error
        }
    }

    /// `PreStageRequest` stores its fields in one shared object; equality is still by value: the
    /// same payload parsed twice gives equal requests (distinct objects), different payloads do not.
    func testRequestEqualityIsByValue() throws {
        let a = try parse(Payloads.inline()), b = try parse(Payloads.inline())
        XCTAssertFalse(a.storage === b.storage)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, try parse(Payloads.inline(signature: "v1=" + String(repeating: "0", count: 64)), .none))
        XCTAssertNotEqual(a, try parse(Payloads.silent))
        XCTAssertNotEqual(a, try parse(Payloads.rich))
        XCTAssertNotEqual(try parse(Payloads.reference), try parse(Payloads.silent))
    }

    func testArticleInlineManifestParsesAndVerifies() throws {
        let r = try parse(Payloads.inline())
        XCTAssertEqual(r.format, .inlineManifest)
        XCTAssertEqual(r.manifestID, "mix_wk42_7f3a9")
        XCTAssertEqual(r.ttlSeconds, 14_400)
        XCTAssertEqual(r.signature, .verified)
        XCTAssertTrue(r.hasAlert)
        XCTAssertTrue(r.mutableContent)
        XCTAssertFalse(r.contentAvailable)
        XCTAssertEqual(r.assets.count, 2)
        XCTAssertEqual(r.assets[0].url.absoluteString, "https://cdn.example.com/mix/wk42/cover_800x800.webp")
        XCTAssertEqual(r.assets[0].type, .image)
        XCTAssertEqual(r.assets[0].priority, .critical)
        XCTAssertEqual(r.assets[0].declaredBytes, 48_200)
        XCTAssertEqual(r.assets[0].key, StoreKey(cacheKey: r.assets[0].url.cacheKey))
        XCTAssertEqual(r.assets[1].type, .playlist)
        XCTAssertEqual(r.assets[1].declaredBytes, 320_000)
        XCTAssertNil(r.manifestURL)
    }

    func testArticlePayloadWithItsTruncatedSignatureIsRefusedAsMalformed() {
        let r = rejection(Payloads.inline(signature: "v1=8f7d...a3c1"))
        XCTAssertEqual(r, PayloadRejection(path: "$.cdn_preload.signature", reason: .signatureMalformed("v1=8f7d...a3c1")))
    }

    func testCanonicalFormMatchesTheDocumentedLines() throws {
        let value = try PayloadValue.parseJSON(Fixtures.bytes(Payloads.inline()))
        let canonical = try PayloadParser.canonicalForm(of: value, options: Fixtures.options())
        let expected = "v1\ninline\nmix_wk42_7f3a9\n14400\n"
            + "https://cdn.example.com/mix/wk42/cover_800x800.webp|image|critical|48200\n"
            + "https://cdn.example.com/mix/wk42/preview.m3u8|hls|critical|320000\n"
        XCTAssertEqual(String(decoding: canonical, as: UTF8.self), expected)
    }

    func testTamperedFieldsBreakTheSignature() {
        let tampered = [
            Payloads.inline().replacingOccurrences(of: "48200", with: "48201"),
            Payloads.inline().replacingOccurrences(of: "\"ttl\": 14400", with: "\"ttl\": 14401"),
            Payloads.inline().replacingOccurrences(of: "cover_800x800", with: "cover_800x801"),
            Payloads.inline().replacingOccurrences(of: "\"priority\": \"critical\",\n        \"bytes\": 320000", with: "\"priority\": \"high\",\n        \"bytes\": 320000"),
            Payloads.inline().replacingOccurrences(of: "mix_wk42_7f3a9", with: "mix_wk42_7f3a8"),
        ]
        for (i, json) in tampered.enumerated() {
            XCTAssertNotEqual(json, Payloads.inline(), "tamper \(i) did not change the fixture")
            XCTAssertEqual(rejection(json)?.reason, .signatureMismatch, "tamper \(i)")
        }
    }

    func testUnsignedPayloadIsRefusedWhenRequiredAndAcceptedWhenOptional() throws {
        let unsigned = Payloads.inline().replacingOccurrences(of: ",\n    \"signature\": \"\(Payloads.inlineSignature)\"", with: "")
        XCTAssertFalse(unsigned.contains("signature"))
        XCTAssertEqual(rejection(unsigned), PayloadRejection(path: "$.cdn_preload.signature", reason: .signatureMissing))
        XCTAssertEqual(try parse(unsigned, .ifPresent).signature, .unsigned)
        XCTAssertEqual(try parse(unsigned, .none).signature, .notChecked)
        // ifPresent still refuses a wrong signature.
        let wrong = Payloads.inline(signature: "v1=" + String(repeating: "0", count: 64))
        XCTAssertEqual(rejection(wrong, .ifPresent)?.reason, .signatureMismatch)
    }

    func testUppercaseHexSignatureIsAccepted() throws {
        let upper = "v1=" + Payloads.inlineSignature.dropFirst(3).uppercased()
        XCTAssertEqual(try parse(Payloads.inline(signature: upper)).signature, .verified)
    }

    func testManifestReferenceAndItsDocument() throws {
        let r = try parse(Payloads.reference)
        XCTAssertEqual(r.format, .manifestReference)
        XCTAssertEqual(r.manifestID, "mix_wk43_ab12")
        XCTAssertEqual(r.manifestURL?.absoluteString, "https://cdn.example.com/preload/manifests/mix_wk43.json")
        XCTAssertEqual(r.assets, [])
        XCTAssertEqual(r.signature, .verified)

        let doc = try PayloadParser.parseReferencedManifest(json: Fixtures.bytes(Payloads.referencedDocument), for: r, options: Fixtures.options())
        XCTAssertEqual(doc.format, .manifestReference)
        XCTAssertEqual(doc.manifestID, r.manifestID)
        XCTAssertEqual(doc.manifestTag, r.manifestTag)
        XCTAssertEqual(doc.ttlSeconds, 18_000)
        XCTAssertEqual(doc.assets.count, 3)
        XCTAssertEqual(doc.assets[0].variants.map(\.network), [.wifi, .cellular3G], "variants sorted by network class")
        XCTAssertEqual(doc.assets[0].resolved(for: .cellular3G).url.absoluteString, "https://cdn.example.com/mix/wk43/cover_400.jpg")
        XCTAssertEqual(doc.assets[0].resolved(for: .cellular3G).declaredBytes, 18_000)
        XCTAssertEqual(doc.assets[0].resolved(for: .cellular4G).url.absoluteString, "https://cdn.example.com/mix/wk43/cover.jpg")
        XCTAssertEqual(doc.assets[0].resolved(for: .wifi).declaredBytes, 210_000)
        XCTAssertEqual(doc.assets[2].priority, .normal)
        XCTAssertTrue(doc.hasAlert, "aps flags come from the push")

        // A document for another campaign is refused.
        let other = try parse(Payloads.reference.replacingOccurrences(of: "mix_wk43_ab12", with: "mix_wk43_ab13"), .none)
        XCTAssertThrowsError(try PayloadParser.parseReferencedManifest(json: Fixtures.bytes(Payloads.referencedDocument), for: other, options: Fixtures.options())) { e in
            XCTAssertEqual(e as? PayloadRejection, PayloadRejection(path: "$.manifest_id", reason: .manifestMismatch(expected: "mix_wk43_ab13", found: "mix_wk43_ab12")))
        }
    }

    func testSilentPush() throws {
        let r = try parse(Payloads.silent)
        XCTAssertEqual(r.format, .silentPush)
        XCTAssertEqual(r.manifestID, "hero_a2")
        XCTAssertEqual(r.version, "8f3a")
        XCTAssertTrue(r.contentAvailable)
        XCTAssertFalse(r.hasAlert)
        XCTAssertEqual(r.ttlSeconds, 14_400, "default TTL")
        XCTAssertEqual(r.assets.count, 1)
        XCTAssertEqual(r.assets[0].priority, .critical)
        XCTAssertEqual(r.assets[0].type, .image)
        XCTAssertNil(r.assets[0].declaredBytes)
        XCTAssertEqual(r.signature, .verified)
    }

    func testRichPush() throws {
        let r = try parse(Payloads.rich)
        XCTAssertEqual(r.format, .richPush)
        XCTAssertEqual(r.manifestID, "")
        XCTAssertEqual(r.assets.count, 1)
        XCTAssertEqual(r.assets[0].type, .exact(.jpeg))
        XCTAssertEqual(r.signature, .verified)
        // The Pulsate-style unsigned form works when signatures are optional.
        let pulsate = #"{"aps":{"alert":"Hi","mutable-content":1},"au":"https://cdn.example.com/rich/a.gif","at":"gif"}"#
        XCTAssertEqual(try parse(pulsate, .ifPresent).assets[0].type, .exact(.gif))
        XCTAssertEqual(rejection(#"{"au":"https://cdn.example.com/a.exe","at":"exe"}"#, .none),
                       PayloadRejection(path: "$.at", reason: .invalidValue(value: "exe", expected: "one of jpg, jpeg, png, gif, webp, heic, mp4, mp3, m4a, m3u8")))
        XCTAssertEqual(rejection(#"{"au":"https://cdn.example.com/a.jpg"}"#, .none), PayloadRejection(path: "$", reason: .missingField("at")))
    }

    func testFromDictionariesEqualsFromJSON() throws {
        let inlineDict: [String: Any] = [
            "aps": ["alert": ["title": "Your weekly mix is ready", "body": "Tap to play 12 new tracks"], "mutable-content": 1, "category": "PRELOAD_MIX"] as [String: Any],
            "cdn_preload": [
                "manifest_id": "mix_wk42_7f3a9",
                "assets": [
                    ["url": "https://cdn.example.com/mix/wk42/cover_800x800.webp", "type": "image", "priority": "critical", "bytes": 48200] as [String: Any],
                    ["url": "https://cdn.example.com/mix/wk42/preview.m3u8", "type": "hls", "priority": "critical", "bytes": 320000] as [String: Any],
                ],
                "ttl": 14400,
                "signature": Payloads.inlineSignature,
            ] as [String: Any],
        ]
        let silentDict: [AnyHashable: Any] = [
            "aps": ["content-available": 1], "pre_stage_url": "https://cdn.example.com/push/hero_a2_800w.webp?v=8f3a",
            "pre_stage_id": "hero_a2", "version": "8f3a", "signature": Payloads.silentSignature,
        ]
        let richDict: [String: Any] = [
            "aps": ["alert": ["title": "Flash sale", "body": "50% off for 2 hours"], "mutable-content": 1] as [String: Any],
            "au": "https://cdn.example.com/rich/sale_banner.jpg", "at": "jpg", "signature": Payloads.richSignature,
        ]
        let referenceDict: [String: Any] = [
            "aps": ["alert": ["title": "New mix", "body": "Tap to play"], "mutable-content": 1] as [String: Any],
            "cdn_preload": ["manifest_id": "mix_wk43_ab12", "manifest_url": "https://cdn.example.com/preload/manifests/mix_wk43.json",
                            "signature": Payloads.referenceSignature],
        ]
        let pairs: [(Any, String)] = [(inlineDict, Payloads.inline()), (silentDict, Payloads.silent), (richDict, Payloads.rich), (referenceDict, Payloads.reference)]
        for (dict, json) in pairs {
            let fromDict = try PayloadParser.parse(PayloadValue(any: dict), options: Fixtures.options())
            XCTAssertEqual(fromDict, try parse(json))
        }
    }

    func testDictionaryConversionLimitsAndTypes() {
        var deep: Any = "leaf"
        for _ in 0..<40 { deep = ["k": deep] }
        XCTAssertThrowsError(try PayloadValue(any: deep)) { e in
            XCTAssertEqual((e as? PayloadRejection)?.reason, .nestingTooDeep(max: 16))
        }
        XCTAssertThrowsError(try PayloadValue(any: ["x": Double.nan])) { e in
            XCTAssertEqual((e as? PayloadRejection)?.path, "$.x")
        }
        XCTAssertThrowsError(try PayloadValue(any: ["u": UInt64.max])) { e in
            XCTAssertEqual((e as? PayloadRejection)?.reason, .numberOutOfRange(value: "\(UInt64.max)", min: .min, max: .max))
        }
        struct Opaque {}
        XCTAssertThrowsError(try PayloadValue(any: ["o": [Opaque()]])) { e in
            XCTAssertEqual(e as? PayloadRejection, PayloadRejection(path: "$.o[0]", reason: .unsupportedType("Opaque")))
        }
        XCTAssertThrowsError(try PayloadValue(any: [AnyHashable(7): "x"])) { e in
            XCTAssertEqual((e as? PayloadRejection)?.reason, .wrongType(expected: "string keys", found: "Int key"))
        }
        XCTAssertEqual(try PayloadValue(any: ["b": true, "a": [1, 2.5, "s"] as [Any]]),
                       .object([PayloadMember(key: "a", value: .array([.integer(1), .number(2.5), .string("s")])),
                                PayloadMember(key: "b", value: .bool(true))]))
    }

    func testFieldErrorsNameThePathValueAndExpectation() {
        let cases: [(String, PayloadRejection)] = [
            (#"[]"#, PayloadRejection(path: "$", reason: .wrongType(expected: "object", found: "array"))),
            (#"{"aps":{}}"#, PayloadRejection(path: "$", reason: .noPreStageContent)),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[],"manifest_url":"https://cdn.example.com/m.json"}}"#,
             PayloadRejection(path: "$.cdn_preload", reason: .ambiguousFormat("both assets and manifest_url"))),
            (#"{"au":"https://cdn.example.com/a.jpg","at":"jpg","pre_stage_url":"https://cdn.example.com/b.jpg"}"#,
             PayloadRejection(path: "$", reason: .ambiguousFormat("more than one of cdn_preload, pre_stage_url, au"))),
            (#"{"cdn_preload":{"manifest_id":"../etc/passwd","assets":[]}}"#,
             PayloadRejection(path: "$.cdn_preload.manifest_id", reason: .invalidValue(value: "../etc/passwd", expected: "1...128 characters from A-Z a-z 0-9 . _ : -"))),
            (#"{"cdn_preload":{"manifest_id":"m","ttl":999999999,"assets":[]}}"#,
             PayloadRejection(path: "$.cdn_preload.ttl", reason: .numberOutOfRange(value: "999999999", min: 60, max: 86_400))),
            (#"{"cdn_preload":{"manifest_id":"m","ttl":"14400","assets":[]}}"#,
             PayloadRejection(path: "$.cdn_preload.ttl", reason: .wrongType(expected: "integer", found: "string"))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"http://cdn.example.com/a.jpg","type":"image","priority":"critical"}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].url", reason: .url(.notHTTPS("http")))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://evil.example.org/a.jpg","type":"image","priority":"critical"}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].url", reason: .url(.hostNotAllowed("evil.example.org")))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","bytes":50000001}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].bytes", reason: .numberOutOfRange(value: "50000001", min: 1, max: 50_000_000))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","bytes":1.5}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].bytes", reason: .numberOutOfRange(value: "1.5", min: 1, max: 50_000_000))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"exe","priority":"critical"}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].type", reason: .invalidValue(value: "exe", expected: "one of \(AssetType.payloadTokens)"))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"urgent"}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].priority", reason: .invalidValue(value: "urgent", expected: "one of critical, high, normal, low"))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","variants":{"6g":{"url":"https://cdn.example.com/b.jpg"}}}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0].variants.6g", reason: .invalidValue(value: "6g", expected: "a network key: wifi, 5g, 4g, 3g, 2g, slow-2g"))),
            (#"{"cdn_preload":{"manifest_id":"m","assets":[{"type":"image","priority":"critical"}]}}"#,
             PayloadRejection(path: "$.cdn_preload.assets[0]", reason: .missingField("url"))),
            (#"{"aps":{"content-available":2},"pre_stage_url":"https://cdn.example.com/a.jpg","pre_stage_id":"a"}"#,
             PayloadRejection(path: "$.aps.content-available", reason: .numberOutOfRange(value: "2", min: 0, max: 1))),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(rejection(json, .none), expected, json)
            XCTAssertFalse(expected.description.isEmpty)
        }
    }

    func testRejectionDescriptionsAreSentences() {
        let r = PayloadRejection(path: "$.cdn_preload.ttl", reason: .numberOutOfRange(value: "999999999", min: 60, max: 86_400))
        XCTAssertEqual(r.description, "$.cdn_preload.ttl is 999999999, expected an integer in 60...86400")
        let long = PayloadRejection(path: "$", reason: .invalidValue(value: String(repeating: "x", count: 500), expected: "short"))
        XCTAssertLessThan(long.description.count, 120, "offending values are clipped to 64 characters")
    }

    func testTooManyAssetsAndVariants() {
        var assets: [String] = []
        for i in 0..<17 { assets.append(#"{"url":"https://cdn.example.com/a\#(i).jpg","type":"image","priority":"low"}"#) }
        let json = #"{"cdn_preload":{"manifest_id":"m","assets":[\#(assets.joined(separator: ","))]}}"#
        XCTAssertEqual(rejection(json, .none), PayloadRejection(path: "$.cdn_preload.assets", reason: .tooManyElements(count: 17, max: 16)))
    }

    func testManifestTagsDifferByFormatAndID() throws {
        let a = try parse(Payloads.inline())
        let b = try parse(Payloads.inline().replacingOccurrences(of: "mix_wk42_7f3a9", with: "mix_wk42_7f3a8"), .none)
        let c = try parse(Payloads.silent)
        XCTAssertNotEqual(a.manifestTag, b.manifestTag)
        XCTAssertNotEqual(a.manifestTag, c.manifestTag)
        XCTAssertEqual(a.manifestTag, try parse(Payloads.inline()).manifestTag, "deterministic")
    }

    func testTokenRotationKeepsTheStoreKey() throws {
        func key(_ token: String) throws -> StoreKey {
            let json = #"{"au":"https://cdn.example.com/rich/a.jpg?w=800&token=\#(token)","at":"jpg"}"#
            return try parse(json, .none).assets[0].key
        }
        XCTAssertEqual(try key("abc"), try key("xyz"))
        let other = try parse(#"{"au":"https://cdn.example.com/rich/a.jpg?w=400&token=abc","at":"jpg"}"#, .none).assets[0].key
        XCTAssertNotEqual(try key("abc"), other)
    }
}
