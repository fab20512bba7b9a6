// HMAC (RFC 2104) instantiated with SHA-256, as tested by RFC 4231.

/// HMAC-SHA256 (RFC 2104) with a constant-time verifier.
public enum HMACSHA256 {
    /// Size of a full MAC in bytes.
    public static let macByteCount = SHA256.digestByteCount

    /// Returns the 32-byte HMAC-SHA256 of `message` under `key`.
    ///
    /// Keys longer than the 64-byte block are first hashed (RFC 2104 §2); shorter keys are zero-padded.
    /// - Complexity: O(key.count + message.count).
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var blockKey = key.count > SHA256.blockByteCount ? SHA256.hash(key) : key
        while blockKey.count < SHA256.blockByteCount { blockKey.append(0) }

        var innerPad = blockKey
        var outerPad = blockKey
        for i in 0..<SHA256.blockByteCount {
            innerPad[i] ^= 0x36
            outerPad[i] ^= 0x5c
        }
        var inner = SHA256Hasher()
        inner.update(innerPad)
        inner.update(message)
        let innerDigest = inner.finalize()

        var outer = SHA256Hasher()
        outer.update(outerPad)
        outer.update(innerDigest)
        return outer.finalize()
    }

    /// True when `mac` is exactly the 32-byte HMAC-SHA256 of `message` under `key`.
    ///
    /// The comparison examines every byte whatever the first difference is, so its running time does
    /// not reveal how many leading bytes of a forged MAC were right. A MAC of any other length
    /// (including a truncated one) is rejected: accepting truncations would weaken forgery resistance.
    /// - Complexity: O(key.count + message.count).
    public static func isValid(mac: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        let expected = Self.mac(key: key, message: message)
        return constantTimeEquals(mac, expected)
    }

    /// Compares two byte arrays in time that depends only on their lengths, never on their contents.
    /// Lengths are not secret (a MAC's length is public), so differing lengths return false at once.
    /// - Complexity: O(n).
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<lhs.count {
            difference |= lhs[i] ^ rhs[i]
        }
        return difference == 0
    }
}
