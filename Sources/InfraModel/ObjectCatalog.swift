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
///
/// A *range* (``add(rangeOf:bytes:)``) is a byte range of another object, requested with
/// `Range` (an HLS segment of a single-file variant): its id names what a device asks for and its
/// `bytes` what the response carries, while the caches and the upstream see only the object it is
/// a range of (``cacheObject``): one cache entry, filled whole on a miss, so a range of a cached
/// object is a hit. Whole-object fill is the default where range origin fetch is an option
/// (Alibaba Cloud CDN: "disabled by default", the POP then fetches the resource without the
/// `Range` header; Huawei Cloud CDN likewise when it is off); CloudFront answers a range from a
/// cached object and on a miss forwards the range, possibly widened ("How CloudFront processes
/// partial requests for an object"), which this model does not follow (judgement: the whole-object
/// fill is the simpler and more common default).
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
    /// The object whose cache entry serves each object: itself, or for a range the object it is a
    /// range of.
    package private(set) var cacheObject: [UInt32] = []

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
        cacheObject.append(UInt32(count - 1))
        return UInt32(count - 1)
    }

    /// Add a byte range of `size` bytes of object `parent` (a whole object, not itself a range):
    /// requests for it are answered from `parent`'s cache entry with `size` bytes. Its policy,
    /// surrogate key and placeholder eligibility are the parent's. Returns its id.
    /// - Throws: ``InfraConfigError`` for an unknown parent or a parent that is a range, a size
    ///   outside 1 ... the parent's bytes, or more than ``objectsMax`` objects.
    @discardableResult
    package mutating func add(rangeOf parent: UInt32, bytes size: Int64) throws(InfraConfigError) -> UInt32 {
        let path = "objects[\(count)]"
        let p = Int(parent)
        try require(count < ObjectCatalog.objectsMax, path, "", "\(count) objects", "at most \(ObjectCatalog.objectsMax)")
        try require(p < count && cacheObject[p] == parent, path, "rangeOf", "\(parent)", "a whole object's id below \(count)")
        try require(size >= 1 && size <= bytes[p], path, "bytes", "\(size)", "bytes in 1...\(bytes[p]) (the object's)")
        bytes.append(size)
        maxAgeTicks.append(maxAgeTicks[p])
        staleWhileRevalidateTicks.append(staleWhileRevalidateTicks[p])
        staleIfErrorTicks.append(staleIfErrorTicks[p])
        surrogateKey.append(surrogateKey[p])
        placeholderEligible.append(placeholderEligible[p])
        cacheObject.append(parent)
        return UInt32(count - 1)
    }
}
