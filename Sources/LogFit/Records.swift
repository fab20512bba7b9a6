/// How the edge answered a request.
package enum CacheResult: String, Sendable, Codable {
    /// Served from the edge cache (CloudFront Hit/RefreshHit, Cloudflare hit/stale/updating/revalidated).
    case hit
    /// Fetched upstream (CloudFront Miss, Cloudflare miss/expired).
    case miss
    /// The edge answered with an error (CloudFront Error).
    case error
    /// Not cacheable or not classified (pass, bypass, dynamic, redirects).
    case other
}

/// One CDN request, whatever the log format.
package struct EdgeRecord: Sendable, Equatable {
    /// Request start, seconds since 1970 UTC.
    package var timeSeconds: Double
    /// The PoP (airport-style code: `FRA`, `IAD`), "" when unknown.
    package var pop: String
    package var cache: CacheResult
    /// Request received → first response byte written, seconds.
    package var firstByteSeconds: Double?
    /// Request received → last byte written, seconds.
    package var totalSeconds: Double?
    /// Upstream (origin) response time, seconds, when the log has it.
    package var originSeconds: Double?
    /// Response bytes.
    package var bytes: Double?
    /// HTTP status to the client.
    package var status: Int?
    /// HTTP status from the origin, when the log has it.
    package var originStatus: Int?

    package init(timeSeconds: Double, pop: String, cache: CacheResult, firstByteSeconds: Double? = nil,
                totalSeconds: Double? = nil, originSeconds: Double? = nil, bytes: Double? = nil,
                status: Int? = nil, originStatus: Int? = nil) {
        self.timeSeconds = timeSeconds
        self.pop = pop
        self.cache = cache
        self.firstByteSeconds = firstByteSeconds
        self.totalSeconds = totalSeconds
        self.originSeconds = originSeconds
        self.bytes = bytes
        self.status = status
        self.originStatus = originStatus
    }

    /// A status that means the upstream timed out (504; Cloudflare's 522/524): its times are
    /// censored at their value.
    package var isTimeout: Bool {
        let s = originStatus ?? status ?? 0
        return s == 504 || s == 522 || s == 524
    }
}

/// One push from push analytics.
package struct PushRecord: Sendable, Equatable {
    package var sentSeconds: Double
    package var deliveredSeconds: Double?
    package var openedSeconds: Double?
    /// "ios", "android" or "other".
    package var platform: String
    /// A scenario network class (`wifi`, `5g`, `lte`, `4g`, `3g`, `2g`, `slow-2g`) or nil.
    package var network: String?

    package init(sentSeconds: Double, deliveredSeconds: Double?, openedSeconds: Double?, platform: String, network: String?) {
        self.sentSeconds = sentSeconds
        self.deliveredSeconds = deliveredSeconds
        self.openedSeconds = openedSeconds
        self.platform = platform
        self.network = network
    }

    /// "ios"/"android"/"other" from the spellings push tools use (iOS, APNs, Android, FCM, ...).
    static func platform(_ raw: String) -> String {
        switch raw.lowercased() {
        case "ios", "iphone", "ipados", "apns", "apple": return "ios"
        case "android", "fcm", "gcm", "google": return "android"
        default: return "other"
        }
    }

    /// The scenario network class for a logged one, nil when unknown.
    static func network(_ raw: String) -> String? {
        switch raw.lowercased() {
        case "wifi", "wi-fi", "wlan": return "wifi"
        case "5g", "nr": return "5g"
        case "lte": return "lte"
        case "4g": return "4g"
        case "3g", "umts", "hspa": return "3g"
        case "2g", "edge", "gprs": return "2g"
        case "slow-2g", "slow2g": return "slow-2g"
        default: return nil
        }
    }
}

/// Lines that could not be used: a count, and the first few quoted with their line numbers.
package struct ReadProblems: Sendable, Equatable {
    /// Problems quoted in full (the rest are counted).
    package static let quotedMax = 5
    /// Longest quoted excerpt of a line, characters.
    package static let excerptCharactersMax = 120

    package private(set) var count = 0
    /// "FILE:LINE: reason: «excerpt»".
    package private(set) var quoted: [String] = []
    /// Messages about whole files (an early end of a gzip stream).
    package var fileNotes: [String] = []

    package init() {}

    mutating func add(path: String, line: Int, reason: String, text: UnsafeBufferPointer<UInt8>) {
        count += 1
        guard quoted.count < Self.quotedMax else { return }
        var excerpt = String(decoding: text.prefix(Self.excerptCharactersMax * 4), as: UTF8.self)
        if excerpt.count > Self.excerptCharactersMax { excerpt = String(excerpt.prefix(Self.excerptCharactersMax)) + "…" }
        quoted.append("\(path):\(line): \(reason): «\(excerpt)»")
    }

    /// Adds the problems of files read separately after this one's, as if read in that order.
    mutating func append(_ other: ReadProblems) {
        count += other.count
        quoted += other.quoted.prefix(max(0, Self.quotedMax - quoted.count))
        fileNotes += other.fileNotes
    }
}
