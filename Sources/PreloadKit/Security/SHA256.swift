// SHA-256 as specified in FIPS 180-4 (Secure Hash Standard), sections 4.1.2, 4.2.2, 5.1.1, 5.3.3, 6.2.
// Pure Swift, no Foundation: PreloadKit ships inside apps on iOS, Android (Swift SDK) and Linux.

/// One-shot SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// Size of a digest in bytes.
    public static let digestByteCount = 32
    /// Size of one compression block in bytes.
    public static let blockByteCount = 64

    /// Returns the 32-byte SHA-256 digest of `bytes`.
    /// - Complexity: O(n) in the number of bytes; no heap allocation per block.
    public static func hash<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }
}

/// Streaming SHA-256: feed any number of `update` calls, then `finalize` once.
///
/// Feeding the message in pieces gives the same digest as hashing it at once. After `finalize`
/// the hasher is reset to the initial state, so it can be reused for a new message.
public struct SHA256Hasher: Sendable {
    /// FIPS 180-4 §5.3.3 initial hash value.
    private static let initialState: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )

    /// FIPS 180-4 §4.2.2 round constants.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var h0: UInt32, h1: UInt32, h2: UInt32, h3: UInt32, h4: UInt32, h5: UInt32, h6: UInt32, h7: UInt32
    /// Bytes of the current, not yet full block (always fewer than 64 between calls).
    private var pending: [UInt8]
    /// Total message length so far in bytes (the padding encodes it modulo 2^64 bits, as FIPS 180-4 allows
    /// messages shorter than 2^64 bits only).
    private var messageByteCount: UInt64

    /// A hasher in the FIPS 180-4 initial state.
    public init() {
        (h0, h1, h2, h3, h4, h5, h6, h7) = Self.initialState
        pending = []
        pending.reserveCapacity(SHA256.blockByteCount)
        messageByteCount = 0
    }

    /// Appends `bytes` to the message.
    /// - Complexity: O(n); contiguous inputs are compressed straight from their storage.
    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        let handledContiguously: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            self.update(contiguous: buffer)
        }
        if handledContiguously != nil { return }
        for byte in bytes {
            pending.append(byte)
            messageByteCount &+= 1
            if pending.count == SHA256.blockByteCount {
                pending.withUnsafeBufferPointer { compress(block: $0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    private mutating func update(contiguous buffer: UnsafeBufferPointer<UInt8>) {
        messageByteCount &+= UInt64(buffer.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(SHA256.blockByteCount - pending.count, buffer.count)
            pending.append(contentsOf: buffer[0..<take])
            offset = take
            guard pending.count == SHA256.blockByteCount else { return }
            pending.withUnsafeBufferPointer { compress(block: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        while buffer.count - offset >= SHA256.blockByteCount {
            compress(block: UnsafeBufferPointer(rebasing: buffer[offset..<(offset + SHA256.blockByteCount)]))
            offset += SHA256.blockByteCount
        }
        if offset < buffer.count {
            pending.append(contentsOf: buffer[offset...])
        }
    }

    /// Pads the message (FIPS 180-4 §5.1.1), returns the 32-byte digest and resets the hasher.
    public mutating func finalize() -> [UInt8] {
        let messageBitCount = messageByteCount &* 8
        pending.append(0x80)
        if pending.count > SHA256.blockByteCount - 8 {
            while pending.count < SHA256.blockByteCount { pending.append(0) }
            pending.withUnsafeBufferPointer { compress(block: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        while pending.count < SHA256.blockByteCount - 8 { pending.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            pending.append(UInt8(truncatingIfNeeded: messageBitCount >> UInt64(shift)))
        }
        pending.withUnsafeBufferPointer { compress(block: $0) }

        var digest = [UInt8]()
        digest.reserveCapacity(SHA256.digestByteCount)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        self = SHA256Hasher()
        return digest
    }

    @inline(__always)
    private static func rotateRight(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x >> n) | (x << (32 - n))
    }

    /// FIPS 180-4 §6.2.2: processes one 64-byte block. The message schedule lives in a stack buffer.
    private mutating func compress(block: UnsafeBufferPointer<UInt8>) {
        precondition(block.count == SHA256.blockByteCount, "SHA-256 compresses whole 64-byte blocks only")
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                let i = t * 4
                w[t] = UInt32(block[i]) << 24 | UInt32(block[i + 1]) << 16 | UInt32(block[i + 2]) << 8
                    | UInt32(block[i + 3])
            }
            for t in 16..<64 {
                let s0 = Self.rotateRight(w[t - 15], 7) ^ Self.rotateRight(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = Self.rotateRight(w[t - 2], 17) ^ Self.rotateRight(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
            Self.roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let bigSigma1 = Self.rotateRight(e, 6) ^ Self.rotateRight(e, 11) ^ Self.rotateRight(e, 25)
                    let choose = (e & f) ^ (~e & g)
                    let t1 = h &+ bigSigma1 &+ choose &+ k[t] &+ w[t]
                    let bigSigma0 = Self.rotateRight(a, 2) ^ Self.rotateRight(a, 13) ^ Self.rotateRight(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = bigSigma0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
            h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
        }
    }
}
