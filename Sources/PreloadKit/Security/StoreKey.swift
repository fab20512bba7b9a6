/// The preload-store identity of an asset: the first 128 bits of SHA-256 of its `AssetURL.cacheKey`.
///
/// File names and ids are always derived from this key, never from payload text, so a payload can
/// neither choose a file name nor escape the store directory. 128 bits keep accidental collisions
/// negligible (birthday bound ~2^64 assets).
public struct StoreKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Digest bytes 0–7, big-endian.
    public let hi: UInt64
    /// Digest bytes 8–15, big-endian.
    public let lo: UInt64

    /// Length of `hex`.
    public static let hexCharacterCount = 32
    /// Suffix of `fileName`.
    public static let fileNameExtension = ".asset"

    /// A key from its two halves.
    public init(hi: UInt64, lo: UInt64) {
        self.hi = hi
        self.lo = lo
    }

    /// The key of the asset whose `AssetURL.cacheKey` is `cacheKey`.
    /// - Complexity: O(n) in the key's UTF-8 length (one SHA-256).
    public init(cacheKey: String) {
        let digest = SHA256.hash(cacheKey.utf8)
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for i in 0..<8 {
            hi = hi << 8 | UInt64(digest[i])
            lo = lo << 8 | UInt64(digest[8 + i])
        }
        self.init(hi: hi, lo: lo)
    }

    /// Parses 32 hexadecimal characters (either case), e.g. a store file name without its extension;
    /// nil for anything else.
    public init?(hex: some StringProtocol) {
        let bytes = Array(hex.utf8)
        guard bytes.count == Self.hexCharacterCount else { return nil }
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for i in 0..<16 {
            guard let high = ASCII.hexValue(bytes[i]), let low = ASCII.hexValue(bytes[16 + i]) else { return nil }
            hi = hi << 4 | UInt64(high)
            lo = lo << 4 | UInt64(low)
        }
        self.init(hi: hi, lo: lo)
    }

    /// 32 lowercase hexadecimal characters: `hi` then `lo`.
    public var hex: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: hi >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: lo >> UInt64(shift))) }
        return ASCII.lowerHex(bytes)
    }

    /// `hex + ".asset"`: the only form in which an asset's name reaches the file system.
    public var fileName: String { hex + Self.fileNameExtension }

    public var description: String { hex }

    /// Orders by `hi`, then `lo` (the same order as `hex`).
    public static func < (lhs: StoreKey, rhs: StoreKey) -> Bool {
        (lhs.hi, lhs.lo) < (rhs.hi, rhs.lo)
    }
}
