import XCTest
@testable import PreloadKit

/// `CoreRNG` is SplitMix64 (Steele, Lea & Flood 2014): the tests' only source of pseudo-randomness. Seeded
/// explicitly; every failure message prints the seed.
struct CoreRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<n (n > 0), by rejection so there is no modulo bias.
    mutating func below(_ n: Int) -> Int {
        precondition(n > 0)
        let bound = UInt64(n)
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let x = next()
            if x < limit { return Int(x % bound) }
        }
    }
    /// Uniform in [0, 1) with 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) / 9_007_199_254_740_992.0 }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    /// `count` pseudo-random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

enum Fixtures {
    static let signingKey: [UInt8] = Array("prestage-test-signing-key-0123456789".utf8)

    static func urlPolicy() -> URLPolicy {
        URLPolicy(allowlist: ["cdn.example.com", "*.cdn.example.net"])
    }

    static func options(_ requirement: SignatureRequirement = .required) -> PayloadOptions {
        PayloadOptions(urlPolicy: urlPolicy(), signingKey: signingKey, signatureRequirement: requirement)
    }

    static func policy(_ requirement: SignatureRequirement = .required) -> PreloadPolicy {
        PreloadPolicy(manifestOptions: options(requirement))
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Magic-byte prefixes for the media kinds used in tests.
    static let jpegPrefix: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]
    static let pngPrefix: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D]
    static let webpPrefix: [UInt8] = Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBP".utf8)
    static let m3u8Prefix: [UInt8] = Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8)
    static let mp4Prefix: [UInt8] = [0x00, 0x00, 0x00, 0x18] + Array("ftypmp42".utf8)
}
