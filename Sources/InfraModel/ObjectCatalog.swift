import SimKernel

/// Cache-Control of an object (RFC 9111 max-age, RFC 5861 stale-while-revalidate and
/// stale-if-error). Defaults follow the reference article's pre-stage assets
/// (`max-age=14400, stale-while-revalidate=86400`).
package struct CachePolicy: Sendable, Equatable {
    package var maxAgeSeconds: Double
    package var staleWhileRevalidateSeconds: Double
    package var staleIfErrorSeconds: Double

    package init(maxAgeSeconds: Double = 14_400, staleWhileRevalidateSeconds: Double = 86_400, staleIfErrorSeconds: Double = 0) {
        self.maxAgeSeconds = maxAgeSeconds
        self.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds
        self.staleIfErrorSeconds = staleIfErrorSeconds
    }

    package func validate(path: String) throws(InfraConfigError) {
        let year = 365.0 * 86_400
        try require(maxAgeSeconds >= 0 && maxAgeSeconds <= year, path, "maxAgeSeconds", "\(maxAgeSeconds)", "seconds in [0, 1 year]")
        try require(staleWhileRevalidateSeconds >= 0 && staleWhileRevalidateSeconds <= year, path,
                    "staleWhileRevalidateSeconds", "\(staleWhileRevalidateSeconds)", "seconds in [0, 1 year]")
        try require(staleIfErrorSeconds >= 0 && staleIfErrorSeconds <= year, path, "staleIfErrorSeconds",
                    "\(staleIfErrorSeconds)", "seconds in [0, 1 year]")
    }
}

/// The tracked objects (campaign assets, manifests): sizes, cache policies and surrogate keys,
/// as arrays indexed by object id (`UInt32`, assigned densely from 0 by ``add(bytes:policy:surrogateKey:)``).
package struct ObjectCatalog: Sendable {
    /// Limits: objects and distinct surrogate keys.
    package static let objectsMax = 1 << 24
    package static let surrogateKeysMax = 1 << 16
    /// Marks "no surrogate key".
    package static let noSurrogateKey = UInt32.max

    package private(set) var bytes: [Int64] = []
    package private(set) var maxAgeTicks: [Int64] = []
    package private(set) var staleWhileRevalidateTicks: [Int64] = []
    package private(set) var staleIfErrorTicks: [Int64] = []
    package private(set) var surrogateKey: [UInt32] = []
    /// Whether the placeholder redirect may answer a request for the object (media; not a
    /// document such as a referenced manifest, which a placeholder image cannot stand in for).
    package private(set) var placeholderEligible: [Bool] = []
    /// One more than the largest surrogate key used.
    package private(set) var surrogateKeyCount: Int = 0

    package init() {}

    package var count: Int { bytes.count }

    /// Add an object (`placeholderEligible`: see ``placeholderEligible``); returns its id.
    /// - Throws: ``InfraConfigError`` (path `objects[id]...`) for a size outside 1...2^34 bytes, an
    ///   invalid policy, a surrogate key ≥ ``surrogateKeysMax``, or more than ``objectsMax`` objects.
    @discardableResult
    package mutating func add(bytes size: Int64, policy: CachePolicy = CachePolicy(),
                             surrogateKey key: UInt32? = nil, placeholderEligible: Bool = true) throws(InfraConfigError) -> UInt32 {
        let path = "objects[\(count)]"
        try require(count < ObjectCatalog.objectsMax, path, "", "\(count) objects", "at most \(ObjectCatalog.objectsMax)")
        try require(size >= 1 && size <= 1 << 34, path, "bytes", "\(size)", "bytes in 1...2^34")
        try policy.validate(path: joinPath(path, "policy"))
        if let k = key {
            try require(Int(k) < ObjectCatalog.surrogateKeysMax, path, "surrogateKey", "\(k)", "a key below \(ObjectCatalog.surrogateKeysMax)")
            surrogateKeyCount = max(surrogateKeyCount, Int(k) + 1)
        }
        bytes.append(size)
        maxAgeTicks.append(SimDuration.seconds(policy.maxAgeSeconds).ticks)
        staleWhileRevalidateTicks.append(SimDuration.seconds(policy.staleWhileRevalidateSeconds).ticks)
        staleIfErrorTicks.append(SimDuration.seconds(policy.staleIfErrorSeconds).ticks)
        surrogateKey.append(key ?? ObjectCatalog.noSurrogateKey)
        self.placeholderEligible.append(placeholderEligible)
        return UInt32(count - 1)
    }
}
