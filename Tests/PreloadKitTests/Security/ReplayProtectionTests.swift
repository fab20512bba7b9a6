import XCTest
@testable import PreloadKit

/// Signed expiry (`exp`) and campaign binding (`campaign_id`). The signatures below were computed
/// independently with Python's `hmac` from the canonical form as documented on `PayloadParser`.
final class ReplayProtectionTests: XCTestCase {
    static let exp: Int64 = 1_767_225_600
    static let expiresAt = Instant(microseconds: exp * 1_000_000)

    /// Lines `v1, silent, promo_1, "", url, "", exp=1767225600, campaign_id=spring-2026`.
    static func silent(exp: Int64 = exp, campaign: String = "spring-2026",
                       signature: String = "v1=33d6c52002afc521aa9da34fb37d1cc6e8f6727590e82b3753a35fe324363fc8") -> [UInt8] {
        Array(#"""
        {"aps":{"content-available":1},"pre_stage_url":"https://cdn.example.com/promo/a.jpg","pre_stage_id":"promo_1",
         "exp":\#(exp),"campaign_id":"\#(campaign)","signature":"\#(signature)"}
        """#.utf8)
    }

    /// Lines `v1, inline, mix_wk44, 3600, <asset>, exp=1767225600, campaign_id=mix-44`.
    static let inline = Array(#"""
        {"cdn_preload":{"manifest_id":"mix_wk44","ttl":3600,"exp":1767225600,"campaign_id":"mix-44",
         "assets":[{"url":"https://cdn.example.com/mix/wk44/cover.jpg","type":"image","priority":"critical","bytes":1000}],
         "signature":"v1=0e35e8ed28e9a5bdcfa292df8886134417df630189339fbc4bad286f79ee4bc6"}}
        """#.utf8)

    func testSignedExpiryAndCampaignAreParsedAndCovered() throws {
        let request = try PayloadParser.parse(json: Self.silent(), options: Fixtures.options())
        XCTAssertEqual(request.signature, .verified)
        XCTAssertEqual(request.expiresAt, Self.expiresAt)
        XCTAssertEqual(request.campaignID, "spring-2026")
        let inline = try PayloadParser.parse(json: Self.inline, options: Fixtures.options())
        XCTAssertEqual(inline.expiresAt, Self.expiresAt)
        XCTAssertEqual(inline.campaignID, "mix-44")

        // Extending the lifetime or moving the push to another campaign breaks the signature.
        for forged in [Self.silent(exp: Self.exp + 86_400), Self.silent(campaign: "spring-2027")] {
            XCTAssertThrowsError(try PayloadParser.parse(json: forged, options: Fixtures.options())) { error in
                XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.signature", reason: .signatureMismatch))
            }
        }
        // So does stripping them: the signature covers their lines.
        let stripped = String(decoding: Self.inline, as: UTF8.self).replacingOccurrences(of: #""exp":1767225600,"#, with: "")
        XCTAssertThrowsError(try PayloadParser.parse(json: Array(stripped.utf8), options: Fixtures.options())) { error in
            XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.cdn_preload.signature", reason: .signatureMismatch))
        }
    }

    func testCanonicalFormEndsWithTheReplayLines() throws {
        let value = try PayloadValue.parseJSON(Self.inline)
        let canonical = String(decoding: try PayloadParser.canonicalForm(of: value, options: Fixtures.options()), as: UTF8.self)
        XCTAssertEqual(canonical, "v1\ninline\nmix_wk44\n3600\nhttps://cdn.example.com/mix/wk44/cover.jpg|image|critical|1000\n"
                       + "exp=1767225600\ncampaign_id=mix-44\n")
    }

    /// Accepted up to and including `exp` + tolerance; one microsecond later it is a replay.
    func testExpiryIsEnforcedWithTheClockSkewTolerance() throws {
        let options = Fixtures.options()
        XCTAssertEqual(options.expiryClockSkewToleranceSeconds, 60)
        let lastAccepted = Self.expiresAt.advanced(bySeconds: 60)
        XCTAssertNoThrow(try PayloadParser.parse(json: Self.silent(), options: options, now: .zero))
        XCTAssertNoThrow(try PayloadParser.parse(json: Self.silent(), options: options, now: lastAccepted))
        let late = lastAccepted.advanced(byMicroseconds: 1)
        XCTAssertThrowsError(try PayloadParser.parse(json: Self.silent(), options: options, now: late)) { error in
            XCTAssertEqual(error as? PayloadRejection,
                           PayloadRejection(path: "$.exp", reason: .expired(expiresAt: Self.expiresAt, now: late, toleranceSeconds: 60)))
        }
        let hoursLater = Self.expiresAt.advanced(bySeconds: 3 * 3_600)
        XCTAssertThrowsError(try PayloadParser.parse(json: Self.inline, options: options, now: hoursLater)) { error in
            XCTAssertEqual((error as? PayloadRejection)?.path, "$.cdn_preload.exp")
            XCTAssertEqual((error as? PayloadRejection)?.description,
                           "$.cdn_preload.exp expired at second 1767225600, 10800 s before now (second 1767236400); at most 60 s of clock skew are tolerated")
        }
        // A request parsed once and shared is checked per delivery.
        let shared = try PayloadParser.parse(json: Self.inline, options: options)
        XCTAssertNoThrow(try PayloadParser.checkExpiry(of: shared, now: Self.expiresAt, options: options))
        XCTAssertThrowsError(try PayloadParser.checkExpiry(of: shared, now: hoursLater, options: options))
        var strict = options
        strict.expiryClockSkewToleranceSeconds = 0
        XCTAssertThrowsError(try PayloadParser.checkExpiry(of: shared, now: Self.expiresAt.advanced(bySeconds: 1), options: strict))
    }

    /// Default `.ifPresent`: a payload without `exp` is accepted at any time; `.required` refuses it.
    func testPayloadWithoutExpiryFollowsThePolicy() throws {
        let noExpiry = Fixtures.bytes(Payloads.inline())
        let farFuture = Instant(microseconds: .max)
        XCTAssertEqual(Fixtures.options().expiryRequirement, .ifPresent)
        let request = try PayloadParser.parse(json: noExpiry, options: Fixtures.options(), now: farFuture)
        XCTAssertNil(request.expiresAt)
        XCTAssertNil(request.campaignID)
        var required = Fixtures.options()
        required.expiryRequirement = .required
        XCTAssertThrowsError(try PayloadParser.parse(json: noExpiry, options: required, now: .zero)) { error in
            XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.cdn_preload.exp", reason: .expiryMissing))
        }
        XCTAssertNoThrow(try PayloadParser.parse(json: Self.silent(), options: required, now: .zero))
    }

    func testExpiryFieldIsValidated() {
        let cases: [(String, PayloadRejection)] = [
            (#""exp":"soon""#, PayloadRejection(path: "$.exp", reason: .wrongType(expected: "integer", found: "string"))),
            (#""exp":-1"#, PayloadRejection(path: "$.exp", reason: .numberOutOfRange(value: "-1", min: 0, max: ReplayFields.expirySecondsMax))),
            (#""exp":9223372036855"#, PayloadRejection(path: "$.exp", reason: .numberOutOfRange(value: "9223372036855", min: 0, max: 9_223_372_036_854))),
            (#""campaign_id":"a b""#, PayloadRejection(path: "$.campaign_id", reason: .invalidValue(value: "a b", expected: "1...128 characters from A-Z a-z 0-9 . _ : -"))),
        ]
        for (field, expected) in cases {
            let json = #"{"au":"https://cdn.example.com/a.jpg","at":"jpg",\#(field)}"#
            XCTAssertThrowsError(try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(.none)), field) { error in
                XCTAssertEqual(error as? PayloadRejection, expected, field)
            }
        }
    }

    func testToleranceIsValidated() {
        var options = Fixtures.options()
        options.expiryClockSkewToleranceSeconds = 3_601
        XCTAssertThrowsError(try options.validate()) { error in
            XCTAssertEqual((error as? PolicyError)?.field, "expiryClockSkewToleranceSeconds")
        }
        options.expiryClockSkewToleranceSeconds = -1
        XCTAssertThrowsError(try options.validate())
    }

    // MARK: - Referenced manifests

    func reference(campaign: String?) throws -> PreStageRequest {
        let campaignField = campaign.map { #","campaign_id":"\#($0)""# } ?? ""
        let json = #"{"cdn_preload":{"manifest_id":"m1","manifest_url":"https://cdn.example.com/m.json"\#(campaignField)}}"#
        return try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(.none))
    }

    func manifest(_ fields: String) -> [UInt8] {
        Fixtures.bytes(#"{"manifest_id":"m1","assets":[]\#(fields)}"#)
    }

    /// A push that names a campaign accepts only a manifest of that campaign.
    func testFetchedManifestMustNameThePushCampaign() throws {
        let options = Fixtures.options(.none)
        let bound = try reference(campaign: "c1")
        XCTAssertNoThrow(try PayloadParser.parseReferencedManifest(json: manifest(#","campaign_id":"c1""#), for: bound, options: options, now: .zero))
        XCTAssertThrowsError(try PayloadParser.parseReferencedManifest(json: manifest(#","campaign_id":"c2""#), for: bound, options: options, now: .zero)) { error in
            XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.campaign_id", reason: .campaignMismatch(expected: "c1", found: "c2")))
        }
        XCTAssertThrowsError(try PayloadParser.parseReferencedManifest(json: manifest(""), for: bound, options: options, now: .zero)) { error in
            XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.campaign_id", reason: .campaignMismatch(expected: "c1", found: nil)))
        }
        // A push without a campaign binds nothing.
        XCTAssertNoThrow(try PayloadParser.parseReferencedManifest(json: manifest(#","campaign_id":"c2""#), for: try reference(campaign: nil), options: options, now: .zero))
    }

    /// A fetched manifest's own `exp` is enforced at the `now` it arrives, also when the driver
    /// hands the session an already parsed manifest (`checkReferencedManifest`).
    func testFetchedManifestExpiryIsEnforced() throws {
        let options = Fixtures.options(.none)
        let push = try reference(campaign: "c1")
        let document = manifest(#","campaign_id":"c1","exp":100"#)
        let expiresAt = Instant(microseconds: 100_000_000)
        XCTAssertNoThrow(try PayloadParser.parseReferencedManifest(json: document, for: push, options: options, now: expiresAt))
        let late = expiresAt.advanced(bySeconds: 61)
        XCTAssertThrowsError(try PayloadParser.parseReferencedManifest(json: document, for: push, options: options, now: late)) { error in
            XCTAssertEqual(error as? PayloadRejection, PayloadRejection(path: "$.exp", reason: .expired(expiresAt: expiresAt, now: late, toleranceSeconds: 60)))
        }
        let shared = try PayloadParser.parseReferencedManifest(json: document, for: push, options: options)
        XCTAssertNoThrow(try PayloadParser.checkReferencedManifest(shared, for: push, options: options, now: expiresAt))
        XCTAssertThrowsError(try PayloadParser.checkReferencedManifest(shared, for: push, options: options, now: late))
        XCTAssertThrowsError(try PayloadParser.checkReferencedManifest(shared, for: try reference(campaign: "c2"), options: options, now: expiresAt)) { error in
            XCTAssertEqual((error as? PayloadRejection)?.reason, .campaignMismatch(expected: "c2", found: "c1"))
        }
    }

    /// The session enforces a fetched manifest's expiry at the `now` of its completion, for
    /// bytes and for a pre-parsed manifest alike: the manifest is rejected, no asset is fetched,
    /// and the notification is delivered as is.
    func testSessionRejectsAnExpiredFetchedManifest() throws {
        let push = try reference(campaign: "c1")
        let document = Fixtures.bytes(#"{"manifest_id":"m1","campaign_id":"c1","exp":100,"assets":[{"url":"https://cdn.example.com/a.jpg","type":"image","priority":"critical","bytes":1000}]}"#)
        let arrival = Instant(microseconds: 1_000_000_000)  // second 1000: 840 s past exp + tolerance
        let expected = FetchRejection.manifest(PayloadRejection(path: "$.exp", reason: .expired(
            expiresAt: Instant(microseconds: 100_000_000), now: arrival.advanced(byMicroseconds: 100_000), toleranceSeconds: 60)))
        let shared = try PayloadParser.parseReferencedManifest(json: document, for: push, options: Fixtures.options(.none))
        for body in [FetchBody.bytes(document), .parsedManifest(shared)] {
            var h = try Harness(policy: Fixtures.policy(.none))
            _ = try h.feed(.pushReceived(push, Sessions.context()), at: arrival)
            let actions = try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(Int64(document.count), "application/json", [], body: body)),
                                     at: arrival.advanced(byMicroseconds: 100_000))
            XCTAssertTrue(actions.contains(.cancelFetch(FetchID(rawValue: 1), .rejected(expected))), "\(body): \(actions)")
            XCTAssertEqual(Sessions.starts(actions), [], "\(body)")
            XCTAssertEqual(Sessions.deliveries(actions).map(\.readyAssets), [0], "\(body)")
        }
        // Before its expiry the same manifest is used.
        var h = try Harness(policy: Fixtures.policy(.none))
        _ = try h.feed(.pushReceived(push, Sessions.context()), at: Instant(microseconds: 50_000_000))
        let actions = try h.feed(.fetchCompleted(FetchID(rawValue: 1), Sessions.completion(Int64(document.count), "application/json", [], body: .bytes(document))),
                                 at: Instant(microseconds: 50_100_000))
        XCTAssertEqual(Sessions.starts(actions).map(\.url.absoluteString), ["https://cdn.example.com/a.jpg"])
    }
}
