/// A JSON-like value: what a push payload is made of once decoded.
///
/// Produced by `PayloadValue.parseJSON(_:limits:)` (a strict RFC 8259 parser that enforces
/// `PayloadLimits` while it reads) or by `PayloadValue(any:limits:)` from an OS dictionary such
/// as `UNNotificationContent.userInfo`. Objects keep their members in a deterministic order (source
/// order for JSON, sorted by key for dictionaries) and never hold duplicate keys.
public indirect enum PayloadValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A JSON number without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// A JSON number with a fraction or exponent (always finite).
    case number(Double)
    case string(String)
    case array([PayloadValue])
    case object([PayloadMember])

    /// Short type name used in error messages ("object", "string", ...).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The member named `key` when `self` is an object. Keys are matched by their exact UTF-8
    /// bytes, not by `String ==` (which equates canonically equivalent spellings, e.g. U+212A
    /// KELVIN SIGN and "K"), as the JSON reader tells keys apart.
    /// - Complexity: O(total key bytes) (objects are small and bounded by `PayloadLimits`).
    public subscript(key: String) -> PayloadValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key.utf8.elementsEqual(key.utf8) { return member.value }
        return nil
    }
}

/// One member of a `PayloadValue.object`.
public struct PayloadMember: Sendable, Equatable {
    public var key: String
    public var value: PayloadValue
    public init(key: String, value: PayloadValue) {
        self.key = key
        self.value = value
    }
}

/// Bounds enforced while decoding a payload. Every limit is checked before the work it bounds.
public struct PayloadLimits: Sendable, Equatable {
    /// Largest JSON document accepted (APNs/FCM cap pushes at 4 KB; slack for manifests by value).
    public var documentBytesMax: Int = 8_192
    /// Deepest container nesting accepted (the top-level object is depth 1).
    public var depthMax: Int = 16
    /// Longest string (UTF-8 bytes after unescaping), keys included.
    public var stringBytesMax: Int = 2_048
    /// Most elements in one array or members in one object.
    public var containerElementsMax: Int = 128
    /// Most values in the whole document.
    public var valuesMax: Int = 2_048
    /// Longest number literal in characters.
    public var numberCharactersMax: Int = 32
    /// Most assets in one manifest.
    public var assetsMax: Int = 16
    /// Most variants on one asset.
    public var variantsMax: Int = 6
    /// Largest declared asset size (`bytes`) accepted at parse time.
    public var declaredBytesMax: Int64 = 50_000_000
    /// Shortest manifest `ttl` accepted, seconds.
    public var ttlSecondsMin: Int64 = 60
    /// Longest manifest `ttl` accepted, seconds (one day; practice is 4–6 h).
    public var ttlSecondsMax: Int64 = 86_400
    /// Longest identifier (`manifest_id`, `pre_stage_id`, `version`).
    public var identifierBytesMax: Int = 128

    public init() {}
}

/// Why a payload (or a fetched manifest) was refused: where (`path`, e.g. `$.cdn_preload.assets[1].url`)
/// and what (`reason`).
public struct PayloadRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong; each case carries the offending value and the expectation where there is
    /// one (`description` renders it as a sentence).
    public enum Reason: Sendable, Equatable {
        case invalidJSON(offset: Int, expected: String)
        case invalidUTF8(offset: Int)
        case documentTooLarge(bytes: Int, max: Int)
        case nestingTooDeep(max: Int)
        case stringTooLong(bytes: Int, max: Int)
        case tooManyElements(count: Int, max: Int)
        case tooManyValues(max: Int)
        case duplicateKey(String)
        case numberOutOfRange(value: String, min: Int64, max: Int64)
        case wrongType(expected: String, found: String)
        case missingField(String)
        case invalidValue(value: String, expected: String)
        case unsupportedType(String)
        case url(URLRejection)
        case ambiguousFormat(String)
        case noPreStageContent
        case signatureMissing
        case signatureMalformed(String)
        case signatureMismatch
        case signingKeyMissing
        case manifestMismatch(expected: String, found: String)
        /// The signed `exp` (`expiresAt`) plus the clock-skew tolerance is before `now`: a late
        /// or replayed push or manifest.
        case expired(expiresAt: Instant, now: Instant, toleranceSeconds: Int64)
        /// No `exp`, but `PayloadOptions.expiryRequirement` is `.required`.
        case expiryMissing
        /// The fetched manifest's `campaign_id` (nil: none) is not the push's.
        case campaignMismatch(expected: String, found: String?)
    }

    /// JSONPath-like location of the offending value (`$` is the document root).
    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        let what: String
        switch reason {
        case .invalidJSON(let offset, let expected):
            what = "is not valid JSON at byte \(offset): expected \(expected)"
        case .invalidUTF8(let offset):
            what = "contains invalid UTF-8 in the string starting at byte \(offset)"
        case .documentTooLarge(let bytes, let max):
            what = "is \(bytes) bytes, more than the \(max)-byte limit"
        case .nestingTooDeep(let max):
            what = "nests containers deeper than \(max) levels"
        case .stringTooLong(let bytes, let max):
            what = "holds a string of \(bytes) bytes, more than the \(max)-byte limit"
        case .tooManyElements(let count, let max):
            what = "holds \(count) elements, more than the limit of \(max)"
        case .tooManyValues(let max):
            what = "holds more than \(max) values"
        case .duplicateKey(let key):
            what = "repeats the key \"\(PayloadRejection.clip(key))\""
        case .numberOutOfRange(let value, let min, let max):
            what = "is \(PayloadRejection.clip(value)), expected an integer in \(min)...\(max)"
        case .wrongType(let expected, let found):
            what = "is a \(found), expected \(expected)"
        case .missingField(let name):
            what = "lacks the required field \"\(name)\""
        case .invalidValue(let value, let expected):
            what = "is \"\(PayloadRejection.clip(value))\", expected \(expected)"
        case .unsupportedType(let name):
            what = "holds a value of unsupported type \(PayloadRejection.clip(name))"
        case .url(let rejection):
            what = "is a refused URL: \(rejection)"
        case .ambiguousFormat(let detail):
            what = "is ambiguous: \(detail)"
        case .noPreStageContent:
            what = "carries no pre-stage content (no cdn_preload, pre_stage_url or au)"
        case .signatureMissing:
            what = "is unsigned, but a valid signature is required"
        case .signatureMalformed(let value):
            what = "has the malformed signature \"\(PayloadRejection.clip(value))\", expected v1=<64 hex digits>"
        case .signatureMismatch:
            what = "has a signature that does not match its canonical form under the app's key"
        case .signingKeyMissing:
            what = "cannot be verified: a signature is required but the app supplied no signing key"
        case .manifestMismatch(let expected, let found):
            what = "names manifest \"\(PayloadRejection.clip(found))\", expected \"\(PayloadRejection.clip(expected))\""
        case .expired(let expiresAt, let now, let toleranceSeconds):
            let late = now.microseconds(since: expiresAt) / 1_000_000
            what = "expired at second \(expiresAt.microseconds / 1_000_000), \(late) s before now (second \(now.microseconds / 1_000_000)); "
                + "at most \(toleranceSeconds) s of clock skew are tolerated"
        case .expiryMissing:
            what = "carries no signed expiry (exp), but one is required"
        case .campaignMismatch(let expected, let found):
            what = "names campaign \(found.map { "\"\(PayloadRejection.clip($0))\"" } ?? "none"), expected \"\(PayloadRejection.clip(expected))\""
        }
        return "\(path) \(what)"
    }

    /// At most 64 characters of an offending value, so a hostile payload cannot bloat logs.
    static func clip(_ text: String) -> String {
        var out = ""
        var count = 0
        for ch in text.unicodeScalars {
            if count == 64 { return out + "…" }
            out.unicodeScalars.append(ch.value < 0x20 || ch.value == 0x7f ? "?" : ch)
            count += 1
        }
        return out
    }
}
